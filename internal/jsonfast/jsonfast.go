package jsonfast

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"reflect"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A transcript line is decoded by a small JSON parser of our own rather
// than by encoding/json: it accepts and refuses exactly what
// encoding/json's Decoder (with UseNumber) does for one object on a line,
// and builds the same values (map[string]any, []any, string, json.Number,
// bool, nil), but it is several times faster; Decode (decode.go) builds
// typed structs on it, checking the parts of a line no struct names
// without building them. TestParseObjectMatchesStd and FuzzParseObject
// hold it to encoding/json.

// maxNesting is encoding/json's limit on nesting.
const maxNesting = 10000

type jsonParser struct {
	b     []byte
	i     int
	depth int
	buf   []byte // scratch for unescaping
	// Unmarshal's (unmarshal.go): numbers in an any as float64, as
	// encoding/json builds them; the first type error; the struct and
	// the fields it lies in.
	floats   bool
	typeErr  *json.UnmarshalTypeError
	inStruct reflect.Type
	path     []string
}

// DecodeObject decodes one JSON object, keeping numbers as json.Number.
// Anything else (another JSON value, trailing data, bad syntax) is refused.
func DecodeObject(b []byte) (map[string]any, bool) {
	p := jsonParser{b: b}
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return nil, false
	}
	m, ok := p.object()
	if !ok {
		return nil, false
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, false
	}
	return m, true
}

func (p *jsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value() (any, bool) {
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; c {
	case '{':
		m, ok := p.object()
		if !ok {
			return nil, false
		}
		return m, true
	case '[':
		a, ok := p.array()
		if !ok {
			return nil, false
		}
		return a, true
	case '"':
		start, end, esc, ok := p.scanString()
		if !ok {
			return nil, false
		}
		return p.makeString(p.b[start:end], esc), true
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	default:
		start := p.i
		if !p.number() {
			return nil, false
		}
		if p.floats {
			f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
			if err != nil {
				// encoding/json's: the value is left out, past the number.
				p.typeError("number "+string(p.b[start:p.i]), reflect.TypeFor[float64](), p.i+1)
				return nil, true
			}
			return f, true
		}
		return json.Number(p.b[start:p.i]), true
	}
}

func (p *jsonParser) literal(lit string) bool {
	if !bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
		return false
	}
	p.i += len(lit)
	return true
}

// number checks a number's syntax and moves past it.
func (p *jsonParser) number() bool {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	p.i = i
	return true
}

func (p *jsonParser) object() (map[string]any, bool) {
	m := make(map[string]any)
	if !p.members(func(key []byte, esc bool) bool {
		k := p.makeString(key, esc)
		v, ok := p.value()
		m[k] = v
		return ok
	}) {
		return nil, false
	}
	return m, true
}

func (p *jsonParser) array() ([]any, bool) {
	a := []any{}
	if !p.elements(func() bool {
		v, ok := p.value()
		a = append(a, v)
		return ok
	}) {
		return nil, false
	}
	return a, true
}

// members walks the object at p.i (on its '{'), calling member for each
// key with p.i on its value; member moves past the value.
func (p *jsonParser) members(member func(key []byte, esc bool) bool) bool {
	p.i++ // {
	if p.depth++; p.depth > maxNesting {
		return false
	}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		p.depth--
		return true
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return false
		}
		start, end, esc, ok := p.scanString()
		if !ok {
			return false
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		p.ws()
		if !member(p.b[start:end], esc) {
			return false
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.ws()
		case '}':
			p.i++
			p.depth--
			return true
		default:
			return false
		}
	}
}

// elements walks the array at p.i (on its '['), calling elem for each
// element with p.i on it; elem moves past it.
func (p *jsonParser) elements(elem func() bool) bool {
	p.i++ // [
	if p.depth++; p.depth > maxNesting {
		return false
	}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		p.depth--
		return true
	}
	for {
		if !elem() {
			return false
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.ws()
		case ']':
			p.i++
			p.depth--
			return true
		default:
			return false
		}
	}
}

// skip checks one value and moves past it without building anything.
func (p *jsonParser) skip() bool {
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; c {
	case '{':
		return p.members(func([]byte, bool) bool { return p.skip() })
	case '[':
		return p.elements(p.skip)
	case '"':
		_, _, _, ok := p.scanString()
		return ok
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	default:
		return p.number()
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// specialMask flags, in the top bit of each of the eight bytes in x (the
// first byte lowest), the bytes that end a run of plain string content: a
// quote, a backslash or a control character. Bytes above the first flagged
// one may be flagged wrongly; the lowest flag is always right.
func specialMask(x uint64) uint64 {
	quote := x ^ (lsb * '"')
	slash := x ^ (lsb * '\\')
	return ((x-lsb*0x20)&^x | (quote-lsb)&^quote | (slash-lsb)&^slash) & msb
}

// scanString checks the string starting at p.i (on its opening quote) and
// moves past it. It returns where its content lies and whether the content
// holds escapes.
func (p *jsonParser) scanString() (start, end int, esc, ok bool) {
	b := p.b
	i := p.i + 1
	start = i
	for {
		// Find the next quote, backslash or control character, eight
		// bytes at a time.
		for {
			if i+8 <= len(b) {
				if m := specialMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
					i += bits.TrailingZeros64(m) >> 3
					break
				}
				i += 8
				continue
			}
			for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
				i++
			}
			break
		}
		if i >= len(b) {
			return 0, 0, false, false
		}
		switch c := b[i]; {
		case c == '"':
			p.i = i + 1
			return start, i, esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return 0, 0, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || hex4(b[i+2:i+6]) < 0 {
					return 0, 0, false, false
				}
				i += 6
			default:
				return 0, 0, false, false
			}
		default: // a control character
			return 0, 0, false, false
		}
	}
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// makeString returns the string whose checked content (between the
// quotes) is raw. Like encoding/json, it turns each byte that is not
// UTF-8 into U+FFFD.
func (p *jsonParser) makeString(raw []byte, esc bool) string {
	if esc {
		return string(p.unescape(raw))
	}
	if len(raw) <= maxInterned {
		if s, ok := interned[string(raw)]; ok {
			return s
		}
	}
	if utf8.Valid(raw) {
		return string(raw)
	}
	return string(appendValid(nil, raw))
}

// appendValid appends s to dst with each byte that is not UTF-8 replaced
// by U+FFFD.
func appendValid(dst, s []byte) []byte {
	for len(s) > 0 {
		c := s[0]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			s = s[1:]
			continue
		}
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[:size]...)
		}
		s = s[size:]
	}
	return dst
}

// unescape decodes checked string content with escapes into p.buf, as
// encoding/json does: a lone or mismatched surrogate reads as U+FFFD.
// The result is valid until the next call.
func (p *jsonParser) unescape(raw []byte) []byte {
	out := p.buf[:0]
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			i = len(raw)
		}
		if chunk := raw[:i]; utf8.Valid(chunk) {
			out = append(out, chunk...)
		} else {
			out = appendValid(out, chunk)
		}
		raw = raw[i:]
		if len(raw) == 0 {
			break
		}
		// raw[0] is a backslash; scanString checked what follows.
		switch c := raw[1]; c {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(raw[2:6])
			raw = raw[6:]
			if utf16.IsSurrogate(r) {
				if len(raw) >= 6 && raw[0] == '\\' && raw[1] == 'u' {
					if r2 := hex4(raw[2:6]); r2 >= 0 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							raw = raw[6:]
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // " \ /
			out = append(out, c)
		}
		raw = raw[2:]
	}
	p.buf = out
	return out
}

// interned are keys and values that recur on every line; building them
// from this table saves an allocation each.
var interned = map[string]string{}

const maxInterned = 32

func init() {
	for _, s := range []string{
		"type", "uuid", "parentUuid", "logicalParentUuid", "isSidechain", "userType", "external",
		"cwd", "sessionId", "version", "gitBranch", "timestamp", "message", "role", "content",
		"user", "assistant", "system", "summary", "text", "tool_use", "tool_result", "tool_use_id",
		"is_error", "id", "name", "input", "usage", "input_tokens", "output_tokens",
		"cache_read_input_tokens", "cache_creation_input_tokens", "requestId", "toolUseResult",
		"command", "file_path", "todos", "status", "pending", "in_progress", "completed",
		"exitCode", "stderr", "interrupted", "newTodos", "isMeta", "isCompactSummary", "main",
		"Bash", "Edit", "Write", "Read", "MultiEdit", "TodoWrite", "NotebookEdit",
		"payload", "response_item", "event_msg", "turn_context", "session_meta", "compacted",
		"function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
		"reasoning", "call_id", "arguments", "output", "exit_code", "token_count", "info",
		"total_token_usage", "cached_input_tokens", "user_message", "agent_message",
		"exec_command_end", "patch_apply_end", "task_complete", "last_agent_message",
		"input_text", "output_text", "exec_command", "apply_patch", "update_plan", "success",
		"aggregated_output", "formatted_output", "stdout", "gemini", "toolCalls", "args",
		"result", "resultDisplay", "functionResponse", "response", "tokens", "cached", "thoughts",
		"run_shell_command", "replace", "write_file", "read_file", "error", "cancelled",
	} {
		interned[s] = s
	}
}

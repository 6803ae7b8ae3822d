package codex

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Codex's code mode gives the model one freeform tool, exec, whose input
// is a JavaScript program; the program calls Codex's other tools through
// the global tools object ("await tools.exec_command({cmd: …})",
// "await tools.apply_patch(`*** Begin Patch …`)"), and exec's output is
// what the script chose to print, after a "Script completed" or "Script
// failed" header. The rollout keeps the exec custom_tool_call and its
// output as response items; of the nested calls (call ids
// "exec-<uuid>") it keeps only what the rollout policy persists: nothing
// in the limited mode (exec_command_end and patch_apply_end are extended
// only), patch_apply_end in later ones, item_completed CommandExecution
// and FileChange items in 0.169.0 and in paginated history.
//
// Sources: openai/codex codex-rs/core/src/tools/code_mode/description.md
// (commit 165efc05: the tools object, the "// @exec:" pragma),
// codex-rs/core/src/tools/code_mode/mod.rs (commit 066f172c: the nested
// call ids, the script status header), codex-rs/code-mode/src/lib.rs
// (commit 738fd153: PUBLIC_TOOL_NAME "exec"),
// codex-rs/rollout/src/policy.rs (commits 851c9d5e and 0136a731: what a
// rollout persists). Which releases those commits went into is not known
// here; the rollouts of 0.169.0 and 0.171.0 in testdata/real-e2e show the
// item_completed form.
//
// So the reader takes the nested calls from their own records when the
// rollout has any (reader.nestedCmd, nestedFile), and otherwise
// from the script: each tools.<name>(…) call outside comments whose
// argument is a string literal, or an object literal whose command is
// one. A command built at run time (a variable, a template with ${…}) is
// not guessed. How a command read from the script ended is not known.

// codeModeTool is the public name of Codex's code-mode tool.
const codeModeTool = "exec"

// maxCodeModeCalls bounds the nested calls read from one script.
const maxCodeModeCalls = 64

// codeModeCall is a tool call a code-mode script makes: its tool's name
// and its argument, a string or an object of the members whose values are
// literals (a string, or an array of strings).
type codeModeCall struct {
	name string
	str  string
	obj  map[string]any
	// isStr says the argument is a string literal.
	isStr bool
}

// codeModeCalls returns the tools.<name>(…) calls of a script, in order.
func codeModeCalls(src string) []codeModeCall {
	var out []codeModeCall
	s := jsScanner{src: src}
	for s.i < len(src) && len(out) < maxCodeModeCalls {
		c := src[s.i]
		switch {
		case c == '/' && s.peek(1) == '/':
			s.skipTo("\n")
		case c == '/' && s.peek(1) == '*':
			s.i += 2
			s.skipTo("*/")
			s.i += 2
		case c == '"' || c == '\'' || c == '`':
			s.str()
		case isJSIdentStart(c):
			start := s.i
			id := s.ident()
			if id != "tools" || (start > 0 && src[start-1] == '.') {
				continue
			}
			s.space()
			if s.peek(0) != '.' {
				continue
			}
			s.i++
			s.space()
			name := s.ident()
			s.space()
			if name == "" || s.peek(0) != '(' {
				continue
			}
			s.i++
			if call, ok := s.arg(); ok {
				call.name = name
				out = append(out, call)
			}
		default:
			s.i++
		}
	}
	return out
}

// jsScanner reads the few JavaScript tokens codeModeCalls needs.
type jsScanner struct {
	src string
	i   int
}

func (s *jsScanner) peek(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

func (s *jsScanner) skipTo(end string) {
	if j := strings.Index(s.src[s.i:], end); j >= 0 {
		s.i += j
	} else {
		s.i = len(s.src)
	}
}

func (s *jsScanner) space() {
	for s.i < len(s.src) && strings.IndexByte(" \t\r\n", s.src[s.i]) >= 0 {
		s.i++
	}
}

func isJSIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (s *jsScanner) ident() string {
	start := s.i
	for s.i < len(s.src) && (isJSIdentStart(s.src[s.i]) || s.src[s.i] >= '0' && s.src[s.i] <= '9') {
		s.i++
	}
	return s.src[start:s.i]
}

// str reads a string or template literal at s.i and returns its value;
// ok is false when it is not one, is unterminated, or interpolates
// (${…}), whose value is known only at run time.
func (s *jsScanner) str() (val string, ok bool) {
	q := s.peek(0)
	if q != '"' && q != '\'' && q != '`' {
		return "", false
	}
	s.i++
	var b strings.Builder
	ok = true
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == q:
			s.i++
			return b.String(), ok
		case c == '\n' && q != '`':
			return "", false // an unterminated string
		case c == '$' && q == '`' && s.peek(1) == '{':
			ok = false
			s.i += 2
			s.skipBraces()
			continue
		case c == '\\':
			s.escape(&b)
			continue
		}
		b.WriteByte(c)
		s.i++
	}
	return "", false
}

// skipBraces skips to the '}' that closes a '{' already read.
func (s *jsScanner) skipBraces() {
	for depth := 1; s.i < len(s.src); {
		switch s.src[s.i] {
		case '"', '\'', '`':
			s.str()
			continue
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				s.i++
				return
			}
		}
		s.i++
	}
}

// escape reads the escape sequence at s.i (a backslash) into b.
func (s *jsScanner) escape(b *strings.Builder) {
	s.i++
	if s.i >= len(s.src) {
		return
	}
	c := s.src[s.i]
	s.i++
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case '0':
		b.WriteByte(0)
	case '\n':
		// a line continuation
	case 'x', 'u':
		n := 2
		if c == 'u' {
			n = 4
		}
		if s.i+n <= len(s.src) {
			if r, err := strconv.ParseUint(s.src[s.i:s.i+n], 16, 32); err == nil {
				b.WriteRune(rune(r))
				s.i += n
				return
			}
		}
		b.WriteByte(c)
	default:
		if c < utf8.RuneSelf {
			b.WriteByte(c)
		} else {
			s.i--
		}
	}
}

// arg reads a call's first argument, at s.i (after the opening
// parenthesis): a literal string, or an object literal. ok is false for
// anything else (a variable, an expression).
func (s *jsScanner) arg() (codeModeCall, bool) {
	s.space()
	var call codeModeCall
	switch s.peek(0) {
	case '"', '\'', '`':
		v, ok := s.str()
		s.space()
		if !ok || (s.peek(0) != ')' && s.peek(0) != ',') {
			return call, false
		}
		call.str, call.isStr = v, true
		return call, true
	case '{':
		s.i++
		obj, ok := s.object()
		call.obj = obj
		return call, ok
	}
	return call, false
}

// object reads the members of an object literal whose '{' is read; a
// member whose value is no literal is left out (it is unknown).
func (s *jsScanner) object() (map[string]any, bool) {
	obj := map[string]any{}
	for s.i < len(s.src) {
		s.space()
		var key string
		switch c := s.peek(0); {
		case c == '}':
			s.i++
			return obj, true
		case c == '"' || c == '\'':
			k, ok := s.str()
			if !ok {
				return nil, false
			}
			key = k
		case isJSIdentStart(c):
			key = s.ident()
		default:
			return nil, false
		}
		s.space()
		if s.peek(0) == ':' {
			s.i++
			s.space()
			if v, ok := s.value(); ok {
				obj[key] = v
			}
		}
		if !s.memberEnd() {
			return nil, false
		}
	}
	return nil, false
}

// value reads a literal member value: a string or an array of strings.
// Anything else is skipped and reported as not read.
func (s *jsScanner) value() (any, bool) {
	switch s.peek(0) {
	case '"', '\'', '`':
		v, ok := s.str()
		s.space()
		return v, ok && (s.peek(0) == ',' || s.peek(0) == '}')
	case '[':
		s.i++
		var arr []any
		for {
			s.space()
			if s.peek(0) == ']' {
				s.i++
				return arr, true
			}
			v, ok := s.str()
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
			s.space()
			if s.peek(0) == ',' {
				s.i++
			}
		}
	}
	return nil, false
}

// memberEnd skips what is left of a member's value, up to and past the
// ',' that ends it, or to the '}' that closes the object (not read).
func (s *jsScanner) memberEnd() bool {
	for depth := 0; s.i < len(s.src); {
		switch c := s.src[s.i]; c {
		case '"', '\'', '`':
			s.str()
			continue
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			if depth == 0 {
				return c == '}'
			}
			depth--
		case ',':
			if depth == 0 {
				s.i++
				return true
			}
		}
		s.i++
	}
	return false
}

// codeModeExec reads the nested calls of a code-mode exec call's script
// into events, ids "<exec call id>/<n>": commands unless the rollout
// keeps its nested commands' records, patches unless it keeps its nested
// patches' (which the second pass knows from the first).
func (c *reader) codeModeExec(id, script string) {
	for n, call := range codeModeCalls(script) {
		cid := id + "/" + strconv.Itoa(n)
		var cmd, workdir, patch string
		switch call.name {
		case "exec_command":
			cmd, workdir = commandString(firstValue(call.obj, "cmd", "command")), objStr(call.obj, "workdir")
		case "shell_command", "shell":
			cmd, workdir = commandString(call.obj["command"]), objStr(call.obj, "workdir")
		case "apply_patch":
			patch = call.str
			if !call.isStr {
				patch = transcript.FirstNonEmpty(objStr(call.obj, "input"), objStr(call.obj, "patch"))
			}
		}
		switch {
		case strings.TrimSpace(cmd) != "" && !c.nestedCmd:
			c.shell(cid, cmd, workdir)
		case strings.TrimSpace(patch) != "" && !c.nestedFile:
			c.addPatch(cid, c.patchOps(patch, ""))
		}
	}
}

// objStr is the member k of an object literal when it is a string.
func objStr(obj map[string]any, k string) string {
	s, _ := obj[k].(string)
	return s
}

// firstValue is the first member of obj named in keys that is there.
func firstValue(obj map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			return v
		}
	}
	return nil
}

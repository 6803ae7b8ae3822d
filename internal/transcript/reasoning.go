package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Reasoning says where an agent's transcript holds the model's private
// reasoning (thinking text, reasoning summaries, encrypted reasoning
// blobs), so that a copy of the transcript can be made without it. Each
// agent's folder declares its own, citing the agent's format; an agent
// whose transcript is a database (never copied) declares none.
//
// The model's reasoning is never stored or exported by any path
// (SECURITY.md, "Private reasoning"): readers do not read it into a
// record, and an attached transcript is copied through WithoutReasoning.
type Reasoning struct {
	// Types are the values of an object's "type" member that make the
	// whole object reasoning: Claude Code's {"type":"thinking",…} content
	// block, Codex's {"type":"reasoning",…} response item.
	Types []string
	// Members are member names whose value is reasoning, removed from
	// any object that has them (unless the value is a number, a boolean
	// or null: a count of reasoning tokens is no reasoning).
	Members []string
	// Flags are member names that mark the object holding them as
	// reasoning when their value is true (Gemini's {"thought": true}
	// parts).
	Flags []string
}

// Empty says whether r names nothing.
func (r Reasoning) Empty() bool {
	return len(r.Types) == 0 && len(r.Members) == 0 && len(r.Flags) == 0
}

// Join is r with the names of o added.
func (r Reasoning) Join(o Reasoning) Reasoning {
	return Reasoning{
		Types:   append(slices.Clone(r.Types), o.Types...),
		Members: append(slices.Clone(r.Members), o.Members...),
		Flags:   append(slices.Clone(r.Flags), o.Flags...),
	}
}

// StripStats counts what WithoutReasoning left out.
type StripStats struct {
	// Removed is how many values (objects, members, array elements) were
	// left out as reasoning.
	Removed int
	// DroppedLines is how many lines were left out whole: lines that are
	// reasoning, and lines that might hold reasoning but are no JSON
	// (nothing can tell what is in them).
	DroppedLines int
}

// ErrReasoningLimit is wrapped when a transcript is over the size
// WithoutReasoning may read.
var ErrReasoningLimit = errors.New("transcript too large to filter")

// WithoutReasoning copies src to dst without the model's reasoning that r
// describes, reading at most lim.MaxFile bytes (lines at most
// lim.MaxLine). A JSON Lines transcript is copied line by line: a line
// that names none of r's names (and holds no \u escape that could spell
// one) is copied byte for byte; the others are decoded, filtered and
// written again, and one that is no JSON is left out. A transcript that
// is one JSON document over many lines (Cline's messages.json, Gemini
// CLI's older chat files) is filtered whole. Object members keep their
// order; a value nothing was removed from keeps its bytes.
func WithoutReasoning(dst io.Writer, src io.Reader, r Reasoning, lim Limits) (StripStats, error) {
	lim = lim.withDefaults()
	f := newReasoningFilter(r)
	var st StripStats
	tooBig := fmt.Errorf("over %d bytes: %w", lim.MaxFile, ErrReasoningLimit)
	br := bufio.NewReaderSize(io.LimitReader(src, lim.MaxFile+1), 64<<10)
	first, n, tooLong, err := readLine(br, lim.MaxLine)
	if err != nil {
		return st, err
	}
	if head := bytes.TrimSpace(first); !tooLong && len(head) > 0 && !json.Valid(head) {
		// Not one value per line: the whole transcript may be one
		// document.
		rest, err := io.ReadAll(br)
		if err != nil {
			return st, err
		}
		all := append(first, rest...)
		if int64(len(all)) > lim.MaxFile {
			return st, tooBig
		}
		if doc := bytes.TrimSpace(all); json.Valid(doc) {
			out, drop, changed := f.value(doc, 0, &st)
			switch {
			case drop:
				return st, nil
			case !changed:
				_, err := dst.Write(all)
				return st, err
			}
			// Spread over lines again, as the agents write such a file
			// (two spaces a level): Gemini CLI's reader tells its older
			// form by a first line of "{".
			var b bytes.Buffer
			if err := json.Indent(&b, out, "", "  "); err != nil {
				return st, err
			}
			b.WriteByte('\n')
			_, err := dst.Write(b.Bytes())
			return st, err
		}
		br = bufio.NewReaderSize(bytes.NewReader(all), 64<<10)
		if first, n, tooLong, err = readLine(br, lim.MaxLine); err != nil {
			return st, err
		}
	}
	total := int64(0)
	for line := first; n > 0; {
		if total += int64(n); total > lim.MaxFile {
			return st, tooBig
		}
		if tooLong {
			st.DroppedLines++
		} else if err := f.line(dst, line, &st); err != nil {
			return st, err
		}
		if line, n, tooLong, err = readLine(br, lim.MaxLine); err != nil {
			return st, err
		}
	}
	return st, nil
}

// readLine reads one line with its newline (none at the end of the
// input: an empty line there). A line over max bytes is read through
// without being kept and comes back as nil with tooLong set: no reader
// reads it either (EachLine counts it as too long).
func readLine(br *bufio.Reader, max int) (line []byte, n int, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > max {
				line, tooLong = nil, true
			}
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			return line, n, tooLong, nil
		}
		return line, n, tooLong, err
	}
}

// reasoningFilter applies one Reasoning.
type reasoningFilter struct {
	types, members, flags map[string]bool
	// needles are the quoted names, any of which makes a line worth
	// decoding.
	needles [][]byte
}

func newReasoningFilter(r Reasoning) *reasoningFilter {
	f := &reasoningFilter{types: set(r.Types), members: set(r.Members), flags: set(r.Flags)}
	for _, names := range [][]string{r.Types, r.Members, r.Flags} {
		for _, n := range names {
			q, _ := json.Marshal(n)
			f.needles = append(f.needles, q)
		}
	}
	// An escape can spell any name: "\u0074hinking" is "thinking".
	f.needles = append(f.needles, []byte(`\u`))
	return f
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// line writes one line of a JSON Lines transcript, filtered.
func (f *reasoningFilter) line(dst io.Writer, line []byte, st *StripStats) error {
	if !slices.ContainsFunc(f.needles, func(n []byte) bool { return bytes.Contains(line, n) }) {
		_, err := dst.Write(line)
		return err
	}
	body := bytes.TrimSpace(line)
	if !json.Valid(body) {
		st.DroppedLines++
		return nil
	}
	out, drop, _ := f.value(body, 0, st)
	if drop {
		st.DroppedLines++
		return nil
	}
	_, err := dst.Write(append(out, '\n'))
	return err
}

// maxReasoningDepth bounds how deep values are filtered: a value nested
// deeper is left out whole, so that a hostile line costs at most this many
// passes over its bytes. No agent nests reasoning that deep.
const maxReasoningDepth = 32

// value filters one valid JSON value at depth: drop says the value is
// reasoning as a whole (or too deep to tell), changed that something in
// it was removed (else out is raw).
func (f *reasoningFilter) value(raw []byte, depth int, st *StripStats) (out []byte, drop, changed bool) {
	if raw[0] != '{' && raw[0] != '[' {
		return raw, false, false
	}
	if depth >= maxReasoningDepth {
		st.Removed++
		return nil, true, true
	}
	if raw[0] == '{' {
		return f.object(raw, depth, st)
	}
	out, changed = f.array(raw, depth, st)
	return out, false, changed
}

func (f *reasoningFilter) object(raw []byte, depth int, st *StripStats) (out []byte, drop, changed bool) {
	// raw is valid JSON: an error below cannot happen, and would leave
	// the object out rather than copy what was not looked at.
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, true, true
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, true, true
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, true, true
		}
		switch {
		case key == "type" && f.types[stringValue(val)],
			f.flags[key] && bytes.Equal(val, []byte("true")):
			st.Removed++
			return nil, true, true
		case f.members[key] && !scalar(val):
			st.Removed++
			changed = true
			continue
		}
		v, drop, ch := f.value(val, depth+1, st)
		if drop {
			changed = true
			continue
		}
		changed = changed || ch
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	if !changed {
		return raw, false, false
	}
	b.WriteByte('}')
	return b.Bytes(), false, true
}

func (f *reasoningFilter) array(raw []byte, depth int, st *StripStats) (out []byte, changed bool) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return []byte("[]"), true
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for _, e := range elems {
		v, drop, ch := f.value(e, depth+1, st)
		if drop {
			changed = true
			continue
		}
		changed = changed || ch
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	if !changed {
		return raw, false
	}
	b.WriteByte(']')
	return b.Bytes(), true
}

// stringValue is the string a JSON value holds, "" for any other value.
func stringValue(raw []byte) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// scalar says whether a JSON value is a number, a boolean or null.
func scalar(raw []byte) bool {
	return len(raw) > 0 && raw[0] != '"' && raw[0] != '{' && raw[0] != '['
}

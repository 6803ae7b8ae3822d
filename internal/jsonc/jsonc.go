// Package jsonc scans JSON with comments (// and /* */) and trailing commas,
// as agents' settings files allow, recording byte offsets so that a
// settings file can be edited by inserting text and nothing else of the
// user's file changes. It reads, bounded in depth; a leaf every package
// may use.
package jsonc

import (
	"errors"
	"fmt"
)

// Member is one "key": value pair of a JSON object, with byte offsets into
// the text it was scanned from.
type Member struct {
	Key        string
	ValueStart int // offset of the value's first byte
	ValueEnd   int // offset just past the value
}

// scanner walks JSON with comments (// and /* */) and trailing commas,
// as agents' settings files allow, recording offsets so that edits can be
// made by inserting text and nothing else of the user's file changes.
type scanner struct {
	s   []byte
	pos int
}

// ErrSyntax is wrapped by every error of a text that does not scan.
var ErrSyntax = errors.New("not valid JSON")

func (sc *scanner) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", ErrSyntax, what, sc.pos)
}

// skip moves past white space and comments.
func (sc *scanner) skip() error {
	for sc.pos < len(sc.s) {
		c := sc.s[sc.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			sc.pos++
		case c == '/' && sc.pos+1 < len(sc.s) && sc.s[sc.pos+1] == '/':
			for sc.pos < len(sc.s) && sc.s[sc.pos] != '\n' {
				sc.pos++
			}
		case c == '/' && sc.pos+1 < len(sc.s) && sc.s[sc.pos+1] == '*':
			end := -1
			for i := sc.pos + 2; i+1 < len(sc.s); i++ {
				if sc.s[i] == '*' && sc.s[i+1] == '/' {
					end = i + 2
					break
				}
			}
			if end < 0 {
				return sc.fail("unterminated comment")
			}
			sc.pos = end
		default:
			return nil
		}
	}
	return nil
}

// value skips one value, returning its end offset; depth bounds nesting.
func (sc *scanner) value(depth int) error {
	if depth > 64 {
		return sc.fail("nesting deeper than 64")
	}
	if err := sc.skip(); err != nil {
		return err
	}
	if sc.pos >= len(sc.s) {
		return sc.fail("unexpected end")
	}
	switch c := sc.s[sc.pos]; {
	case c == '{':
		_, err := sc.object(depth)
		return err
	case c == '[':
		_, err := sc.array(depth)
		return err
	case c == '"':
		_, err := sc.str()
		return err
	default:
		start := sc.pos
		for sc.pos < len(sc.s) && (isWordByte(sc.s[sc.pos])) {
			sc.pos++
		}
		if sc.pos == start {
			return sc.fail(fmt.Sprintf("unexpected %q", c))
		}
		return nil
	}
}

func isWordByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// str reads a string and returns its raw content (escapes kept, which is
// enough to compare keys we write ourselves).
func (sc *scanner) str() (string, error) {
	start := sc.pos + 1
	for i := start; i < len(sc.s); i++ {
		switch sc.s[i] {
		case '\\':
			i++
		case '"':
			sc.pos = i + 1
			return string(sc.s[start:i]), nil
		case '\n':
			return "", sc.fail("line break in a string")
		}
	}
	return "", sc.fail("unterminated string")
}

// object reads an object at sc.pos and returns its members.
func (sc *scanner) object(depth int) ([]Member, error) {
	sc.pos++ // {
	var out []Member
	for {
		if err := sc.skip(); err != nil {
			return nil, err
		}
		if sc.pos >= len(sc.s) {
			return nil, sc.fail("unterminated object")
		}
		if sc.s[sc.pos] == '}' {
			sc.pos++
			return out, nil
		}
		if sc.s[sc.pos] != '"' {
			return nil, sc.fail("expected a key")
		}
		key, err := sc.str()
		if err != nil {
			return nil, err
		}
		if err := sc.skip(); err != nil {
			return nil, err
		}
		if sc.pos >= len(sc.s) || sc.s[sc.pos] != ':' {
			return nil, sc.fail("expected ':'")
		}
		sc.pos++
		if err := sc.skip(); err != nil {
			return nil, err
		}
		m := Member{Key: key, ValueStart: sc.pos}
		if err := sc.value(depth + 1); err != nil {
			return nil, err
		}
		m.ValueEnd = sc.pos
		out = append(out, m)
		if err := sc.skip(); err != nil {
			return nil, err
		}
		if sc.pos < len(sc.s) && sc.s[sc.pos] == ',' {
			sc.pos++
		}
	}
}

// array reads an array at sc.pos and returns how many elements it has.
func (sc *scanner) array(depth int) (int, error) {
	sc.pos++ // [
	n := 0
	for {
		if err := sc.skip(); err != nil {
			return 0, err
		}
		if sc.pos >= len(sc.s) {
			return 0, sc.fail("unterminated array")
		}
		if sc.s[sc.pos] == ']' {
			sc.pos++
			return n, nil
		}
		if err := sc.value(depth + 1); err != nil {
			return 0, err
		}
		n++
		if err := sc.skip(); err != nil {
			return 0, err
		}
		if sc.pos < len(sc.s) && sc.s[sc.pos] == ',' {
			sc.pos++
		}
	}
}

// TopObject scans a whole document that must be one object, returning
// its members and the offset of its opening brace.
func TopObject(text []byte) (members []Member, open int, err error) {
	sc := &scanner{s: text}
	if err := sc.skip(); err != nil {
		return nil, 0, err
	}
	if sc.pos >= len(text) || text[sc.pos] != '{' {
		return nil, 0, sc.fail("the settings must be one JSON object")
	}
	open = sc.pos
	if members, err = sc.object(0); err != nil {
		return nil, 0, err
	}
	if err := sc.skip(); err != nil {
		return nil, 0, err
	}
	if sc.pos != len(text) {
		return nil, 0, sc.fail("data after the object")
	}
	return members, open, nil
}

// ObjectAt scans the object whose '{' is at off.
func ObjectAt(text []byte, off int) ([]Member, error) {
	sc := &scanner{s: text, pos: off}
	return sc.object(0)
}

// ArrayLen counts the elements of the array whose '[' is at off.
func ArrayLen(text []byte, off int) (int, error) {
	sc := &scanner{s: text, pos: off}
	return sc.array(0)
}

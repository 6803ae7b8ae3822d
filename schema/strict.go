package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// ErrMalformed is wrapped by every error StrictCheck returns.
var ErrMalformed = errors.New("malformed JSON")

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 64

// StrictCheck checks that data is exactly one JSON value in valid UTF-8,
// with no duplicate object keys at any depth (compared after unescaping, so
// "a" and "\u0061" are the same key), no nesting deeper than 64 levels, and
// nothing after the value but white space. encoding/json accepts all of
// these silently; a document that relies on them is refused, since two
// parsers could read different things from the same (signed) bytes.
func StrictCheck(data []byte) error {
	return StrictCheckDepth(data, maxDepth)
}

// StrictCheckDepth is StrictCheck with another bound on nesting, for
// formats that are known to be shallow.
func StrictCheckDepth(data []byte, maxDepth int) error {
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return fmt.Errorf("%w: invalid UTF-8 at byte %d", ErrMalformed, off)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := checkValue(dec, 0, maxDepth, ""); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: trailing data after the JSON value at byte %d", ErrMalformed, dec.InputOffset())
	}
	return nil
}

func checkValue(dec *json.Decoder, depth, maxDepth int, ptr string) error {
	tok, err := dec.Token()
	if err != nil {
		return malformed(err, dec)
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= maxDepth {
		return fmt.Errorf("%w: nested deeper than %d levels at %s", ErrMalformed, maxDepth, pointer(ptr))
	}
	switch delim {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return malformed(err, dec)
			}
			key, ok := tok.(string)
			if !ok {
				return fmt.Errorf("%w: object key expected at byte %d", ErrMalformed, dec.InputOffset())
			}
			child := ptr + "/" + escapePointer(key)
			if seen[key] {
				return fmt.Errorf("%w: duplicate key %q at %s", ErrMalformed, untrusted.Shorten(key, 40), pointer(ptr))
			}
			seen[key] = true
			if err := checkValue(dec, depth+1, maxDepth, child); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := checkValue(dec, depth+1, maxDepth, fmt.Sprintf("%s/%d", ptr, i)); err != nil {
				return err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return malformed(err, dec)
	}
	return nil
}

func malformed(err error, dec *json.Decoder) error {
	if err == io.EOF {
		return fmt.Errorf("%w: unexpected end of input", ErrMalformed)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w: %s at byte %d", ErrMalformed, strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	return fmt.Errorf("%w: %s at byte %d", ErrMalformed, strings.TrimPrefix(err.Error(), "json: "), dec.InputOffset())
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func pointer(p string) string {
	if p == "" {
		return "the top level"
	}
	return untrusted.Shorten(p, 80)
}

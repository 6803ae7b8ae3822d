package transcript

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// The toolkit for readers in the agents' folders (internal/agents/<name>)
// beyond Decode and the Builder: values written in more than one shape,
// numbers, exit codes.

// DecodeValue decodes raw, one JSON value of any kind (a list, a string,
// an object…), into v, a pointer, as leniently as Decode decodes a line's
// fields: a value of another type leaves v as it was. It is for a field an
// agent writes in more than one shape, kept as a json.RawMessage and
// decoded once its shape is known.
func DecodeValue(raw []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("transcript.DecodeValue: want a pointer")
	}
	if !decodeInto(raw, rv.Elem(), false) {
		return errNotValue
	}
	return nil
}

// errNotValue is DecodeValue's error for bytes that are not one JSON
// value.
var errNotValue = errors.New("not a JSON value")

// Int reads a JSON number as an integer, as the readers read counts and
// ids: a fraction is dropped; "" or a number beyond int64 is none.
func Int(n json.Number) (int64, bool) {
	if n == "" {
		return 0, false
	}
	return toInt(n)
}

// ExitCode is the exit code a JSON number gives (a fraction dropped); nil
// when n is no number or out of an exit code's range.
func ExitCode(n json.Number) *int {
	if n == "" {
		return nil
	}
	return exitCode(n)
}

// ParseExit reads an exit code written in decimal; nil when it is none.
func ParseExit(s string) *int { return parseExit(s) }

// LineWithPrefix reports whether a line of text begins with prefix, as
// the pattern (?m)^prefix would.
func LineWithPrefix(text, prefix string) bool { return lineWithPrefix(text, prefix) }

// ExitLine finds the exit code a command's output states on a line of its
// own that starts with one of prefixes, as (?m)^(?:PREFIX|…) (-?\d{1,10})\s*$
// would: found says there is such a line, code is nil when its number is
// no exit code (out of range).
func ExitLine(text string, prefixes ...string) (code *int, found bool) {
	n, ok := exitLine(text, prefixes...)
	if !ok {
		return nil, false
	}
	return parseExit(n), true
}

// JoinPath resolves a relative path against dir, lexically; a path that is
// absolute, or not a plain slash path, is kept as it is.
func JoinPath(dir, p string) string { return joinPath(dir, p) }

// IsSlashCommand reports whether a request is an agent's slash command
// alone ("/review"), which says what was run, not the work.
func IsSlashCommand(s string) bool { return isSlashCommand(s) }

// WithoutBlocks is text without each block that runs from open to the
// next close; an open with no close after it is left as it is.
func WithoutBlocks(text, open, close string) string {
	for {
		i := strings.Index(text, open)
		if i < 0 {
			return text
		}
		j := strings.Index(text[i:], close)
		if j < 0 {
			return text
		}
		text = text[:i] + text[i+j+len(close):]
	}
}

// firstNonEmpty is the first of ss that is not blank.
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// SessionStart is when the session started, zero when unknown.
func SessionStart(s handoff.Session) time.Time {
	if s.StartedAt != nil {
		return *s.StartedAt
	}
	return time.Time{}
}

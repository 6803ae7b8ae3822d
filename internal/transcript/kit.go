package transcript

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/jsonfast"
)

// The toolkit for readers in the agents' folders (internal/agents/<name>)
// beyond Decode (decode.go), the Builder (builder.go) and discovery
// (probe.go): numbers, exit codes, text, the digest's bounds.

// Int reads a JSON number as an integer, as the readers read counts and
// ids: a fraction is dropped; "" or a number beyond int64 is none.
func Int(n json.Number) (int64, bool) {
	if n == "" {
		return 0, false
	}
	return jsonfast.Int(n)
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

// Bounds of a digest that readers apply themselves.
const (
	// MaxFiles bounds the files of a digest (schema: files maxItems).
	MaxFiles = maxFiles
	// MaxID bounds a session's id (schema: session.id maxLength).
	MaxID = maxID
	// MaxSubagents bounds the subagents whose transcripts are folded into
	// their parent's.
	MaxSubagents = maxSubagents
	// HeadBytes is how much of a file's start discovery reads.
	HeadBytes = headBytes
)

// FirstNonEmpty is the first of ss that is not blank; "" when all are.
func FirstNonEmpty(ss ...string) string { return firstNonEmpty(ss...) }

// Subtree is root and every item of all whose parent is in it, to any
// depth: a session and its subagents' sessions, where each session names
// its parent. key gives an item's id and its parent's ("" for none).
func Subtree[T any](root string, all []T, key func(T) (id, parent string)) map[string]bool {
	in := map[string]bool{root: true}
	for grew := true; grew; {
		grew = false
		for _, o := range all {
			if id, parent := key(o); parent != "" && in[parent] && !in[id] {
				in[id], grew = true, true
			}
		}
	}
	return in
}

package handoff

import "github.com/session-handoff/session-handoff/internal/untrusted"

// Clip cuts s to at most n bytes without splitting a UTF-8 character.
func Clip(s string, n int) string { return untrusted.Clip(s, n) }

// Shorten is Clip with an ellipsis when something was cut, for quoting
// untrusted text in messages.
func Shorten(s string, n int) string { return untrusted.Shorten(s, n) }

// CleanText removes control characters other than newline and tab,
// bidirectional controls and invisible format characters, and turns line
// and paragraph separators into newlines, so that text from a record
// cannot drive a terminal or hide or reorder what a reader sees. (The
// implementation, shared with packages that cannot import handoff, is
// internal/untrusted's.)
func CleanText(s string) string { return untrusted.CleanText(s) }

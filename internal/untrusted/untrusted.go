// Package untrusted is the one place that makes text from outside safe to
// show: cut without splitting a character (Clip, Shorten), and cleaned of
// control, bidirectional and invisible format characters (CleanText). It
// imports nothing of ours, so every package may use it; package handoff
// offers the same functions to importers of the module.
package untrusted

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clip cuts s to at most n bytes without splitting a UTF-8 character.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Shorten is Clip with an ellipsis when something was cut, for quoting
// untrusted text in messages.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Clip(s, n) + "…"
}

// CleanText removes control characters other than newline and tab, so that
// text from a record cannot move a terminal's cursor, recolour it, or hide
// lines from the reader. It also removes the Unicode bidirectional
// controls, which can make text display in an order other than the one an
// agent reads it in, and invisible format characters, and turns the
// Unicode line and paragraph separators into newlines, so that what looks
// like one line is one line.
func CleanText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		case r == 0x2028 || r == 0x2029:
			return '\n'
		case isBidiControl(r), isInvisibleFormat(r):
			return -1
		}
		return r
	}, s)
}

// isInvisibleFormat reports the invisible formatting characters that can
// hide text from a person while a model still reads it: the Unicode "Cf"
// category (zero-width spaces, word joiners, the byte-order mark, soft
// hyphens, the tag characters of U+E0000-E007F that spell ASCII
// invisibly) and the supplementary variation selectors. The zero-width
// joiner and non-joiner stay: scripts and emoji need them.
func isInvisibleFormat(r rune) bool {
	if r == 0x200c || r == 0x200d {
		return false
	}
	return unicode.Is(unicode.Cf, r) || (r >= 0xe0100 && r <= 0xe01ef)
}

// isBidiControl reports the characters that change the display order of
// text: embeddings, overrides, isolates and the directional marks.
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

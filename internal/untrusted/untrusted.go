// Package untrusted is the one place that makes text from outside safe to
// show: cut without splitting a character (Clip, Shorten, Fit), cleaned of
// control, bidirectional and invisible format characters (CleanText),
// folded onto one bounded line (OneLine) and quoted for an error (Quote).
// It imports nothing of ours, so every package may use it; package handoff
// offers some of the same functions to importers of the module.
//
// Every bound is in bytes, because the limits it serves (a record's
// fields, a terminal line, a JSON-RPC message) are counted in bytes.
package untrusted

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis marks where Shorten, Fit, OneLine and Quote cut text.
const Ellipsis = "…"

// Clip cuts s to at most n bytes without splitting a UTF-8 character; n
// below zero counts as zero.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Shorten is Clip with an ellipsis when something was cut, for quoting
// untrusted text in messages: at most n bytes and the ellipsis.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Clip(s, n) + Ellipsis
}

// Fit is Shorten within n bytes, the ellipsis included, for a field whose
// limit counts every byte (a record's title). Below the ellipsis's own
// length it clips without one.
func Fit(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= len(Ellipsis) {
		return Clip(s, n)
	}
	return Clip(s, n-len(Ellipsis)) + Ellipsis
}

// OneLine makes untrusted text one line of at most n bytes (the ellipsis
// included), for a message, a log line or a title: CleanText, then every
// run of white space (line breaks and tabs included) becomes one space,
// with none at either end. The result is valid UTF-8 even when s is not,
// and OneLine of it gives it back unchanged.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(CleanText(s)), " ")
	return strings.TrimRight(Fit(s, n), " ")
}

// Quote quotes untrusted text for an error message as Go's %q does (so a
// control, bidirectional or invisible character, or a byte that is not
// UTF-8, shows as an escape), after cutting it to n bytes; an ellipsis
// after the closing quote says that it was cut. The result is at most
// 4n+5 bytes: an escape is at most four bytes for each byte it stands for.
func Quote(s string, n int) string {
	c := Clip(s, n)
	if len(c) < len(s) {
		return quoteVisible(c) + Ellipsis
	}
	return quoteVisible(c)
}

// quoteVisible is strconv.Quote, with the invisible characters it keeps
// as printable (the variation selectors of U+E0100-E01EF are marks, so
// Go prints them) escaped too.
func quoteVisible(s string) string {
	q := strconv.Quote(s)
	if !strings.ContainsFunc(q, isInvisibleFormat) {
		return q
	}
	var b strings.Builder
	for _, r := range q {
		switch {
		case !isInvisibleFormat(r):
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
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
		case isInvisibleFormat(r):
			return -1
		}
		return r
	}, s)
}

// isInvisibleFormat reports the invisible formatting characters that can
// hide text from a person while a model still reads it, or show it in
// another order: the Unicode "Cf" category (zero-width spaces, word
// joiners, the byte-order mark, soft hyphens, the tag characters of
// U+E0000-E007F that spell ASCII invisibly, and every bidirectional
// control: embeddings, overrides, isolates, directional marks;
// TestBidiControlsAreInvisibleFormat) and the supplementary variation
// selectors. The zero-width
// joiner and non-joiner stay: scripts and emoji need them.
func isInvisibleFormat(r rune) bool {
	if r == 0x200c || r == 0x200d {
		return false
	}
	return unicode.Is(unicode.Cf, r) || (r >= 0xe0100 && r <= 0xe01ef)
}

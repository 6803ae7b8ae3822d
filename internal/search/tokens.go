package search

import (
	"unicode"
	"unicode/utf8"
)

// maxTerm bounds a term's length in bytes: a longer run of letters is cut
// into terms of at most this length, so no input makes a term unbounded.
const maxTerm = 64

// maxPositions bounds the terms indexed per document: text past it is
// stored (for snippets) but not indexed, so that millions of tiny tokens
// cost no more than this.
const maxPositions = 1 << 18

// maxUnitPositions bounds the terms indexed per unit, so that one flood
// of a unit leaves the others of its document indexed.
const maxUnitPositions = 1 << 16

// token is one term of a text and where it lies.
type token struct {
	term       string
	start, end int // byte offsets in the text
}

// isWordRune says whether r belongs to a term: letters and digits.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// eachToken calls fn for every term of text, in order, lower-cased: the
// runs of letters and digits, each cut at maxTerm bytes. fn returns false
// to stop.
func eachToken(text string, fn func(t token) bool) {
	var buf []byte
	start := -1
	flush := func(end int) bool {
		if start < 0 {
			return true
		}
		t := token{term: string(buf), start: start, end: end}
		buf, start = buf[:0], -1
		return fn(t)
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) || r == utf8.RuneError && n == 1 {
			if !flush(i) {
				return
			}
			i += n
			continue
		}
		lr := unicode.ToLower(r)
		if start >= 0 && len(buf)+utf8.RuneLen(lr) > maxTerm {
			if !flush(i) {
				return
			}
		}
		if start < 0 {
			start = i
		}
		buf = utf8.AppendRune(buf, lr)
		i += n
	}
	flush(len(text))
}

// normalize is s as a term: lower-cased, only if it is one term.
func terms(s string) []string {
	var out []string
	eachToken(s, func(t token) bool { out = append(out, t.term); return true })
	return out
}

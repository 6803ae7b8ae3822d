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

// isWordRune says whether r belongs to a term: letters and digits.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// asciiWord says whether the ASCII byte c belongs to a term, as
// isWordRune says of it.
func asciiWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// scanTerms calls fn for every term of text, in order, lower-cased: the
// runs of letters and digits, each cut at maxTerm bytes, with the byte
// offsets it lies at in text. term is valid only during the call (it is
// built in buf, which scanTerms reuses). fn returns false to stop.
//
// This is the one tokenizer: what is indexed and what is searched for are
// cut by it alike. ASCII, the bulk of every transcript, takes a path of
// its own that gives what the general one would.
func scanTerms(text string, buf []byte, fn func(term []byte, start, end int) bool) {
	buf = buf[:0]
	start := -1
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if !asciiWord(c) {
				if start >= 0 {
					if !fn(buf, start, i) {
						return
					}
					buf, start = buf[:0], -1
				}
				i++
				continue
			}
			if start >= 0 && len(buf)+1 > maxTerm {
				if !fn(buf, start, i) {
					return
				}
				buf, start = buf[:0], -1
			}
			if start < 0 {
				start = i
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) || r == utf8.RuneError && n == 1 {
			if start >= 0 {
				if !fn(buf, start, i) {
					return
				}
				buf, start = buf[:0], -1
			}
			i += n
			continue
		}
		lr := unicode.ToLower(r)
		if start >= 0 && len(buf)+utf8.RuneLen(lr) > maxTerm {
			if !fn(buf, start, i) {
				return
			}
			buf, start = buf[:0], -1
		}
		if start < 0 {
			start = i
		}
		buf = utf8.AppendRune(buf, lr)
		i += n
	}
	if start >= 0 {
		fn(buf, start, len(text))
	}
}

// terms are the terms of s, as scanTerms cuts them.
func terms(s string) []string {
	var out []string
	scanTerms(s, nil, func(t []byte, _, _ int) bool { out = append(out, string(t)); return true })
	return out
}

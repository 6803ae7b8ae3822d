package search

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Query bounds: a query is typed by a person or an agent, never a file.
const (
	// MaxQuery is the longest query accepted, in bytes.
	MaxQuery = 1024
	// maxAtoms bounds the words and phrases of a query.
	maxAtoms = 32
	// maxExpansion bounds the terms one prefix stands for, per segment.
	maxExpansion = 512
)

// Atom is one word, phrase or prefix of a query: its terms must appear
// in this order, next to each other, in one unit; with Prefix the last
// term is a prefix.
type Atom struct {
	Terms  []string
	Prefix bool
}

// Query is a parsed query: a document matches when every group has an
// atom that matches it and no atom of Not does.
type Query struct {
	Groups [][]Atom
	Not    []Atom
}

// ErrEmptyQuery says a query has no word to search for.
var ErrEmptyQuery = errors.New("the query has no word to search for")

// ParseQuery reads a query: words are ANDed; OR between two words makes
// either do; "a quoted phrase" matches its words in order; a word ending
// in * is a prefix (refact*); -word excludes what it matches. Words are
// the runs of letters and digits, case ignored: "foo-bar" is the phrase
// of foo and bar.
func ParseQuery(s string) (Query, error) {
	var q Query
	if len(s) > MaxQuery {
		return q, fmt.Errorf("the query is longer than %d bytes", MaxQuery)
	}
	if !utf8.ValidString(s) {
		return q, errors.New("the query is not valid UTF-8")
	}
	words := splitQuery(s)
	atoms := 0
	orNext := false
	for i, w := range words {
		if !w.quoted && w.text == "OR" {
			if i == 0 || i == len(words)-1 || len(q.Groups) == 0 {
				return Query{}, errors.New("OR needs a word on each side")
			}
			orNext = true
			continue
		}
		neg := false
		text := w.text
		if !w.quoted && strings.HasPrefix(text, "-") && len(text) > 1 {
			neg, text = true, text[1:]
		}
		if w.neg {
			neg = true
		}
		prefix := false
		if !w.quoted && strings.HasSuffix(text, "*") {
			prefix, text = true, strings.TrimRight(text, "*")
		}
		a := Atom{Terms: terms(text), Prefix: prefix}
		if len(a.Terms) == 0 {
			orNext = false
			continue
		}
		if atoms++; atoms > maxAtoms {
			return Query{}, fmt.Errorf("the query has more than %d words", maxAtoms)
		}
		switch {
		case neg:
			q.Not = append(q.Not, a)
			orNext = false
		case orNext:
			g := &q.Groups[len(q.Groups)-1]
			*g = append(*g, a)
			orNext = false
		default:
			q.Groups = append(q.Groups, []Atom{a})
		}
	}
	if len(q.Groups) == 0 {
		return Query{}, ErrEmptyQuery
	}
	return q, nil
}

type queryWord struct {
	text        string
	quoted, neg bool
}

// splitQuery cuts s at blanks, a quoted part being one word ("a b", or
// -"a b" to exclude it); an unclosed quote runs to the end.
func splitQuery(s string) []queryWord {
	var out []queryWord
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || (c == '-' && i+1 < len(s) && s[i+1] == '"'):
			neg := c == '-'
			if neg {
				i++
			}
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				j = len(s) - i - 1
			}
			out = append(out, queryWord{text: s[i+1 : i+1+j], quoted: true, neg: neg})
			i += j + 2
		default:
			j := strings.IndexAny(s[i:], " \t\r\n\"")
			if j < 0 {
				j = len(s) - i
			}
			out = append(out, queryWord{text: s[i : i+j]})
			i += j
		}
	}
	return out
}

// String is q as the query language writes it.
func (q Query) String() string {
	var parts []string
	atom := func(a Atom) string {
		if a.Prefix {
			// A phrase whose last word is a prefix: foo-ba*.
			return strings.Join(a.Terms, "-") + "*"
		}
		s := strings.Join(a.Terms, " ")
		if len(a.Terms) > 1 {
			s = `"` + s + `"`
		}
		return s
	}
	for _, g := range q.Groups {
		var alts []string
		for _, a := range g {
			alts = append(alts, atom(a))
		}
		parts = append(parts, strings.Join(alts, " OR "))
	}
	for _, a := range q.Not {
		parts = append(parts, "-"+atom(a))
	}
	return strings.Join(parts, " ")
}

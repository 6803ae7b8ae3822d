package search

import (
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{in: "Flaky TEST", want: "flaky test"},
		{in: `"connection refused" retry`, want: `"connection refused" retry`},
		{in: "refact* -revert", want: "refact* -revert"},
		{in: "login OR oauth token", want: "login OR oauth token"},
		{in: `-"git push" deploy`, want: `deploy -"git push"`},
		{in: "foo-bar", want: `"foo bar"`},
		{in: `"unclosed phrase`, want: `"unclosed phrase"`},
		{in: "", err: "no word"},
		{in: "*** -- !!", err: "no word"},
		{in: "-only", err: "no word"},
		{in: "OR x", err: "OR needs"},
		{in: "x OR", err: "OR needs"},
		{in: strings.Repeat("w ", 40), err: "more than 32 words"},
		{in: strings.Repeat("x", MaxQuery+1), err: "longer than"},
		{in: "\xff", err: "UTF-8"},
	} {
		q, err := ParseQuery(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseQuery(%q) = %v, want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || q.String() != c.want {
			t.Errorf("ParseQuery(%q) = %q, %v; want %q", c.in, q.String(), err, c.want)
		}
	}
}

// FuzzParseQuery: any input parses or is refused without a panic; what
// parses has at least one group, within the bounds, every term a term
// the tokenizer would make, and its String parses to the same query.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"a b", `"a b" OR c*`, "-x y", `-"a b" c OR d e*`, "OR", `"`, "x**", "Ünïcode ÄÖ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery(s)
		if err != nil {
			return
		}
		n := len(q.Not)
		for _, g := range q.Groups {
			if len(g) == 0 {
				t.Fatalf("%q: an empty group", s)
			}
			n += len(g)
		}
		if len(q.Groups) == 0 || n > maxAtoms {
			t.Fatalf("%q: %d groups, %d atoms", s, len(q.Groups), n)
		}
		check := func(a Atom) {
			for _, term := range a.Terms {
				if got := terms(term); len(got) != 1 || got[0] != term || len(term) > maxTerm {
					t.Fatalf("%q: term %q is not one term", s, term)
				}
			}
		}
		for _, g := range q.Groups {
			for _, a := range g {
				check(a)
			}
		}
		for _, a := range q.Not {
			check(a)
		}
		again, err := ParseQuery(q.String())
		if err != nil || again.String() != q.String() {
			t.Fatalf("%q: String %q parses to %q, %v", s, q.String(), again.String(), err)
		}
	})
}

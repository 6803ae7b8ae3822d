package fences

import "testing"

func TestOutside(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ours\n```text\nquoted\n```\nours again", "ours\nours again\n"},
		{"a\n````text\n```\nstill quoted\n````\nb", "a\nb\n"},
		{"a\n```text\nnever closed\n", "a\n"},
		{"no fence", "no fence\n"},
	} {
		if got := Outside(c.in); got != c.want {
			t.Errorf("Outside(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

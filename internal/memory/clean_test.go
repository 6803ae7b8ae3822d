package memory

import (
	"strings"
	"testing"
)

// TestCleanText: what a writer stores is cleaned as what is shown is
// (controls, bidirectional controls and invisible characters removed,
// Unicode line separators made newlines), trimmed, and ends in a newline;
// text that is empty once cleaned, invalid UTF-8, or too long is refused.
func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"  \n\nfirst line\t\nsecond  \n\n":       "first line\t\nsecond\n",
		"safe\u202e}txt.exe\u202c name":          "safe}txt.exe name",
		"a\u200bb\ufeffc\U000E0041d":             "abcd",
		"one\u2028# Heading injected\u2029three": "one\n# Heading injected\nthree\n",
		"bell\a and esc\x1b[31m red":             "bell and esc[31m red\n",
		"emoji 👩\u200d💻 keeps its joiner":        "emoji 👩\u200d💻 keeps its joiner\n",
	} {
		if !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		got, err := CleanText(in)
		if err != nil || got != want {
			t.Errorf("CleanText(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", " \n\t\n", "\u200b\u202e", "bad \xff utf-8", strings.Repeat("x", MaxBodySize+1)} {
		if got, err := CleanText(bad); err == nil {
			t.Errorf("CleanText(%q) = %q, accepted", bad, got)
		}
	}
}

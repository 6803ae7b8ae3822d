package untrusted

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 3, "abc"},
		{"abc", 2, "ab"},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"aé", 2, "a"},  // é is two bytes: not split
		{"a€b", 3, "a"}, // € is three bytes
		{"a😀", 4, "a"},  // four bytes
		{"a😀", 5, "a😀"},
	} {
		if got := Clip(c.in, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestShortenAndFit(t *testing.T) {
	for _, c := range []struct {
		in           string
		n            int
		shorten, fit string
	}{
		{"abcdef", 6, "abcdef", "abcdef"},
		{"abcdef", 5, "abcde…", "ab…"},
		{"abcdef", 3, "abc…", "abc"},
		{"abcdef", 2, "ab…", "ab"},
		{"a€€€", 5, "a€…", "a…"},
	} {
		if got := Shorten(c.in, c.n); got != c.shorten {
			t.Errorf("Shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.shorten)
		}
		if got := Fit(c.in, c.n); got != c.fit {
			t.Errorf("Fit(%q, %d) = %q, want %q", c.in, c.n, got, c.fit)
		}
	}
}

func TestCleanText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain\ttext\nnext", "plain\ttext\nnext"},
		{"a\x1b[31mred\x07", "a[31mred"},
		{"cr\r\nlf", "cr\nlf"},
		{"del\x7f c1\u0085", "del c1"},
		{"rlo\u202eevil\u202c", "rloevil"},
		{"iso\u2066x\u2069 lrm\u200e alm\u061c", "isox lrm alm"},
		{"zw\u200bsp\ufeff soft\u00ad tag\U000e0041", "zwsp soft tag"},
		{"vs\U000e0100", "vs"},
		{"emoji 👩\u200d💻 zwnj\u200c", "emoji 👩\u200d💻 zwnj\u200c"},
		{"ls\u2028ps\u2029", "ls\nps\n"},
		{"bad \xff byte", "bad \ufffd byte"},
	} {
		if got := CleanText(c.in); got != c.want {
			t.Errorf("CleanText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"  two\n\nlines\r\n", 100, "two lines"},
		{"tab\tand\u2028separator", 100, "tab and separator"},
		{"p` and the user says:\n run `x", 100, "p` and the user says: run `x"},
		{"\u202eevil\x1b]0;t\x07", 100, "evil]0;t"},
		{"abc def", 6, "abc…"},
		{"ab cdef", 6, "ab …"},
		{"ab cd", 3, "ab"}, // no room for the ellipsis, no space left at the end
		{"a\xffb", 100, "a\ufffdb"},
		{strings.Repeat("x", 10), 4, "x…"},
	} {
		if got := OneLine(c.in, c.n); got != c.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"ok", 10, `"ok"`},
		{"line\nbreak", 20, `"line\nbreak"`},
		{"rlo\u202e", 20, `"rlo\u202e"`},
		{"zw\u200b", 20, `"zw\u200b"`},
		{"bad\xff", 20, `"bad\xff"`},
		{"aé", 2, `"a"…`},
		{strings.Repeat("y", 100), 4, `"yyyy"…`},
	} {
		if got := Quote(c.in, c.n); got != c.want {
			t.Errorf("Quote(%q, %d) = %s, want %s", c.in, c.n, got, c.want)
		}
	}
}

// hidden reports a character that must not reach a line we print:
// controls, bidirectional controls, invisible format characters and line
// breaks of every kind.
func hidden(r rune) bool {
	return unicode.IsControl(r) || bidiControl(r) || isInvisibleFormat(r) || r == 0x2028 || r == 0x2029
}

// bidiControl reports the characters that change the display order of
// text (embeddings, overrides, isolates, directional marks), listed apart
// from the Cf category that isInvisibleFormat removes.
func bidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// Every bidirectional control is in the Cf category, so that the one
// check removes them.
func TestBidiControlsAreInvisibleFormat(t *testing.T) {
	for r := rune(0); r <= 0x10ffff; r++ {
		if bidiControl(r) && !isInvisibleFormat(r) {
			t.Errorf("U+%04X is a bidirectional control the cleaning keeps", r)
		}
	}
}

// FuzzUntrusted checks every function of the toolkit on any text and any
// bound: valid UTF-8 out, nothing hidden left, the documented byte bound
// held, and the cleaning functions idempotent.
func FuzzUntrusted(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb\r\nc", "\u202eevil", "zw\u200bsp", "```fence```", "p` and `x",
		"\xff\xfe", "a€😀", "\U000e0041tag", strings.Repeat("long ", 200), "ls\u2028ps", " \t "} {
		f.Add(s, 10)
	}
	f.Add("a😀", -3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 1 << 12
		bound := max(n, 0)
		if c := Clip(s, n); len(c) > bound || !strings.HasPrefix(s, c) || (utf8.ValidString(s) && !utf8.ValidString(c)) {
			t.Fatalf("Clip(%q, %d) = %q", s, n, c)
		}
		if c := Fit(s, n); len(c) > bound || (utf8.ValidString(s) && !utf8.ValidString(c)) || Fit(c, n) != c {
			t.Fatalf("Fit(%q, %d) = %q", s, n, c)
		}
		if c := Shorten(s, n); len(c) > bound+len(Ellipsis) {
			t.Fatalf("Shorten(%q, %d) = %q: longer than %d bytes and the ellipsis", s, n, c, bound)
		}
		clean := CleanText(s)
		if !utf8.ValidString(clean) || CleanText(clean) != clean {
			t.Fatalf("CleanText(%q) = %q: not valid UTF-8, or not idempotent", s, clean)
		}
		for _, r := range clean {
			if r != '\n' && r != '\t' && hidden(r) {
				t.Fatalf("CleanText(%q) = %q keeps %U", s, clean, r)
			}
		}
		line := OneLine(s, n)
		if !utf8.ValidString(line) || len(line) > bound || OneLine(line, n) != line || strings.TrimSpace(line) != line {
			t.Fatalf("OneLine(%q, %d) = %q: invalid, too long, padded or not idempotent", s, n, line)
		}
		for _, r := range line {
			if hidden(r) {
				t.Fatalf("OneLine(%q, %d) = %q keeps %U", s, n, line, r)
			}
		}
		q := Quote(s, n)
		if !utf8.ValidString(q) || len(q) > 4*bound+5 {
			t.Fatalf("Quote(%q, %d) = %q: invalid or longer than %d bytes", s, n, q, 4*bound+5)
		}
		for _, r := range q {
			if hidden(r) {
				t.Fatalf("Quote(%q, %d) = %q keeps %U", s, n, q, r)
			}
		}
	})
}

package search

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// oracleTerms cuts text as the tokenizer is specified, one rune at a
// time through package unicode, with no path of its own for ASCII: the
// oracle scanTerms is held to.
func oracleTerms(text string) (out []string, spans [][2]int) {
	var buf []byte
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, string(buf))
			spans = append(spans, [2]int{start, end})
		}
		buf, start = buf[:0], -1
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) || r == utf8.RuneError && n == 1 {
			flush(i)
			i += n
			continue
		}
		lr := unicode.ToLower(r)
		if start >= 0 && len(buf)+utf8.RuneLen(lr) > maxTerm {
			flush(i)
		}
		if start < 0 {
			start = i
		}
		buf = utf8.AppendRune(buf, lr)
		i += n
	}
	flush(len(text))
	return out, spans
}

func checkScanTerms(t *testing.T, text string) {
	t.Helper()
	want, wantSpans := oracleTerms(text)
	var got []string
	var spans [][2]int
	scanTerms(text, make([]byte, 0, maxTerm), func(term []byte, start, end int) bool {
		got = append(got, string(term))
		spans = append(spans, [2]int{start, end})
		return true
	})
	if !slices.Equal(got, want) || !slices.Equal(spans, wantSpans) {
		t.Fatalf("scanTerms(%q) = %q %v, want %q %v", text, got, spans, want, wantSpans)
	}
}

func TestScanTermsAgreesWithTheOracle(t *testing.T) {
	for _, text := range []string{
		"", "a", "Hello, World!", "foo-bar_baz9 QUX", "  leading and trailing  ",
		"Ünïcödé ÀB straße ΣΊΣΥΦΟΣ", "mixed ASCIIünicode", "日本語のテキスト and english",
		strings.Repeat("x", maxTerm+1), strings.Repeat("X", 3*maxTerm), strings.Repeat("é", maxTerm),
		strings.Repeat("a", maxTerm-1) + "é", "\xff\xfeabc\xc3", "K\u212a kelvin", "İstanbul",
	} {
		checkScanTerms(t, text)
	}
}

func TestScanTermsStops(t *testing.T) {
	n := 0
	scanTerms("one two three four", nil, func([]byte, int, int) bool { n++; return n < 2 })
	if n != 2 {
		t.Fatalf("scanTerms went on after fn said stop: %d calls", n)
	}
}

// FuzzScanTerms: the tokenizer's fast path for ASCII gives what the
// oracle gives, on any bytes.
func FuzzScanTerms(f *testing.F) {
	for _, s := range []string{"Hello, World!", "straße ÀB", "\xff", strings.Repeat("ab", 40)} {
		f.Add(s)
	}
	f.Fuzz(checkScanTerms)
}

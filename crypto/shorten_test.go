package crypto

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A quoted token is cut on a character boundary: a byte cut at 64 would
// split the three-byte "€" that starts at byte 63.
func TestShortenKeepsUTF8(t *testing.T) {
	s := strings.Repeat("a", 63) + strings.Repeat("€", 10)
	got := shorten(s)
	if !utf8.ValidString(got) {
		t.Fatalf("shorten split a character: %q", got)
	}
	if want := strings.Repeat("a", 63) + "…"; got != want {
		t.Fatalf("shorten = %q, want %q", got, want)
	}
	if got := shorten("short"); got != "short" {
		t.Fatalf("shorten(short) = %q", got)
	}
}

package integrate

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// An unknown agent's name is quoted cut on a character boundary and
// without control characters.
func TestLookupAgentQuotesNameSafely(t *testing.T) {
	name := strings.Repeat("x", 31) + "é\x1b[31m" + strings.Repeat("y", 40)
	_, err := LookupAgent(name)
	if err == nil {
		t.Fatal("LookupAgent accepted an unknown agent")
	}
	msg := err.Error()
	if !utf8.ValidString(msg) || strings.Contains(msg, "\x1b") {
		t.Fatalf("error quotes the name unsafely: %q", msg)
	}
}

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

// An agent that runs no hooks but takes our MCP server (Crush) has no
// hooks to install: the error says what integrate does for it.
func TestLookupAgentWithoutHooks(t *testing.T) {
	_, err := LookupAgent("crush")
	if err == nil || !strings.Contains(err.Error(), "runs no session hooks") || !strings.Contains(err.Error(), "integrate crush --mcp") {
		t.Fatalf("crush: %v", err)
	}
}

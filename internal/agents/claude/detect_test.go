package claude

import (
	"testing"
)

// TestDetectGeminiShapedLinesAreNoClaudeCode: a line linked and typed as
// Claude Code's but carrying Gemini's Content (message.parts) or a
// systemPayload, as another agent of the table writes them, is not taken
// for Claude Code's.
func TestDetectGeminiShapedLinesAreNoClaudeCode(t *testing.T) {
	for _, line := range []string{
		`{"uuid":"u1","parentUuid":null,"sessionId":"s1","type":"user","message":{"role":"user","parts":[{"text":"hi"}]}}`,
		`{"uuid":"u2","parentUuid":"u1","sessionId":"s1","type":"system","subtype":"ui_telemetry","systemPayload":{}}`,
	} {
		if d := detect([]byte(line + "\n")); d.Agent == ClaudeCode {
			t.Errorf("%s: taken for Claude Code's (%s)", line, d.What)
		}
	}
	claude := `{"uuid":"u1","parentUuid":null,"sessionId":"s1","type":"user","message":{"role":"user","content":"hi"}}`
	if d := detect([]byte(claude + "\n")); d.Agent != ClaudeCode {
		t.Errorf("a Claude Code line: %+v", d)
	}
}

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

// TestDetectFirstKnownLineDecides: the first of a file's lines that is a
// line of a known transcript format says whose the file is, as when one
// function recognised every agent: a Codex rollout's line or a Gemini CLI
// recording's before a Claude Code line makes the file theirs, and
// Claude Code's print mode before one makes it that output.
func TestDetectFirstKnownLineDecides(t *testing.T) {
	const claudeLine = `{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"hi"}}`
	for name, c := range map[string]struct {
		first   string
		session bool
		foreign bool
	}{
		"codex rollout":    {first: `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`},
		"codex exec":       {first: `{"type":"thread.started","thread_id":"t"}`},
		"gemini head":      {first: `{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z"}`},
		"gemini set":       {first: `{"$set":{"summary":"x"}}`},
		"codex bare meta":  {first: `{"id":"x","instructions":"y"}`},
		"print mode":       {first: `{"type":"system","subtype":"init","session_id":"s"}`, foreign: true},
		"unknown line":     {first: `{"kind":"other"}`, session: true},
		"gemini set: null": {first: `{"$set":null}`, session: true},
	} {
		d, ok := Transcripts{}.Detect([]byte(c.first + "\n" + claudeLine + "\n"))
		switch {
		case c.session && (!ok || d.Agent != ClaudeCode):
			t.Errorf("%s first: %v %+v, want a Claude Code session", name, ok, d)
		case c.foreign && (!ok || !d.Foreign || d.Agent != ""):
			t.Errorf("%s first: %v %+v, want Claude Code's print-mode output", name, ok, d)
		case !c.session && !c.foreign && ok:
			t.Errorf("%s first: taken (%+v)", name, d)
		}
	}
}

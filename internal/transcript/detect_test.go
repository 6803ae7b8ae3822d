package transcript

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// Every real and sample transcript is recognised as its agent's, and the
// Gemini prompt log as what it is (issue 17, item 3).
func TestDetectRealFiles(t *testing.T) {
	cases := map[string]Agent{
		"real/claude-code/ccv/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl":                           ClaudeCode,
		"real/claude-code/codemie/session-624a4a58.jsonl":                                           ClaudeCode,
		"real/claude-code/codemie/incremental-subagents-turn-2/subagents/agent-a485154.jsonl":       ClaudeCode,
		"real/codex/codemie/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl": Codex,
		"real/codex/codemie/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl": Codex,
		"real/gemini/codemie/session-2025-12-01T21-45-5b959dae.json":                                Gemini,
		"real/gemini/codemie/session-2026-01-16T11-01-file-ops-37b7abef.json":                       Gemini,
		"real/gemini/vct/gemini.jsonl":                                                              Gemini,
		"claude-code/sample_session.jsonl":                                                          ClaudeCode,
		"codex/" + codexSample:                                                                      Codex,
		"gemini/" + geminiSample:                                                                    Gemini,
	}
	for rel, want := range cases {
		d, err := DetectFile(filepath.Join(samplesDir, rel))
		if err != nil || d.Agent != want {
			t.Errorf("%s: %+v, %v; want %s", rel, d, err, want)
		}
	}
	d, err := DetectFile(filepath.Join(samplesDir, "real/gemini/codemie/logs.json"))
	if err != nil || d.Agent != "" || !strings.Contains(d.What, "prompt log") {
		t.Errorf("logs.json: %+v, %v", d, err)
	}
}

func TestDetectOthers(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "an empty file",
		"hello\n":                          "not JSON",
		`[1,2]`:                            "a JSON array",
		`{"type":"thread.started"}` + "\n": "codex exec --json",
		`{"type":"system","subtype":"init","session_id":"x"}` + "\n": "stream-json",
		`{"a":1}` + "\n":    "no transcript format known",
		"{\n \"x\": 1\n}\n": "no transcript of Claude Code, Codex or Gemini CLI",
	} {
		if d := Detect([]byte(in)); d.Agent != "" || !strings.Contains(d.What, want) {
			t.Errorf("Detect(%q) = %+v, want no agent and %q", in, d, want)
		}
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte(`{"type":"user","sessionId":"s"}`))
	f.Add([]byte(`{"timestamp":"t","type":"session_meta","payload":{}}`))
	f.Add([]byte(`[{"sessionId":"s","messageId":0}]`))
	// The product each agent's description names.
	product := map[Agent]string{ClaudeCode: "Claude Code", Codex: "Codex", Gemini: "Gemini CLI"}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := Detect(b)
		if d.What == "" {
			t.Fatalf("Detect(%q) says nothing", b)
		}
		// An agent's transcript is never foreign, and is described as
		// that agent's.
		if d.Agent != "" && (d.Foreign || !strings.Contains(d.What, product[d.Agent])) {
			t.Fatalf("Detect(%q) = %+v: an agent's transcript, described as %q", b, d, d.What)
		}
		// Only JSON can be a transcript: the first byte after leading
		// white space and byte order marks is { or [.
		if first := bytes.TrimLeft(b, " \t\r\n\ufeff"); d.Agent != "" && (len(first) == 0 || first[0] != '{') {
			t.Fatalf("Detect(%q) = %+v: no JSON object, yet an agent's", b, d)
		}
		// Leading white space and a byte order mark change nothing.
		if again := Detect(append([]byte("\ufeff \n\t"), b...)); again != d {
			t.Fatalf("Detect(%q) = %+v, but with white space before it %+v", b, d, again)
		}
	})
}

// TestDetectGeminiShapedLinesAreNoClaudeCode: a line linked and typed as
// Claude Code's but carrying Gemini's Content (message.parts) or a
// systemPayload, as another agent of the table writes them, is not taken
// for Claude Code's.
func TestDetectGeminiShapedLinesAreNoClaudeCode(t *testing.T) {
	for _, line := range []string{
		`{"uuid":"u1","parentUuid":null,"sessionId":"s1","type":"user","message":{"role":"user","parts":[{"text":"hi"}]}}`,
		`{"uuid":"u2","parentUuid":"u1","sessionId":"s1","type":"system","subtype":"ui_telemetry","systemPayload":{}}`,
	} {
		if d := Detect([]byte(line + "\n")); d.Agent == ClaudeCode {
			t.Errorf("%s: taken for Claude Code's (%s)", line, d.What)
		}
	}
	claude := `{"uuid":"u1","parentUuid":null,"sessionId":"s1","type":"user","message":{"role":"user","content":"hi"}}`
	if d := Detect([]byte(claude + "\n")); d.Agent != ClaudeCode {
		t.Errorf("a Claude Code line: %+v", d)
	}
}

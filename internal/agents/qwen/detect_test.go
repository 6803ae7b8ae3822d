package qwen_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/agents/qwen"
	"github.com/session-handoff/session-handoff/internal/capture"
)

// Lines the other agents write that look most like Qwen Code's: Claude
// Code's records carry uuid, parentUuid and sessionId too, with the
// message's content; Gemini CLI's chats carry sessionId and messages
// whose parts are Gemini's, as Qwen Code's are.
const (
	claudeLine       = `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"add a greeting file"},"uuid":"d26ab387-b72a-4a50-9b91-0a0df68a43ce","timestamp":"2026-11-27T11:55:35.475Z","cwd":"/tmp/p","sessionId":"d1a90aa1-626e-41aa-a247-005d367c10ca","version":"2.1.332","gitBranch":"main"}` + "\n"
	claudeSystemLine = `{"parentUuid":"d26ab387-b72a-4a50-9b91-0a0df68a43ce","type":"system","subtype":"compact_boundary","content":"Conversation compacted","uuid":"e26ab387-b72a-4a50-9b91-0a0df68a43ce","timestamp":"2026-11-27T11:55:36.475Z","sessionId":"d1a90aa1-626e-41aa-a247-005d367c10ca","version":"2.1.332"}` + "\n"
	geminiLines      = `{"sessionId":"505c8add-058d-486f-8e37-9f359d30a8a7","projectHash":"3d2598b6","startTime":"2026-11-27T09:10:46.843Z","lastUpdated":"2026-11-27T09:10:46.843Z","kind":"main"}` + "\n" +
		`{"id":"d04923d3","timestamp":"2026-11-27T09:10:46.843Z","type":"user","content":[{"text":"add a greeting file"}]}` + "\n"
	qwenUserLine   = `{"uuid":"0b4027a3-5a83-4e14-b8c7-ef61f33e0757","parentUuid":null,"sessionId":"e1b1acd6-41ed-4761-a885-2175e28f61a6","timestamp":"2026-11-27T14:22:25.947Z","type":"user","provenance":"real_user","cwd":"/tmp/p","version":"0.24.4","gitBranch":"main","message":{"role":"user","parts":[{"text":"add a greeting file"}]}}` + "\n"
	qwenSystemLine = `{"uuid":"09378847-6c6f-4e7c-adef-6580817a8439","parentUuid":"0b4027a3-5a83-4e14-b8c7-ef61f33e0757","sessionId":"e1b1acd6-41ed-4761-a885-2175e28f61a6","timestamp":"2026-11-27T14:22:25.958Z","type":"system","provenance":"system","cwd":"/tmp/p","version":"0.24.4","gitBranch":"main","subtype":"attribution_snapshot","systemPayload":{"snapshot":{}}}` + "\n"
)

// TestDetectTellsQwenCodeApart: the table's detection (each agent's, in
// the table's order, Claude Code's first) takes Qwen Code's transcripts,
// real and reduced to one line of either kind, for Qwen Code's, and
// Claude Code's and Gemini CLI's lines for theirs; Qwen Code's Detect
// takes neither.
func TestDetectTellsQwenCodeApart(t *testing.T) {
	real, err := filepath.Glob(filepath.Join("testdata", "real-e2e", "*", "*.jsonl"))
	suite, err2 := filepath.Glob(filepath.Join("testdata", "real-e2e", "suite", "*", "*.jsonl"))
	if real = append(real, suite...); err != nil || err2 != nil || len(real) < 6 {
		t.Fatalf("real transcripts %q: %v %v", real, err, err2)
	}
	cases := map[string]string{"user line": qwenUserLine, "system line first": qwenSystemLine + qwenUserLine}
	for _, f := range real {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases[f] = string(data)
	}
	for name, text := range cases {
		if d := capture.Detect([]byte(text)); string(d.Agent) != qwen.Name {
			t.Errorf("%s: detected as %q (%s), want %s", name, d.Agent, d.What, qwen.Name)
		}
		for _, a := range agents.All() {
			if a.Name == qwen.Name {
				continue
			}
			if d, ok := a.Transcripts.Detect([]byte(text)); ok {
				t.Errorf("%s: %s's Detect takes it (%+v)", name, a.Name, d)
			}
		}
	}
	claude, _ := agents.Find(agents.ClaudeCode)
	gemini, _ := agents.Find(agents.Gemini)
	for name, c := range map[string]struct {
		text string
		want string
	}{
		"Claude Code user line":   {claudeLine, claude.Name},
		"Claude Code system line": {claudeSystemLine, claude.Name},
		"Gemini CLI chat":         {geminiLines, gemini.Name},
	} {
		if d, ok := (qwen.Transcripts{}).Detect([]byte(c.text)); ok {
			t.Errorf("%s: Qwen Code's Detect takes it (%+v)", name, d)
		}
		if d := capture.Detect([]byte(c.text)); string(d.Agent) != c.want {
			t.Errorf("%s: detected as %q (%s), want %s", name, d.Agent, d.What, c.want)
		}
	}
}

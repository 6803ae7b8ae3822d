package claude

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Prompts typed while Claude Code works are written only as
// queue-operation lines (issue 17, item 2): a delivered one is a request,
// in order; one taken back to be edited (popAll) is not.
func TestClaudeQueuedPrompts(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","cwd":"/w","timestamp":"2026-01-07T21:08:00Z","message":{"role":"user","content":"add a session field"}}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-07T21:08:38Z","sessionId":"s","content":"no, add conversationId field"}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","cwd":"/w","timestamp":"2026-01-07T21:09:00Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"working"}]}}`,
		`{"type":"queue-operation","operation":"remove","timestamp":"2026-01-07T21:09:20Z","sessionId":"s"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-07T21:09:30Z","sessionId":"s","content":"draft I took back"}`,
		`{"type":"queue-operation","operation":"popAll","timestamp":"2026-01-07T21:09:33Z","sessionId":"s","content":"draft I took back"}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s","cwd":"/w","timestamp":"2026-01-07T21:10:00Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"done"}]}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a2","sessionId":"s","cwd":"/w","timestamp":"2026-01-07T21:11:00Z","message":{"role":"user","content":"now the tests"}}`,
	}
	text := strings.Join(lines, "\n") + "\n"
	want := []string{"add a session field", "no, add conversationId field", "now the tests"}
	for _, r := range []io.Reader{strings.NewReader(text), struct{ io.Reader }{strings.NewReader(text)}} {
		d, err := readAll(r, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.Session.Requests, want) {
			t.Errorf("requests %q, want %q", d.Session.Requests, want)
		}
	}
}

// The real transcript whose correction lives only in queue-operation lines.
func TestRealQueuedCorrection(t *testing.T) {
	p := filepath.Join(realDir, "claude-code", "codemie", "session-624a4a58.jsonl")
	d, err := readFile(p, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(d.Session.Requests, "no, add conversationId field, but set value from sessionId") {
		t.Errorf("the queued correction is not a request: %q", d.Session.Requests)
	}
}

package codex_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents/codex"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// TestDetectRollouts: every Codex rollout kept here (samples, real ones,
// the end-to-end suite's) is taken by Codex's Detect and by the table's
// detection for Codex's; the other agents' sample transcripts are not.
func TestDetectRollouts(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../../testdata/transcripts/codex/*.jsonl", "../../../testdata/transcripts/real/codex/*/*.jsonl", "testdata/real-e2e/*/*.jsonl"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 9 {
		t.Fatalf("only %d rollouts: %q", len(files), files)
	}
	for _, f := range files {
		head := readHead(t, f)
		if d, ok := (codex.Transcripts{}).Detect(head); !ok || string(d.Agent) != codex.Name || d.Foreign || !strings.Contains(d.What, "Codex") {
			t.Errorf("%s: Detect %+v %v", f, d, ok)
		}
		if d := capture.Detect(head); string(d.Agent) != codex.Name {
			t.Errorf("%s: the table detects %+v", f, d)
		}
	}
	others, _ := filepath.Glob("../../../testdata/transcripts/*/*.json*")
	for _, f := range others {
		if strings.Contains(f, "/codex/") {
			continue
		}
		if d, ok := (codex.Transcripts{}).Detect(readHead(t, f)); ok {
			t.Errorf("%s: taken for Codex's (%+v)", f, d)
		}
	}
}

// TestDetectLines: what Codex's lines tell; the event stream of `codex
// exec --json` is Codex's output, yet no rollout. Which agent's line
// comes first in a file is weighed by the table (internal/agents,
// TestDetectFirstClaimedLineDecides).
func TestDetectLines(t *testing.T) {
	const (
		meta = `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s"}}`
		bare = `{"id":"s","timestamp":"2026-01-01T00:00:00Z","instructions":"be brief"}`
		exec = `{"type":"thread.started","thread_id":"t"}`
		qwen = `{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","parts":[{"text":"hi"}]}}`
	)
	for _, tc := range []struct {
		name, in      string
		ok, foreign   bool
		agent, inWhat string
	}{
		{"rollout", meta, true, false, codex.Name, "Codex session rollout"},
		{"bare meta of the oldest rollouts", bare, true, false, codex.Name, "Codex session rollout"},
		{"after unknown lines", `{"a":1}` + "\n" + meta, true, false, codex.Name, "rollout"},
		{"exec stream", exec + "\n" + `{"type":"turn.started"}`, true, true, "", "codex exec --json"},
		{"a type without payload", `{"type":"session_meta"}`, false, false, "", ""},
		{"a line of Gemini's Content is no Claude Code line", qwen + "\n" + meta, true, false, codex.Name, "rollout"},
		{"one object over many lines", "{\n\"type\": \"session_meta\", \"payload\": {}\n}", false, false, "", ""},
		{"not JSON", "session_meta", false, false, "", ""},
		{"empty", "", false, false, "", ""},
	} {
		d, ok := (codex.Transcripts{}).Detect([]byte(tc.in + "\n"))
		if ok != tc.ok || d.Foreign != tc.foreign || string(d.Agent) != tc.agent || !strings.Contains(d.What, tc.inWhat) {
			t.Errorf("%s: %+v %v", tc.name, d, ok)
		}
	}
}

func readHead(t *testing.T, f string) []byte {
	t.Helper()
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return data[:min(len(data), transcript.DetectBytes)]
}

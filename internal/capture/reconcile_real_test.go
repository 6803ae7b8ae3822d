package capture

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/testsys"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// The real agents' own transcripts of a session that renamed old.txt
// with git mv and removed gone.txt with rm (internal/e2e
// TestFailedEditAndShellMoves, kept under each agent's
// testdata/real-e2e/fidelity): read by the agent's reader and reconciled
// with a worktree where git shows both, the rename and the delete are the
// session's own, with their kinds, and keep.txt, whose edit failed, is no
// change.
func TestReconcileShellRealTranscripts(t *testing.T) {
	testsys.LookPath(t, "git")
	agentsDir := filepath.Join("..", "agents")
	opencodeDB := func(t *testing.T) string {
		dir := t.TempDir()
		expect.Gunzip(t, filepath.Join(agentsDir, "opencode", "testdata", "real-e2e", "fidelity"), dir, "opencode.db", "opencode.db-wal")
		return filepath.Join(dir, "opencode.db")
	}
	for _, c := range []struct {
		agent, file string
		path        func(t *testing.T) string
		// extra are the files the session's agents touched besides the
		// rename and the delete.
		extra map[string]expect.File
	}{
		{agent: "claude-code", file: "claude/testdata/real-e2e/fidelity/13cbe6b8-6a5c-4b35-848c-76c1b13bdf84.jsonl"},
		{agent: "codex", file: "codex/testdata/real-e2e/fidelity/rollout-2026-11-29T06-22-56-01a225f8-8f97-7101-8b68-d9a2d9fb54f1.jsonl"},
		{agent: "gemini", file: "gemini/testdata/real-e2e/fidelity/session-2026-11-29T06-25-62cbd583.jsonl"},
		{agent: "copilot", file: "copilot/testdata/real-e2e/fidelity/events.jsonl"},
		{agent: "opencode", path: opencodeDB},
		{agent: "qwen-code", file: "qwen/testdata/real-e2e/fidelity/chats/09a73772-5382-4964-857e-e6f096a3ba29.jsonl",
			extra: map[string]expect.File{"sub.txt": {Action: "created", Edits: 1, By: "subagent general-purpose-call_0004_0"}}},
	} {
		t.Run(c.agent, func(t *testing.T) {
			path := filepath.Join(agentsDir, c.file)
			if c.path != nil {
				path = c.path(t)
			}
			d, err := ReadSession(SessionInfo{Agent: transcript.Agent(c.agent), Path: path}, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			repo := t.TempDir()
			when := time.Date(2026, 11, 29, 6, 22, 0, 0, time.UTC)
			for _, f := range []string{"keep.txt", "old.txt", "gone.txt"} {
				writeFile(t, filepath.Join(repo, f), f+"\n", time.Time{})
			}
			gitAt(t, repo, when, "init", "-q", "-b", "main")
			gitAt(t, repo, when, "add", ".")
			gitAt(t, repo, when, "commit", "-q", "-m", "files to tidy")
			gitAt(t, repo, when, "mv", "old.txt", "new.txt")
			if err := os.Remove(filepath.Join(repo, "gone.txt")); err != nil {
				t.Fatal(err)
			}
			st, err := State(context.Background(), repo)
			if err != nil {
				t.Fatal(err)
			}
			got := ReconcileShell(d.Files, d.Session.Commands, st, repo)
			want := map[string]expect.File{"new.txt": {Action: "renamed"}, "gone.txt": {Action: "deleted"}}
			for p, f := range c.extra {
				want[p] = f
			}
			expect.CheckFiles(t, got, want)
			for _, f := range got {
				if f.Path == "new.txt" && f.From != "old.txt" {
					t.Errorf("new.txt renamed from %q, want old.txt", f.From)
				}
			}
			if len(d.Session.FailedEdits) != 1 || filepath.Base(d.Session.FailedEdits[0].Path) != "keep.txt" {
				t.Errorf("failed edits %+v, want keep.txt", d.Session.FailedEdits)
			}
		})
	}
}

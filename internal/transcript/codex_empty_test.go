package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCodexMetaOnlyRolloutIsNoSession: a Codex TUI session used only for
// /hooks leaves a rollout of one session_meta line. Discovery (sessions,
// and plain capture's "latest") must pass over it to the session with
// work in it; and a rollout of 0.169 or later (0.171.0 here), which holds
// no user_message event, is titled by its first request all the same.
func TestCodexMetaOnlyRolloutIsNoSession(t *testing.T) {
	const real = "../agents/codex/testdata/real-e2e/work/rollout-2026-11-27T11-55-39-01a21cdc-7446-7bd3-86ed-b6fd37217b2b.jsonl"
	data, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dir := filepath.Join(home, ".codex", "sessions", "2026", "11", "27")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, filepath.Base(real))
	if err := os.WriteFile(work, data, 0o644); err != nil {
		t.Fatal(err)
	}
	meta, _, _ := strings.Cut(string(data), "\n")
	meta = strings.ReplaceAll(meta, "01a21cdc-7446-7bd3-86ed-b6fd37217b2b", "01a21c46-0000-7000-8000-000000000001")
	empty := filepath.Join(dir, "rollout-2026-11-27T09-20-00-01a21c46-0000-7000-8000-000000000001.jsonl")
	if err := os.WriteFile(empty, []byte(meta+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(empty, later, later); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	found, err := findSessions(Codex, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Path != work {
		t.Fatalf("sessions %+v, want only %s", found, work)
	}
	if found[0].Title != "add a greeting file and check the tree" {
		t.Errorf("title %q, want the first request", found[0].Title)
	}
}

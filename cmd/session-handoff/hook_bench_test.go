package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/devsync"
	"github.com/session-handoff/session-handoff/store"
)

// BenchmarkHookSessionStart runs the session-start hook, in process,
// against a store of 10,000 handoffs (one in twenty for this project) and
// a real git worktree: what an agent waits for when a session starts.
//
//	go test -run '^$' -bench HookSessionStart -count 5 ./cmd/session-handoff/
func BenchmarkHookSessionStart(b *testing.B) { benchHookSessionStart(b, false) }

// BenchmarkHookSessionStartSyncOn is the same hook with sync on: it also
// reads the sync setting and makes the command of the background pull
// (the process itself is not started here: bench/startup.sh measures
// that in fresh processes).
func BenchmarkHookSessionStartSyncOn(b *testing.B) { benchHookSessionStart(b, true) }

func benchHookSessionStart(b *testing.B, syncOn bool) {
	dir := b.TempDir()
	project := filepath.Join(dir, "app")
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@e",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@e"}
	for _, args := range [][]string{{"init", "-q", "-b", "main", project}, {"-C", project, "commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git: %v\n%s", err, out)
		}
	}
	head, err := exec.Command("git", "-C", project, "rev-parse", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	storeDir := filepath.Join(dir, "store")
	if err := os.MkdirAll(filepath.Join(storeDir, "records"), 0o700); err != nil {
		b.Fatal(err)
	}
	start := time.Now().Add(-10000 * time.Minute)
	for i := range 10000 {
		rec, err := handoff.New(start.Add(time.Duration(i)*time.Minute), "codex", "Handoff number "+strings.Repeat("x", i%50))
		if err != nil {
			b.Fatal(err)
		}
		rec.Summary = "Where things stood in session " + strings.Repeat("y", i%200)
		rec.NextSteps = []string{"Do the next thing", "Then the one after"}
		rec.Project.Path = filepath.Join(dir, "other", "p"+string(rune('a'+i%20)))
		if i%20 == 0 {
			rec.Project.Path = project
			rec.Git = &handoff.GitState{Root: project, Branch: "main", Head: strings.TrimSpace(string(head))}
		}
		if err := rec.Normalize(); err != nil {
			b.Fatal(err)
		}
		data, _ := json.Marshal(rec)
		if err := os.WriteFile(filepath.Join(storeDir, "records", string(rec.ID)+".json"), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	s, err := store.Open(storeDir)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Check(true); err != nil { // builds the index
		b.Fatal(err)
	}
	input := `{"session_id": "s", "cwd": "` + project + `", "hook_event_name": "SessionStart", "source": "startup"}`
	getenv := func(k string) string {
		if k == "SESSION_HANDOFF_HOME" {
			return filepath.Join(dir, "home")
		}
		return os.Getenv(k)
	}
	keys := filepath.Join(dir, "home", "config")
	started := 0
	if syncOn {
		if err := devsync.Set(keys, devsync.Setting{Scope: devsync.Global, On: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		var out, errb bytes.Buffer
		a := newTestApp(context.Background(), strings.NewReader(input), &out, &errb, nil)
		a.getenv = getenv
		a.start = func(*exec.Cmd) error { started++; return nil }
		if code := a.execute([]string{"hook", "claude-code", "session-start", "--store", storeDir}); code != 0 || !strings.Contains(out.String(), "Do the next thing") {
			b.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
		}
	}
	b.StopTimer()
	if syncOn != (started > 0) {
		b.Fatalf("sync on %v, the pull started %d times", syncOn, started)
	}
}

package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/devsync"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/store"
)

// The hooks start the sync only where it is on: a push of the record just
// captured after a capture, a pull after the briefing at session start;
// nothing where it is off or paused. They never wait for it.
func TestHooksStartSyncWhereOn(t *testing.T) {
	transcript := filepath.Join("..", "..", "testdata", "transcripts", "claude-code", "sample_session.jsonl")
	project, other := gitProject(t), gitProject(t)
	config, s := t.TempDir(), newStore(t)
	if err := devsync.Set(config, devsync.Setting{Scope: project, On: true}); err != nil {
		t.Fatal(err)
	}
	type call struct {
		root string
		id   handoff.ID
	}
	var calls []call
	hook := func(event, dir string) {
		t.Helper()
		in, _ := json.Marshal(Input{CWD: dir, TranscriptPath: transcript})
		var stderr bytes.Buffer
		err := Run(context.Background(), Options{Agent: hookAgent(t, "claude-code"), Event: event,
			Input: bytes.NewReader(in), Stdout: io.Discard, Stderr: &stderr, Store: s, ConfigDir: config,
			Env: func(string) string { return "" },
			StartSync: func(root string, id handoff.ID) error {
				calls = append(calls, call{root, id})
				return nil
			}})
		if err != nil {
			t.Fatalf("%s: %v (%s)", event, err, stderr.String())
		}
	}
	hook("session-end", project)
	es, err := s.List(store.Filter{})
	if err != nil || len(es) != 1 {
		t.Fatalf("after session-end: %v, %v", es, err)
	}
	hook("session-start", project)
	root, _ := filepath.EvalSymlinks(project)
	want := []call{{root, es[0].ID}, {root, ""}}
	if len(calls) != 2 || calls[0] != want[0] || calls[1] != want[1] {
		t.Fatalf("calls %v, want %v", calls, want)
	}
	calls = nil
	hook("session-end", other)
	hook("session-start", other)
	if err := os.WriteFile(paths.ConfigDir(config).Pause(), []byte("reason: test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hook("session-start", project)
	if len(calls) != 0 {
		t.Fatalf("sync started where it is off, or paused: %v", calls)
	}
}

// gitProject is a new git repository with one empty commit.
func gitProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

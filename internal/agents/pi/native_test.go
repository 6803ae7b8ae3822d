package pi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/carry"
)

// TestNativePath: a session is filed where pi 0.73.1 looks for the
// sessions of the worktree (getDefaultSessionDir), named as pi names its
// files, its header first.
func TestNativePath(t *testing.T) {
	c := &carry.Conversation{Turns: []carry.Turn{{Kind: carry.User, Text: "hi"}}}
	now := time.Date(2026, 11, 29, 6, 1, 2, 345e6, time.UTC)
	p, err := Native{}.Plan(c, carry.Options{Home: "/h/.pi/agent", CWD: "/work/my proj:x", Now: now, ID: "0192a1b2-c3d4-7e5f-8a9b-0123456789ab"})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("/h/.pi/agent", "sessions", "--work-my proj-x--", "2026-11-29T06-01-02-345Z_0192a1b2-c3d4-7e5f-8a9b-0123456789ab.jsonl")
	if p.Path != want {
		t.Errorf("path %s\nwant %s", p.Path, want)
	}
	if !strings.HasPrefix(string(p.Data), `{"cwd":"/work/my proj:x","id":"0192a1b2-c3d4-7e5f-8a9b-0123456789ab","timestamp":"2026-11-29T06:01:02.345Z","type":"session","version":3}`+"\n") {
		t.Errorf("header %.200s", p.Data)
	}
	if strings.Join(p.Resume, " ") != "pi --session 0192a1b2-c3d4-7e5f-8a9b-0123456789ab" {
		t.Errorf("resume %v", p.Resume)
	}
}

// TestNativeRefusesAMovedSessionDir: pi reads the sessions of a moved
// directory without a directory per project; the writer refuses rather
// than write where pi does not look.
func TestNativeRefusesAMovedSessionDir(t *testing.T) {
	c := &carry.Conversation{Turns: []carry.Turn{{Kind: carry.User, Text: "hi"}}}
	home, cwd := t.TempDir(), t.TempDir()
	env := func(k string) string {
		if k == sessionDirVar {
			return "/elsewhere"
		}
		return ""
	}
	if _, err := (Native{}).Plan(c, carry.Options{Home: home, CWD: cwd, Getenv: env}); err == nil || !strings.Contains(err.Error(), "$"+sessionDirVar) {
		t.Errorf("err %v", err)
	}
	if err := os.MkdirAll(filepath.Join(cwd, ".pi"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, ".pi", "settings.json"), []byte(`{"sessionDir":"~/s"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Native{}).Plan(c, carry.Options{Home: home, CWD: cwd}); err == nil || !strings.Contains(err.Error(), "sessionDir") {
		t.Errorf("err %v", err)
	}
}

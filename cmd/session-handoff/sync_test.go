package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/devsync"
)

// syncHome runs commands in-process with SESSION_HANDOFF_HOME set to home;
// start, when set, stands for starting a background process.
type syncHome struct {
	t     *testing.T
	home  string
	start func(*exec.Cmd) error
}

func (h syncHome) run(stdin string, args ...string) string {
	h.t.Helper()
	var out, errb bytes.Buffer
	a := newTestApp(context.Background(), strings.NewReader(stdin), &out, &errb,
		map[string]string{"SESSION_HANDOFF_HOME": h.home, "HOME": h.home})
	a.start = h.start
	if code := a.execute(args); code != 0 {
		h.t.Fatalf("%v: exit %d\n%s\n%s", args, code, out.String(), errb.String())
	}
	return out.String()
}

// A session end asks for its send before the background push starts: a
// push killed before it does anything (here: never run) leaves the send
// asked for, and the next 'sync push' delivers it. Before, the request was
// only the background process's argument: it was lost with it, until the
// session's next capture.
func TestHookAsksForTheSendBeforeTheSyncStarts(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "--quiet", "--bare", filepath.Join(dir, "handoffs.git")},
		{"init", "-q", "-b", "main", filepath.Join(dir, "app")},
		{"-C", filepath.Join(dir, "app"), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	started := 0
	laptop := syncHome{t: t, home: filepath.Join(dir, "laptop"), start: func(*exec.Cmd) error { started++; return nil }}
	desktop := syncHome{t: t, home: filepath.Join(dir, "desktop")}
	url := "file://" + filepath.Join(dir, "handoffs.git")
	for _, h := range []syncHome{laptop, desktop} {
		h.run("", "keygen", "--name", "k", "--no-passphrase")
		h.run("", "remote", "add", "mine", url)
	}
	pairText := filepath.Join(dir, "desktop.pair")
	if err := os.WriteFile(pairText, []byte(desktop.run("", "devices", "add", "--name", "desktop", "--text")), 0o600); err != nil {
		t.Fatal(err)
	}
	laptop.run("", "devices", "add", pairText, "--name", "laptop")
	laptop.run("", "sync", "on", "--global")
	app := filepath.Join(dir, "app")
	transcript := filepath.Join(dir, "t.jsonl")
	line := `{"parentUuid":null,"type":"user","message":{"role":"user","content":"Port the parser"},"uuid":"u1","timestamp":"2026-11-20T10:00:00Z","sessionId":"sess-1","cwd":"` + app + `","version":"2.0.40","isSidechain":false,"userType":"external"}` + "\n"
	if err := os.WriteFile(transcript, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	laptop.run(`{"session_id": "sess-1", "transcript_path": "`+transcript+`", "cwd": "`+app+`", "hook_event_name": "SessionEnd", "reason": "exit"}`,
		"hook", "claude-code", "session-end")
	if started != 1 {
		t.Fatalf("the hook started %d syncs, want 1", started)
	}
	st, err := devsync.LoadState(filepath.Join(laptop.home, "data"))
	if err != nil {
		t.Fatal(err)
	}
	if wanted, _ := st.For("mine"); len(wanted) != 1 {
		t.Fatalf("asked for before the push started: %+v, want the session's record", wanted)
	}
	if out := laptop.run("", "sync", "push"); !strings.Contains(out, "sent ") {
		t.Fatalf("the next push: %q", out)
	}
	if out := laptop.run("", "sync", "status"); strings.Contains(out, "pending") {
		t.Fatalf("after the push: %q", out)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/changes"
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
	h := newHookBench(b)
	keys := filepath.Join(h.dir, "home", "config")
	started := 0
	if syncOn {
		if err := devsync.Set(keys, devsync.Setting{Scope: devsync.Global, On: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		h.run(b, func(a *app) { a.start = func(*exec.Cmd) error { started++; return nil } }, "Do the next thing")
	}
	b.StopTimer()
	if syncOn != (started > 0) {
		b.Fatalf("sync on %v, the pull started %d times", syncOn, started)
	}
}

// BenchmarkHookSessionStartPatch is the session-start hook of
// BenchmarkHookSessionStart when the project's latest handoff carries a
// changes.patch of 1 to 64 MB (one new file, not in the worktree): the
// briefing tells whether the worktree holds the changes from the patch's
// file headers (changes.CarriedState), which save and import keep beside
// it (its headers sidecar), so that the patch itself is not read, and
// never runs git apply. save refuses a patch over changes.MaxPatch (32
// MiB; BenchmarkMake in internal/changes shows the refusal), so the 64 MB
// patch is one that came in a bundle (import does not bound a patch's
// size): its size alone makes the briefing leave it unchecked, unread.
//
//	go test -run '^$' -bench HookSessionStartPatch -count 5 ./cmd/session-handoff/
func BenchmarkHookSessionStartPatch(b *testing.B) {
	for _, mb := range []int{0, 1, 8, 32, 64} {
		b.Run(fmt.Sprintf("MB=%d", mb), func(b *testing.B) {
			h := newHookBench(b)
			want := "Do the next thing"
			if mb > 0 {
				want = h.addPatchHandoff(b, mb*1000*1000)
			}
			b.ResetTimer()
			for b.Loop() {
				h.run(b, nil, want)
			}
		})
	}
}

// hookBench is a store of 10,000 handoffs, one in twenty for the project,
// a git worktree with one commit, and the hook's input for a session
// there.
type hookBench struct {
	dir, project, storeDir, head string
	store                        *store.Store
}

func newHookBench(b *testing.B) *hookBench {
	b.Helper()
	dir := b.TempDir()
	h := &hookBench{dir: dir, project: filepath.Join(dir, "app"), storeDir: filepath.Join(dir, "store")}
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@e",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@e"}
	for _, args := range [][]string{{"init", "-q", "-b", "main", h.project}, {"-C", h.project, "commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git: %v\n%s", err, out)
		}
	}
	head, err := exec.Command("git", "-C", h.project, "rev-parse", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	h.head = strings.TrimSpace(string(head))
	if err := os.MkdirAll(filepath.Join(h.storeDir, "records"), 0o700); err != nil {
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
			rec.Project.Path = h.project
			rec.Git = &handoff.GitState{Root: h.project, Branch: "main", Head: h.head}
		}
		if err := rec.Normalize(); err != nil {
			b.Fatal(err)
		}
		data, _ := json.Marshal(rec)
		if err := os.WriteFile(filepath.Join(h.storeDir, "records", string(rec.ID)+".json"), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	if h.store, err = store.Open(h.storeDir); err != nil {
		b.Fatal(err)
	}
	if _, err := h.store.Check(true); err != nil { // builds the index
		b.Fatal(err)
	}
	return h
}

// addPatchHandoff saves the project's newest handoff, imported, carrying
// a changes.patch of about n bytes that creates one file (big.txt, not in
// the worktree), with its headers sidecar as import keeps it, and returns
// what the briefing says of it.
func (h *hookBench) addPatchHandoff(b *testing.B, n int) string {
	b.Helper()
	patch := benchPatch(n)
	sha, size, err := h.store.PutBlob(bytes.NewReader(patch), int64(len(patch))+1)
	if err != nil {
		b.Fatal(err)
	}
	rec, err := handoff.New(time.Now(), "codex", "Handoff with changes")
	if err != nil {
		b.Fatal(err)
	}
	rec.NextSteps = []string{"Do the next thing"}
	rec.Project.Path = h.project
	rec.Source.Kind = handoff.SourceImport
	rec.Source.Import = &handoff.Provenance{BundleID: strings.Repeat("ab", 16), ImportedAt: time.Now().UTC(), Verification: "unsigned"}
	rec.Git = &handoff.GitState{Root: h.project, Branch: "main", Head: h.head, Untracked: []string{"big.txt"}}
	rec.Attachments = []handoff.Attachment{{Name: "changes.patch", MediaType: handoff.ChangesMediaType, SHA256: sha, Size: size}}
	if err := rec.Normalize(); err != nil {
		b.Fatal(err)
	}
	if _, err := h.store.Put(rec, false); err != nil {
		b.Fatal(err)
	}
	if err := changes.KeepHeaders(h.store, rec.Attachments[0]); err != nil {
		b.Fatal(err)
	}
	if size > changes.MaxPatch {
		return "its changes.patch could not be read here"
	}
	return "carries 1 changed file(s) (changes.patch), available and not applied"
}

// benchPatch is a session-handoff changes patch of about n bytes: one new
// file of many 100-byte lines.
func benchPatch(n int) []byte {
	line := "+" + strings.Repeat("x", 99) + "\n"
	lines := n / len(line)
	var b bytes.Buffer
	b.WriteString("# session-handoff changes 1\n# base " + strings.Repeat("0123456789", 4) + "\n")
	b.WriteString("diff --git a/big.txt b/big.txt\nnew file mode 100644\nindex " + strings.Repeat("0", 40) + ".." + strings.Repeat("1", 40) + "\n--- /dev/null\n+++ b/big.txt\n")
	fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", lines)
	for range lines {
		b.WriteString(line)
	}
	return b.Bytes()
}

// run runs the hook once (set, when not nil, adjusts the app) and fails
// unless the briefing holds want.
func (h *hookBench) run(b *testing.B, set func(*app), want string) {
	input := `{"session_id": "s", "cwd": "` + h.project + `", "hook_event_name": "SessionStart", "source": "startup"}`
	var out, errb bytes.Buffer
	a := newTestApp(context.Background(), strings.NewReader(input), &out, &errb, nil)
	a.getenv = func(k string) string {
		if k == "SESSION_HANDOFF_HOME" {
			return filepath.Join(h.dir, "home")
		}
		return os.Getenv(k)
	}
	if set != nil {
		set(a)
	}
	if code := a.execute([]string{"hook", "claude-code", "session-start", "--store", h.storeDir}); code != 0 || !strings.Contains(out.String(), want) {
		b.Fatalf("exit %d, want %q in\n%s\n%s", code, want, out.String(), errb.String())
	}
}

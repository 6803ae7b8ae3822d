package capture

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// A session's shell renames, removals and new files are its own work,
// where git shows them; what its commands do not name stays someone
// else's, and a failed command claims nothing.
func TestReconcileShell(t *testing.T) {
	testsys.LookPath(t, "git")
	repo := t.TempDir()
	when := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []string{"a.go", "b.go", "c.go", "old.txt", "lib/x.go", "lib/y.go"} {
		writeFile(t, filepath.Join(repo, f), "package x\n", time.Time{})
	}
	gitAt(t, repo, when, "init", "-q", "-b", "main")
	gitAt(t, repo, when, "add", ".")
	gitAt(t, repo, when, "commit", "-q", "-m", "first")
	// What the session did…
	gitAt(t, repo, when, "mv", "a.go", "renamed.go")
	mustRename(t, filepath.Join(repo, "b.go"), filepath.Join(repo, "moved.go"))
	mustRemove(t, filepath.Join(repo, "old.txt"))
	mustRemove(t, filepath.Join(repo, "lib"))
	writeFile(t, filepath.Join(repo, "pkg", "p.go"), "package pkg\n", time.Time{})
	writeFile(t, filepath.Join(repo, "empty", "keep"), "", time.Time{})
	// …and someone else.
	writeFile(t, filepath.Join(repo, "c.go"), "package y\n", time.Time{})

	ok, failed := 0, 1
	cmds := []handoff.Command{
		{Command: "git mv a.go renamed.go", ExitCode: &ok},
		{Command: "mv b.go moved.go && rm old.txt", ExitCode: &ok},
		{Command: "rm -r lib", ExitCode: &ok},
		{Command: "mkdir -p pkg && touch pkg/p.go", ExitCode: &ok},
		{Command: "mkdir empty && touch empty/keep", By: "subagent s1"},
		{Command: "rm c.go", ExitCode: &failed},
	}
	st, err := State(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	files := []handoff.FileTouched{{Path: "b.go", Action: "edited", Edits: 2, Git: GitDirty}}
	got := ReconcileShell(files, cmds, st, repo)
	want := []handoff.FileTouched{
		{Path: "moved.go", Action: "renamed", From: "b.go", Edits: 2, Git: GitUntracked},
		{Path: "renamed.go", Action: "renamed", From: "a.go", Git: GitDirty},
		{Path: "old.txt", Action: "deleted", Git: GitDirty},
		{Path: "lib/x.go", Action: "deleted", Git: GitDirty},
		{Path: "lib/y.go", Action: "deleted", Git: GitDirty},
		{Path: "pkg/p.go", Action: "created", Git: GitUntracked},
		{Path: "empty/keep", Action: "created", Git: GitUntracked, By: "subagent s1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReconcileShell =\n%+v\nwant\n%+v", got, want)
	}
	if u := UntouchedDirty(got, st); len(u) != 1 || u[0].Path != "c.go" {
		t.Errorf("UntouchedDirty = %+v, want c.go alone", u)
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func mustRemove(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

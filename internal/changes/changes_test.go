package changes

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// run runs git in dir for a test's setup.
func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	testsys.Check(t, os.MkdirAll(filepath.Dir(p), 0o755))
	testsys.Check(t, os.WriteFile(p, []byte(text), 0o644))
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	testsys.Check(t, err)
	return string(b)
}

// laptopAndDesktop makes a repository with one commit and a clone of it.
func laptopAndDesktop(t *testing.T) (laptop, desktop string) {
	testsys.LookPath(t, "git")
	laptop, desktop = t.TempDir(), filepath.Join(t.TempDir(), "desktop")
	run(t, laptop, "init", "-q", "-b", "main")
	write(t, laptop, "auth.go", "package auth\n\nfunc A() {}\n\nfunc B() {}\n")
	write(t, laptop, "staged.txt", "one\n")
	write(t, laptop, ".gitignore", "*.log\n")
	run(t, laptop, "add", ".")
	run(t, laptop, "commit", "-q", "-m", "base")
	run(t, filepath.Dir(desktop), "clone", "-q", laptop, desktop)
	return laptop, desktop
}

// carry makes the repository and its clone, lets edit change the laptop's
// worktree, and returns the patch of its changes.
func carry(t *testing.T, edit func(laptop string)) (laptop, desktop string, data []byte) {
	t.Helper()
	laptop, desktop = laptopAndDesktop(t)
	edit(laptop)
	m, err := Make(context.Background(), laptop)
	testsys.Check(t, err)
	return laptop, desktop, patchOf(t, m)
}

// patchOf reads the whole patch of m, and releases it.
func patchOf(t *testing.T, m *Made) []byte {
	t.Helper()
	r, err := m.Open()
	testsys.Check(t, err)
	data, err := io.ReadAll(r)
	testsys.Check(t, err)
	if int64(len(data)) != m.Size {
		t.Fatalf("read %d bytes of a patch of %d", len(data), m.Size)
	}
	testsys.Check(t, m.Close())
	return data
}

func TestMakeAndApplyBringTheState(t *testing.T) {
	ctx := context.Background()
	laptop, desktop := laptopAndDesktop(t)
	write(t, laptop, "auth.go", "package auth\n\nfunc A() { work() }\n\nfunc B() {}\n")
	write(t, laptop, "staged.txt", "one\ntwo\n")
	run(t, laptop, "add", "staged.txt")
	write(t, laptop, "new/untracked.go", "package new\n")
	write(t, laptop, "blob.bin", "\x00\x01\x02binary\xff")
	write(t, laptop, "debug.log", "ignored\n")
	indexBefore := read(t, laptop, ".git/index")
	m, err := Make(ctx, laptop)
	testsys.Check(t, err)
	if got := read(t, laptop, ".git/index"); got != indexBefore {
		t.Fatal("Make changed the repository's index")
	}
	if got := strings.Join(m.Summary.Paths(), ","); got != "auth.go,blob.bin,new/untracked.go,staged.txt" {
		t.Fatalf("files = %s", got)
	}
	data := patchOf(t, m)
	if strings.Contains(string(data), "debug.log") {
		t.Fatal("an ignored file went into the patch")
	}
	if m.Summary.Branch != "main" || len(m.Summary.Base) != 40 {
		t.Fatalf("base %q branch %q", m.Summary.Base, m.Summary.Branch)
	}
	pl, err := Apply(ctx, desktop, data, ApplyOptions{StashMessage: "test"})
	testsys.Check(t, err)
	if len(pl.Conflicts) > 0 || len(pl.Local) > 0 {
		t.Fatalf("plan = %+v", pl)
	}
	for _, f := range []string{"auth.go", "staged.txt", "new/untracked.go", "blob.bin"} {
		if read(t, desktop, f) != read(t, laptop, f) {
			t.Errorf("%s differs after apply", f)
		}
	}
}

func TestApplyKeepsALocalChangeAndLeavesMarkers(t *testing.T) {
	_, desktop, data := carry(t, func(laptop string) {
		write(t, laptop, "auth.go", "package auth\n\nfunc A() { laptop() }\n\nfunc B() {}\n")
	})
	local := "package auth\n\nfunc A() { desktop() }\n\nfunc B() {}\n"
	write(t, desktop, "auth.go", local)
	pl, err := Apply(context.Background(), desktop, data, ApplyOptions{StashMessage: "session-handoff apply test"})
	testsys.Check(t, err)
	if strings.Join(pl.Conflicts, ",") != "auth.go" {
		t.Fatalf("conflicts = %v", pl.Conflicts)
	}
	got := read(t, desktop, "auth.go")
	if !strings.Contains(got, "<<<<<<<") || !strings.Contains(got, "desktop()") || !strings.Contains(got, "laptop()") {
		t.Fatalf("auth.go after apply:\n%s", got)
	}
	if list := run(t, desktop, "stash", "list"); !strings.Contains(list, "session-handoff apply test") {
		t.Fatalf("stash list = %q", list)
	}
	if kept := run(t, desktop, "show", "stash@{0}:auth.go"); kept != local {
		t.Fatalf("the stash holds %q", kept)
	}
}

func TestApplyRefusesAMissingBaseAndChangesNothing(t *testing.T) {
	_, desktop, data := carry(t, func(laptop string) {
		write(t, laptop, "x.txt", "x\n")
		run(t, laptop, "add", "x.txt")
		run(t, laptop, "commit", "-q", "-m", "not fetched")
		write(t, laptop, "auth.go", "changed\n")
	})
	_, err := Apply(context.Background(), desktop, data, ApplyOptions{})
	if !errors.Is(err, ErrNoBase) || !strings.Contains(err.Error(), "git fetch origin main") {
		t.Fatalf("err = %v", err)
	}
	if st := run(t, desktop, "status", "--porcelain"); st != "" {
		t.Fatalf("worktree changed: %q", st)
	}
}

func TestApplyOnANewBranch(t *testing.T) {
	_, desktop, data := carry(t, func(laptop string) { write(t, laptop, "auth.go", "branch work\n") })
	pl, err := Apply(context.Background(), desktop, data, ApplyOptions{Branch: "from-laptop"})
	testsys.Check(t, err)
	if !pl.Clean || strings.TrimSpace(run(t, desktop, "branch", "--show-current")) != "from-laptop" || read(t, desktop, "auth.go") != "branch work\n" {
		t.Fatalf("plan %+v, branch %s", pl, run(t, desktop, "branch", "--show-current"))
	}
}

func TestMakeNothingToCarry(t *testing.T) {
	laptop, _ := laptopAndDesktop(t)
	m, err := Make(context.Background(), laptop)
	if err != nil || m != nil {
		t.Fatalf("Make of a clean worktree = %v, %v", m, err)
	}
}

func TestApplyUndoesAnInterruptedApplyAndStartsAgain(t *testing.T) {
	laptop, desktop, data := carry(t, func(laptop string) {
		write(t, laptop, "auth.go", "patched\n")
		write(t, laptop, "new.go", "package new\n")
	})
	local := "one\nlocal\n"
	write(t, desktop, "staged.txt", local)
	// What a killed apply leaves: the local change in the stash, the
	// journal, one file of the patch written and the other not.
	stash := strings.TrimSpace(run(t, desktop, "stash", "create"))
	run(t, desktop, "stash", "store", "-m", "killed apply", stash)
	head := strings.TrimSpace(run(t, desktop, "rev-parse", "HEAD"))
	write(t, desktop, ".git/"+journalName, "head "+head+"\nbranch refs/heads/main\nnew-branch \nstash "+stash+"\n")
	write(t, desktop, "auth.go", "patch")
	write(t, desktop, "staged.txt", "half-way\n")
	pl, err := Apply(context.Background(), desktop, data, ApplyOptions{StashMessage: "again"})
	testsys.Check(t, err)
	if !pl.Interrupted || len(pl.Conflicts) > 0 {
		t.Fatalf("plan = %+v", pl)
	}
	for _, f := range []string{"auth.go", "new.go"} {
		if read(t, desktop, f) != read(t, laptop, f) {
			t.Errorf("%s = %q after the second apply", f, read(t, desktop, f))
		}
	}
	if got := read(t, desktop, "staged.txt"); got != local {
		t.Errorf("the local change is %q, want %q", got, local)
	}
	if _, err := os.Stat(filepath.Join(desktop, ".git", journalName)); !os.IsNotExist(err) {
		t.Errorf("the journal is still there: %v", err)
	}
	if list := run(t, desktop, "stash", "list"); !strings.Contains(list, "worktree of an interrupted apply") {
		t.Errorf("the interrupted worktree is not in the stash: %q", list)
	}
	pl, err = Apply(context.Background(), desktop, data, ApplyOptions{})
	if err != nil || !pl.AlreadyApplied {
		t.Fatalf("a third apply: %+v, %v", pl, err)
	}
}

// An armed desktop repository: a post-checkout hook (switch runs it), a
// smudge and a clean filter and a diff driver on every file. apply, on a
// new branch and on top, runs none of them, and neither does Make.
func TestApplyAndMakeRunNoProgramTheRepositoryNames(t *testing.T) {
	_, desktop, data := carry(t, func(laptop string) { write(t, laptop, "auth.go", "armed\n") })
	marker := filepath.Join(t.TempDir(), "ran")
	arm := "touch " + marker + "; cat"
	write(t, desktop, ".git/hooks/post-checkout", "#!/bin/sh\n"+arm+"\n")
	testsys.Check(t, os.Chmod(filepath.Join(desktop, ".git/hooks/post-checkout"), 0o755))
	write(t, desktop, ".git/info/attributes", "* filter=arm diff=arm\n")
	for _, kv := range [][2]string{{"filter.arm.smudge", arm}, {"filter.arm.clean", arm}, {"diff.arm.textconv", arm}, {"core.fsmonitor", arm}} {
		run(t, desktop, "config", kv[0], kv[1])
	}
	ctx := context.Background()
	if _, err := Apply(ctx, desktop, data, ApplyOptions{Branch: "armed"}); err != nil {
		t.Fatal(err)
	}
	write(t, desktop, "staged.txt", "changed here\n")
	if _, err := Make(ctx, desktop); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("a program the repository names ran: %v", err)
	}
	// The same repository runs them for plain git: the test is armed.
	run(t, desktop, "switch", "-q", "main")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the hook did not run for plain git either: %v", err)
	}
}

func TestApplyOnTopOfAMovedHead(t *testing.T) {
	_, desktop, data := carry(t, func(laptop string) {
		write(t, laptop, "auth.go", "package auth\n\nfunc A() { laptop() }\n\nfunc B() {}\n")
	})
	write(t, desktop, "auth.go", "package auth\n\nfunc A() {}\n\nfunc B() { desktop() }\n")
	run(t, desktop, "commit", "-q", "-am", "desktop moved on")
	pl, err := Apply(context.Background(), desktop, data, ApplyOptions{})
	testsys.Check(t, err)
	if pl.BaseIsHead || len(pl.Conflicts) > 0 {
		t.Fatalf("plan = %+v", pl)
	}
	if got := read(t, desktop, "auth.go"); got != "package auth\n\nfunc A() { laptop() }\n\nfunc B() { desktop() }\n" {
		t.Fatalf("auth.go = %q", got)
	}
}

// TestApplyOnAnUnbornHeadSaysWhatToDo: a clone with no commit checked out
// (the base fetched, HEAD an unborn branch) is refused by the dry run and
// the apply alike, saying what to check out; nothing changes.
func TestApplyOnAnUnbornHeadSaysWhatToDo(t *testing.T) {
	laptop, _, data := carry(t, func(laptop string) { write(t, laptop, "auth.go", "changed\n") })
	fresh := t.TempDir()
	run(t, fresh, "init", "-q", "-b", "trunk")
	run(t, fresh, "fetch", "-q", laptop, "main")
	for _, dry := range []bool{true, false} {
		_, err := Apply(context.Background(), fresh, data, ApplyOptions{DryRun: dry})
		if !errors.Is(err, ErrWorktree) || !strings.Contains(err.Error(), "nothing is checked out") || !strings.Contains(err.Error(), "git switch") {
			t.Fatalf("dry run %v: err = %v", dry, err)
		}
	}
	if st := run(t, fresh, "status", "--porcelain"); st != "" {
		t.Fatalf("worktree changed: %q", st)
	}
}

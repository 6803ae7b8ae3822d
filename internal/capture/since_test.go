package capture

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// sinceRepo makes a repository on branch main with one commit ("first",
// adding a.txt) and isolates git, for the test and for Since, from the
// user's and the system's configuration.
func sinceRepo(t *testing.T) string {
	t.Helper()
	testsys.LookPath(t, "git")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := t.TempDir()
	gitCmd(t, repo, "init", "-q", "-b", "main")
	commitFile(t, repo, "a.txt", "a\n", "first")
	return repo
}

// commitFile writes name in repo and commits it with message msg.
func commitFile(t *testing.T, repo, name, content, msg string) {
	t.Helper()
	write(t, filepath.Join(repo, name), content)
	gitCmd(t, repo, "add", "--", name)
	gitCmd(t, repo, "commit", "-q", "-m", msg)
}

// gitOutput runs git in dir and returns its trimmed standard output.
func gitOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// snapshot is the git state a handoff made now would carry.
func snapshot(t *testing.T, repo string) *handoff.GitState {
	t.Helper()
	st, err := State(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func since(t *testing.T, dir string, then *handoff.GitState) *handoff.Drift {
	t.Helper()
	d, err := Since(context.Background(), dir, then)
	if err != nil {
		t.Fatalf("Since: %v", err)
	}
	if d.Now == nil {
		t.Fatal("Since: Now is nil")
	}
	// At the root, SinceAtRoot tells the same, without the recent commits.
	if root, err := Root(context.Background(), dir); err == nil {
		at, err := SinceAtRoot(context.Background(), root, then)
		if err != nil {
			t.Fatalf("SinceAtRoot: %v", err)
		}
		want := *d
		now := *d.Now
		now.RecentCommits = nil
		want.Now = &now
		if !reflect.DeepEqual(at, &want) {
			t.Fatalf("SinceAtRoot differs from Since:\n%+v\n%+v", at, &want)
		}
	}
	return d
}

func subjects(cs []handoff.Commit) []string {
	var s []string
	for _, c := range cs {
		s = append(s, c.Subject)
	}
	return s
}

func TestSinceSame(t *testing.T) {
	repo := sinceRepo(t)
	then := snapshot(t, repo)
	d := since(t, repo, then)
	if d.Relation != handoff.DriftSame || d.HeadThen != then.Head || d.HeadNow != then.Head {
		t.Fatalf("relation %q then %q now %q, want same at %s", d.Relation, d.HeadThen, d.HeadNow, then.Head)
	}
	if d.NewCommitCount != 0 || d.MissingCommitCount != 0 || d.NewCommits != nil || d.Changed != nil || d.Truncated {
		t.Errorf("a worktree that has not moved: %+v", d)
	}
	if d.BranchThen != "main" || d.BranchNow != "main" || !d.SameRoot || d.Now.Root != repo {
		t.Errorf("branches %q→%q sameRoot %v root %q", d.BranchThen, d.BranchNow, d.SameRoot, d.Now.Root)
	}
}

func TestSinceAhead(t *testing.T) {
	repo := sinceRepo(t)
	then := snapshot(t, repo)
	commitFile(t, repo, "b.txt", "b\n", "second")
	commitFile(t, repo, "a.txt", "a2\n", "third")
	d := since(t, repo, then)
	if d.Relation != handoff.DriftAhead || d.NewCommitCount != 2 || d.MissingCommitCount != 0 {
		t.Fatalf("relation %q new %d missing %d, want ahead 2 0", d.Relation, d.NewCommitCount, d.MissingCommitCount)
	}
	if got := subjects(d.NewCommits); !reflect.DeepEqual(got, []string{"third", "second"}) {
		t.Errorf("new commits %q, want newest first [third second]", got)
	}
	if d.NewCommits[0].Hash != d.HeadNow || d.HeadNow == then.Head || d.NewCommits[0].Author != "T" {
		t.Errorf("newest commit %+v, HEAD now %s", d.NewCommits[0], d.HeadNow)
	}
	want := []handoff.FileStatus{{Path: "a.txt", Status: "M"}, {Path: "b.txt", Status: "A"}}
	if !reflect.DeepEqual(d.Changed, want) {
		t.Errorf("changed %+v, want %+v", d.Changed, want)
	}
}

func TestSinceBehind(t *testing.T) {
	repo := sinceRepo(t)
	commitFile(t, repo, "b.txt", "b\n", "second")
	commitFile(t, repo, "c.txt", "c\n", "third")
	then := snapshot(t, repo)
	gitCmd(t, repo, "reset", "-q", "--hard", "HEAD~2")
	d := since(t, repo, then)
	if d.Relation != handoff.DriftBehind || d.MissingCommitCount != 2 || d.NewCommitCount != 0 || d.NewCommits != nil {
		t.Fatalf("relation %q missing %d new %d %v, want behind 2 0", d.Relation, d.MissingCommitCount, d.NewCommitCount, d.NewCommits)
	}
	want := []handoff.FileStatus{{Path: "b.txt", Status: "D"}, {Path: "c.txt", Status: "D"}}
	if !reflect.DeepEqual(d.Changed, want) {
		t.Errorf("changed %+v, want %+v", d.Changed, want)
	}
}

func TestSinceDiverged(t *testing.T) {
	repo := sinceRepo(t)
	commitFile(t, repo, "x.txt", "x\n", "left behind")
	then := snapshot(t, repo)
	gitCmd(t, repo, "reset", "-q", "--hard", "HEAD~1")
	commitFile(t, repo, "y.txt", "y\n", "y")
	commitFile(t, repo, "z.txt", "z\n", "z")
	d := since(t, repo, then)
	if d.Relation != handoff.DriftDiverged || d.MissingCommitCount != 1 || d.NewCommitCount != 2 {
		t.Fatalf("relation %q missing %d new %d, want diverged 1 2", d.Relation, d.MissingCommitCount, d.NewCommitCount)
	}
	if got := subjects(d.NewCommits); !reflect.DeepEqual(got, []string{"z", "y"}) {
		t.Errorf("new commits %q, want [z y]", got)
	}
}

func TestSinceBranchSwitched(t *testing.T) {
	repo := sinceRepo(t)
	then := snapshot(t, repo)
	gitCmd(t, repo, "checkout", "-q", "-b", "feature")
	commitFile(t, repo, "f.txt", "f\n", "on feature")
	d := since(t, repo, then)
	if d.BranchThen != "main" || d.BranchNow != "feature" || d.Relation != handoff.DriftAhead || d.NewCommitCount != 1 {
		t.Fatalf("branch %q→%q relation %q new %d, want main→feature ahead 1", d.BranchThen, d.BranchNow, d.Relation, d.NewCommitCount)
	}
	gitCmd(t, repo, "checkout", "-q", "--detach", "main")
	d = since(t, repo, then)
	if d.BranchThen != "main" || d.BranchNow != "" || d.Relation != handoff.DriftSame {
		t.Errorf("detached: branch %q→%q relation %q, want main→\"\" same", d.BranchThen, d.BranchNow, d.Relation)
	}
}

// wantUnknown checks the shape of a Drift whose handoff commit could not
// be used: the worktree now is read, nothing is compared.
func wantUnknown(t *testing.T, d *handoff.Drift, repo string) {
	t.Helper()
	if d.Relation != handoff.DriftUnknown {
		t.Errorf("relation %q, want unknown", d.Relation)
	}
	if d.NewCommitCount != 0 || d.MissingCommitCount != 0 || d.NewCommits != nil || d.Changed != nil {
		t.Errorf("compared against an unusable commit: %+v", d)
	}
	if d.Now.Root != repo || d.HeadNow == "" || d.HeadNow != d.Now.Head || d.BranchNow != "main" {
		t.Errorf("now not filled: %+v", d.Now)
	}
}

func TestSinceUnknown(t *testing.T) {
	repo := sinceRepo(t)
	write(t, filepath.Join(repo, "dirty.txt"), "d\n") // would show in Changed if anything were compared
	random := make([]byte, 20)
	rand.Read(random)
	blob := gitOutput(t, repo, "rev-parse", "HEAD:a.txt")

	d := since(t, repo, nil)
	wantUnknown(t, d, repo)
	if d.BranchThen != "" || d.HeadThen != "" || d.SameRoot {
		t.Errorf("nil handoff: %+v", d)
	}
	for name, then := range map[string]*handoff.GitState{
		"no head":       {Root: repo, Branch: "main"},
		"random commit": {Root: repo, Branch: "main", Head: hex.EncodeToString(random)},
		"a blob":        {Root: repo, Branch: "main", Head: blob},
	} {
		t.Run(name, func(t *testing.T) {
			d := since(t, repo, then)
			wantUnknown(t, d, repo)
			if d.HeadThen != then.Head || d.BranchThen != "main" || !d.SameRoot {
				t.Errorf("then not reported: head %q branch %q sameRoot %v", d.HeadThen, d.BranchThen, d.SameRoot)
			}
		})
	}
}

// gitLogger puts first on PATH a git that records the arguments of each
// call in a file of its own, then runs the real git. Capture runs its git
// reads concurrently, so the calls must not share one log: lines of two
// calls appended to one file can interleave. The returned function reads
// every call made so far, each whole, in no particular order; reset forgets
// them.
func gitLogger(t *testing.T) (calls func() [][]string, reset func()) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell wrapper")
	}
	real := testsys.LookPath(t, "git")
	bin := t.TempDir()
	logs := t.TempDir()
	// Arguments are NUL-terminated, so one that holds a newline stays one.
	script := "#!/bin/sh\nf=$(mktemp '" + logs + "/call.XXXXXX') || exit 125\n" +
		"for a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$f\"\n" +
		"exec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	calls = func() [][]string {
		t.Helper()
		entries, err := os.ReadDir(logs)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]string
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(logs, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00"))
		}
		return out
	}
	reset = func() {
		t.Helper()
		entries, err := os.ReadDir(logs)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if err := os.Remove(filepath.Join(logs, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	return calls, reset
}

func TestSinceHostileHead(t *testing.T) {
	repo := sinceRepo(t)
	head := snapshot(t, repo).Head
	out := filepath.Join(t.TempDir(), "x")
	calls, reset := gitLogger(t)
	for _, h := range []string{
		"--output=" + out,
		"--output=" + out + strings.Repeat("0", 64),
		"HEAD; rm -rf",
		"HEAD", // resolves in git: a program that asked git would say "same"
		"main",
		"HEAD~0",
		strings.ToUpper(head),
		head[:12],
		head + "\n",
		" " + head,
		"-" + head[1:],
		head + "^{}",
		head + "..HEAD",
		"^" + head[1:],
	} {
		reset()
		d := since(t, repo, &handoff.GitState{Root: repo, Branch: "main", Head: h})
		wantUnknown(t, d, repo)
		if d.HeadThen != h {
			t.Errorf("head %q reported as %q", h, d.HeadThen)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("head %q: %s was created (err %v)", h, out, err)
		}
		invocations := calls()
		if len(invocations) == 0 {
			t.Fatalf("head %q: the git wrapper was not run", h)
		}
		for _, args := range invocations {
			for i, a := range args {
				if i > 0 && args[i-1] == "-C" {
					continue // the worktree's path
				}
				bads := []string{head[:12], strings.ToUpper(head[:12]), "--output", "rm -rf", "HEAD", "main"}
				if i > 0 && args[i-1] == "-c" {
					// The guard's settings (maintenance.auto=false holds
					// "main"): only the head's own bytes must not be there.
					bads = bads[:4]
				}
				for _, bad := range bads {
					if strings.Contains(a, bad) {
						t.Errorf("head %q: git was given %q", h, a)
					}
				}
			}
		}
	}
}

// A valid hash reaches git, but only after --end-of-options.
func TestSinceHashAfterEndOfOptions(t *testing.T) {
	repo := sinceRepo(t)
	then := snapshot(t, repo)
	commitFile(t, repo, "b.txt", "b\n", "second")
	calls, _ := gitLogger(t)
	if d := since(t, repo, then); d.Relation != handoff.DriftAhead {
		t.Fatalf("relation %q, want ahead", d.Relation)
	}
	// Each call is read whole: within it, the hash may only follow
	// --end-of-options.
	uses := 0
	for _, args := range calls() {
		after := false
		for _, a := range args {
			switch {
			case a == "--end-of-options":
				after = true
			case strings.Contains(a, then.Head):
				uses++
				if !after {
					t.Errorf("%q given to git before --end-of-options in %q", a, args)
				}
			}
		}
	}
	if uses < 4 {
		t.Fatalf("the handoff's hash reached git %d times, want lookup, count, log and diff", uses)
	}
}

func TestSinceChanged(t *testing.T) {
	repo := sinceRepo(t)
	write(t, filepath.Join(repo, "b.txt"), "b\n")
	write(t, filepath.Join(repo, "gone.txt"), "gone\n")
	write(t, filepath.Join(repo, "old.txt"), "a file long enough to be recognised when it moves\n")
	write(t, filepath.Join(repo, "sub", "keep.txt"), "k\n")
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "files")
	then := snapshot(t, repo)

	commitFile(t, repo, "a.txt", "a changed\n", "edit a")
	commitFile(t, repo, "c.txt", "c\n", "add c")
	gitCmd(t, repo, "mv", "old.txt", "new.txt")
	gitCmd(t, repo, "commit", "-q", "-m", "rename")
	// Dirty now: an unstaged change, an unstaged deletion, a staged new
	// file, an untracked file and an untracked directory.
	write(t, filepath.Join(repo, "b.txt"), "b dirty\n")
	testsys.Check(t, os.Remove(filepath.Join(repo, "gone.txt")))
	write(t, filepath.Join(repo, "staged.txt"), "s\n")
	gitCmd(t, repo, "add", "staged.txt")
	write(t, filepath.Join(repo, "u.txt"), "u\n")
	write(t, filepath.Join(repo, "newdir", "deep.txt"), "n\n")
	// Configuration that would change what git diff prints by default.
	gitCmd(t, repo, "config", "diff.renames", "false")
	gitCmd(t, repo, "config", "diff.relative", "true")

	d := since(t, filepath.Join(repo, "sub"), then)
	if d.Relation != handoff.DriftAhead || d.NewCommitCount != 3 {
		t.Fatalf("relation %q new %d, want ahead 3", d.Relation, d.NewCommitCount)
	}
	want := []handoff.FileStatus{
		{Path: "a.txt", Status: "M"},
		{Path: "b.txt", Status: "M"},
		{Path: "c.txt", Status: "A"},
		{Path: "gone.txt", Status: "D"},
		{Path: "new.txt", Status: "R", From: "old.txt"},
		{Path: "staged.txt", Status: "A"},
		{Path: "newdir/", Status: "?"},
		{Path: "u.txt", Status: "?"},
	}
	if !reflect.DeepEqual(d.Changed, want) {
		t.Errorf("changed:\n got %+v\nwant %+v", d.Changed, want)
	}
	if d.Truncated {
		t.Error("truncated with 8 entries")
	}
}

func TestSinceBounds(t *testing.T) {
	repo := sinceRepo(t)
	then := snapshot(t, repo)
	for _, n := range []string{"1", "2", "3"} {
		commitFile(t, repo, "f"+n+".txt", n, "commit "+n)
	}
	defer func(c, l int) { driftCommitLimit, driftListLimit = c, l }(driftCommitLimit, driftListLimit)
	driftCommitLimit, driftListLimit = 2, 4

	d := since(t, repo, then)
	if d.NewCommitCount != 3 || !reflect.DeepEqual(subjects(d.NewCommits), []string{"commit 3", "commit 2"}) {
		t.Errorf("new commits %d %q, want 3 counted, the newest 2 listed", d.NewCommitCount, subjects(d.NewCommits))
	}
	// Three committed files and one untracked fill the list exactly.
	write(t, filepath.Join(repo, "u1.txt"), "u")
	d = since(t, repo, then)
	if len(d.Changed) != 4 || d.Truncated || d.Changed[3] != (handoff.FileStatus{Path: "u1.txt", Status: "?"}) {
		t.Errorf("at the bound: %+v truncated %v", d.Changed, d.Truncated)
	}
	// One more untracked file is cut.
	write(t, filepath.Join(repo, "u2.txt"), "u")
	d = since(t, repo, then)
	if len(d.Changed) != 4 || !d.Truncated {
		t.Errorf("over the bound: %+v truncated %v", d.Changed, d.Truncated)
	}
	// So is a committed file, before any untracked one.
	driftListLimit = 2
	d = since(t, repo, then)
	if len(d.Changed) != 2 || !d.Truncated || d.Changed[1].Path != "f2.txt" {
		t.Errorf("diff over the bound: %+v truncated %v", d.Changed, d.Truncated)
	}
}

func TestSinceUnborn(t *testing.T) {
	repo := sinceRepo(t)
	commitFile(t, repo, "b.txt", "b\n", "second")
	then := snapshot(t, repo)
	gitCmd(t, repo, "checkout", "-q", "--orphan", "fresh")
	gitCmd(t, repo, "rm", "-q", "--cached", "b.txt")
	d := since(t, repo, then)
	if d.Relation != handoff.DriftUnborn || d.HeadNow != "" || d.BranchNow != "fresh" || d.MissingCommitCount != 2 || d.NewCommitCount != 0 {
		t.Fatalf("relation %q head %q branch %q missing %d new %d, want unborn \"\" fresh 2 0",
			d.Relation, d.HeadNow, d.BranchNow, d.MissingCommitCount, d.NewCommitCount)
	}
	want := []handoff.FileStatus{{Path: "b.txt", Status: "D"}, {Path: "b.txt", Status: "?"}}
	if !reflect.DeepEqual(d.Changed, want) {
		t.Errorf("changed %+v, want %+v", d.Changed, want)
	}

	// In a repository that never had a commit, the handoff's commit is
	// unknown: unknown wins over unborn.
	empty := t.TempDir()
	gitCmd(t, empty, "init", "-q", "-b", "main")
	d = since(t, empty, then)
	if d.Relation != handoff.DriftUnknown || d.HeadNow != "" || d.SameRoot {
		t.Errorf("empty repository: relation %q head %q sameRoot %v", d.Relation, d.HeadNow, d.SameRoot)
	}
}

// In a SHA-256 repository, 40 hex digits are an abbreviation git would
// expand; only the full name counts.
func TestSinceSHA256(t *testing.T) {
	testsys.LookPath(t, "git")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "--object-format=sha256", "-b", "main", repo).CombinedOutput(); err != nil {
		testsys.Missing(t, "a git that makes SHA-256 repositories (git init --object-format=sha256: %v %s)", err, out)
	}
	commitFile(t, repo, "a.txt", "a\n", "first")
	then := snapshot(t, repo)
	if len(then.Head) != 64 {
		t.Fatalf("head %q", then.Head)
	}
	if d := since(t, repo, then); d.Relation != handoff.DriftSame {
		t.Errorf("full hash: relation %q, want same", d.Relation)
	}
	short := *then
	short.Head = then.Head[:40]
	if d := since(t, repo, &short); d.Relation != handoff.DriftUnknown {
		t.Errorf("40-digit prefix: relation %q, want unknown", d.Relation)
	}
}

func TestSinceOtherRoot(t *testing.T) {
	repo := sinceRepo(t)
	then := snapshot(t, repo)
	then.Root = "/elsewhere/repo"
	d := since(t, repo, then)
	if d.SameRoot || d.Relation != handoff.DriftSame {
		t.Errorf("sameRoot %v relation %q, want false same", d.SameRoot, d.Relation)
	}
}

func TestSinceNotARepository(t *testing.T) {
	testsys.LookPath(t, "git")
	_, err := Since(context.Background(), t.TempDir(), &handoff.GitState{Head: strings.Repeat("a", 40)})
	if !errors.Is(err, ErrNotGitRepo) {
		t.Fatalf("got %v, want ErrNotGitRepo", err)
	}
}

// Changed is completed from Now's untracked list; when State cut that
// list, Changed is cut too, even if it holds no more than its bound.
func TestSinceUntrackedCutByState(t *testing.T) {
	repo := sinceRepo(t)
	then := snapshot(t, repo)
	for i := 0; i <= MaxListed; i++ {
		write(t, filepath.Join(repo, "u"+strconv.Itoa(i)), "")
	}
	d := since(t, repo, then)
	if len(d.Changed) != MaxListed || !d.Truncated || !d.Now.Truncated {
		t.Errorf("%d changed, truncated %v (now %v), want %d and truncated", len(d.Changed), d.Truncated, d.Now.Truncated, MaxListed)
	}
}

// TestSinceAtRootGitProcesses: the session-start briefing's common case,
// a handoff whose HEAD has not moved, costs one round of two git
// processes (status and the diff); a moved HEAD asks more. A wrapper on
// PATH logs each git the reader starts.
func TestSinceAtRootGitProcesses(t *testing.T) {
	real := testsys.LookPath(t, "git")
	repo := sinceRepo(t)
	then := snapshot(t, repo)
	bin := t.TempDir()
	log := filepath.Join(bin, "log")
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	count := func() []string {
		data, _ := os.ReadFile(log)
		testsys.Absent(t, log) // no git ran, no log
		var cmds []string
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			// The subcommand is the first known word after the options;
			// config is the untrusted reader's look at the configuration.
			for _, w := range strings.Fields(line) {
				if w == "config" {
					break
				}
				if w == "status" || w == "diff" || w == "rev-list" || w == "log" || w == "rev-parse" {
					cmds = append(cmds, w)
					break
				}
			}
		}
		sort.Strings(cmds)
		return cmds
	}
	count()
	if _, err := SinceAtRoot(context.Background(), repo, then); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(count(), " "); got != "diff status" {
		t.Fatalf("unmoved HEAD: git %s, want diff and status", got)
	}
	commitFile(t, repo, "later.txt", "x", "later")
	count()
	d, err := SinceAtRoot(context.Background(), repo, then)
	if err != nil || d.Relation != handoff.DriftAhead {
		t.Fatalf("moved HEAD: %v %+v", err, d)
	}
	if got := count(); len(got) < 4 {
		t.Fatalf("moved HEAD: git %v, want the resolve and the counts too", got)
	}
}

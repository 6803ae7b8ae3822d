package capture

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

func gitCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStateOfAWorktree(t *testing.T) {
	testsys.LookPath(t, "git")
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	repo := filepath.Join(root, "repo")
	gitCmd(t, root, "init", "-q", "--bare", "-b", "main", remote)
	gitCmd(t, root, "clone", "-q", remote, repo)
	gitCmd(t, repo, "checkout", "-q", "-b", "main")
	write(t, filepath.Join(repo, "a.go"), "package a\n")
	write(t, filepath.Join(repo, "old.txt"), "old\n")
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "first")
	gitCmd(t, repo, "push", "-q", "-u", "origin", "main")
	write(t, filepath.Join(repo, "b.go"), "package a\n")
	gitCmd(t, repo, "add", "b.go")
	gitCmd(t, repo, "commit", "-q", "-m", "second: ümlaut subject")
	// staged rename, unstaged modification, untracked file, file with space
	gitCmd(t, repo, "mv", "old.txt", "new name.txt")
	write(t, filepath.Join(repo, "a.go"), "package a // changed\n")
	write(t, filepath.Join(repo, "notes", "todo.md"), "x\n")

	st, err := State(context.Background(), filepath.Join(repo, "notes"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Root != repo || st.Branch != "main" || len(st.Head) != 40 {
		t.Fatalf("root/branch/head: %+v", st)
	}
	if st.Upstream != "origin/main" || st.Ahead != 1 || st.Behind != 0 {
		t.Errorf("upstream: %q +%d -%d", st.Upstream, st.Ahead, st.Behind)
	}
	if len(st.Staged) != 1 || st.Staged[0].Status != "R" || st.Staged[0].Path != "new name.txt" || st.Staged[0].From != "old.txt" {
		t.Errorf("staged: %+v", st.Staged)
	}
	if len(st.Unstaged) != 1 || st.Unstaged[0] != (handoff.FileStatus{Path: "a.go", Status: "M"}) {
		t.Errorf("unstaged: %+v", st.Unstaged)
	}
	if len(st.Untracked) != 1 || st.Untracked[0] != "notes/" {
		t.Errorf("untracked: %+v", st.Untracked)
	}
	if len(st.RecentCommits) != 2 || st.RecentCommits[0].Subject != "second: ümlaut subject" || st.RecentCommits[1].Subject != "first" {
		t.Errorf("commits: %+v", st.RecentCommits)
	}
	if got := Remote(context.Background(), repo); got != remote {
		t.Errorf("remote = %q, want %q", got, remote)
	}
}

func TestStateBeforeFirstCommitAndDetached(t *testing.T) {
	testsys.LookPath(t, "git")
	repo := t.TempDir()
	gitCmd(t, repo, "init", "-q", "-b", "trunk")
	st, err := State(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if st.Head != "" || st.Branch != "trunk" || st.RecentCommits != nil {
		t.Fatalf("empty repo: %+v", st)
	}
	write(t, filepath.Join(repo, "f"), "x")
	gitCmd(t, repo, "add", "f")
	gitCmd(t, repo, "commit", "-q", "-m", "one")
	gitCmd(t, repo, "checkout", "-q", "--detach")
	st, err = State(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if st.Branch != "" || st.Head == "" {
		t.Fatalf("detached: %+v", st)
	}
}

func TestStateOfNonRepository(t *testing.T) {
	dir := t.TempDir()
	_, err := State(context.Background(), dir)
	if !errors.Is(err, ErrNotGitRepo) {
		t.Fatalf("got %v, want ErrNotGitRepo", err)
	}
}

func TestParseStatusBoundsLists(t *testing.T) {
	var out []byte
	for i := 0; i < MaxListed+10; i++ {
		out = append(out, []byte("? f"+string(rune('a'+i%26))+"\x00")...)
	}
	gs := new(handoff.GitState)
	if err := parseStatus(out, gs); err != nil {
		t.Fatal(err)
	}
	if len(gs.Untracked) != MaxListed || !gs.Truncated {
		t.Fatalf("untracked %d truncated %v", len(gs.Untracked), gs.Truncated)
	}
}

// An expired deadline or a cancelled context is reported as such, never as
// "not a git worktree" (which callers take as leave to store a handoff
// without git state), and a directory outside any repository still is one.
func TestTimeoutIsNotANonRepository(t *testing.T) {
	repo := sinceRepo(t)
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, stop := context.WithCancel(context.Background())
	stop()
	for name, ctx := range map[string]context.Context{"expired": expired, "cancelled": cancelled} {
		_, err := State(ctx, repo)
		if err == nil || errors.Is(err, ErrNotGitRepo) {
			t.Errorf("%s: State = %v; want an error that is not ErrNotGitRepo", name, err)
		}
		if _, err := Root(ctx, repo); err == nil || errors.Is(err, ErrNotGitRepo) {
			t.Errorf("%s: Root = %v; want an error that is not ErrNotGitRepo", name, err)
		}
		if root, err := ProjectRoot(ctx, repo); err == nil {
			t.Errorf("%s: ProjectRoot = %q, nil; want the error (not the directory as if outside git)", name, root)
		}
	}
	if _, err := State(expired, repo); err != nil && !strings.Contains(err.Error(), "timed out") && !strings.Contains(err.Error(), "deadline") {
		t.Errorf("expired: %v does not say it timed out", err)
	}
	if _, err := State(context.Background(), t.TempDir()); !errors.Is(err, ErrNotGitRepo) {
		t.Errorf("outside any repository: %v, want ErrNotGitRepo", err)
	}
}

// A worktree git will not read (a repository owned by another user): the
// directory is still the project for commands that only need its path,
// but reading its git state fails with git's reason instead of reading as
// "not a git worktree".
func TestWorktreeGitWillNotRead(t *testing.T) {
	repo := sinceRepo(t)
	if err := os.Chown(filepath.Join(repo, ".git"), 65534, 65534); err != nil {
		t.Skipf("cannot give the repository to another user here: %v", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	if _, err := State(context.Background(), repo); err == nil || errors.Is(err, ErrNotGitRepo) {
		if err == nil {
			t.Skip("git here reads a repository of another user")
		}
		t.Errorf("State = %v, want git's refusal, not ErrNotGitRepo", err)
	}
	if root, err := ProjectRoot(context.Background(), repo); err != nil || root != repo {
		t.Errorf("ProjectRoot = %q, %v; want the directory itself", root, err)
	}
}

// TestIdentityOfTwoClones: two clones of one repository at different
// paths, one with its remote under another URL spelling, have the same
// identity, which FromWorktree records; a repository with no commit has
// none, and a history that merged another project keeps its own root.
func TestIdentityOfTwoClones(t *testing.T) {
	testsys.LookPath(t, "git")
	ctx := context.Background()
	root := t.TempDir()
	origin := filepath.Join(root, "origin")
	gitCmd(t, root, "init", "-q", "-b", "main", origin)
	if id := Identity(ctx, origin); id.Known() {
		t.Errorf("no commit yet: %+v", id)
	}
	write(t, filepath.Join(origin, "a.go"), "package a\n")
	gitCmd(t, origin, "add", ".")
	gitCmd(t, origin, "commit", "-q", "-m", "first")
	// Another project merged in later: a second, newer root.
	other := filepath.Join(root, "other")
	gitCmd(t, root, "init", "-q", "-b", "main", other)
	write(t, filepath.Join(other, "b.go"), "package b\n")
	gitCmd(t, other, "add", ".")
	gitCmd(t, other, "commit", "-q", "-m", "other")
	gitCmd(t, origin, "fetch", "-q", other, "main:other")
	gitCmd(t, origin, "merge", "-q", "--allow-unrelated-histories", "-m", "merge", "other")
	first := gitOutput(t, origin, "rev-list", "--max-parents=0", "--reverse", "main")
	first, _, _ = strings.Cut(first, "\n")

	laptop := filepath.Join(root, "home", "me", "src", "app")
	desktop := filepath.Join(root, "work", "app-main")
	gitCmd(t, root, "clone", "-q", origin, laptop)
	gitCmd(t, root, "clone", "-q", "file://"+origin+"/", desktop)
	a, b := Identity(ctx, laptop), Identity(ctx, desktop)
	if a.RootCommit != first || b.RootCommit != first {
		t.Fatalf("root commits %s and %s, want the first one %s", a.RootCommit, b.RootCommit, first)
	}
	if len(a.RemoteKeys) != 1 || len(b.RemoteKeys) != 1 || a.RemoteKeys[0] != b.RemoteKeys[0] {
		t.Errorf("remote keys %v and %v differ", a.RemoteKeys, b.RemoteKeys)
	}
	var rec handoff.Record
	if err := FromWorktree(ctx, &rec, desktop, false); err != nil {
		t.Fatal(err)
	}
	if rec.Project.RootCommit != first || !a.Matches(rec.Project.RootCommit, handoff.RemoteKey(rec.Project.Remote)) {
		t.Errorf("recorded %+v", rec.Project)
	}
}

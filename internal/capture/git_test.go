package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
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
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
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
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
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

func TestStripCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:s3cret@github.com/o/r.git": "https://github.com/o/r.git",
		"https://ghp_token@github.com/o/r.git":   "https://github.com/o/r.git",
		"ssh://git@host.example/o/r.git":         "ssh://git@host.example/o/r.git",
		"git@github.com:o/r.git":                 "git@github.com:o/r.git",
		"/srv/git/r.git":                         "/srv/git/r.git",
		"https://github.com/o/r.git":             "https://github.com/o/r.git",
		"ssh://git:hunter2@host.example/o/r.git": "ssh://host.example/o/r.git",
	} {
		if got := StripCredentials(in); got != want {
			t.Errorf("StripCredentials(%q) = %q, want %q", in, got, want)
		}
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

func TestGitErrorsNeverCarryCredentials(t *testing.T) {
	// Some git versions and transports echo the URL as given; a fake git
	// that does so stands in for them.
	bin := t.TempDir()
	script := "#!/bin/sh\necho \"fatal: unable to access 'https://alice:s3cr3t-token@git.example/repo.git/': timeout\" >&2\nexit 128\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	_, err := Git{Dir: t.TempDir()}.Run(context.Background(), "push", "origin", "main")
	if err == nil {
		t.Fatal("a failing git succeeded")
	}
	if strings.Contains(err.Error(), "s3cr3t-token") || strings.Contains(err.Error(), "alice") {
		t.Fatalf("credentials in the error: %v", err)
	}
	if !strings.Contains(err.Error(), "https://git.example/repo.git/") {
		t.Fatalf("the rest of git's message was lost: %v", err)
	}
}

func TestGitOutputIsBounded(t *testing.T) {
	bin := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\nhead -c %d /dev/zero\n", gitOutputLimit+1)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// Moving 8 MiB through the pipe takes a second here, but more than
	// GitTimeout (15 s) on a loaded machine under -race: the time limit is
	// TestGitTimeout's business, not this test's.
	out, err := Git{Dir: t.TempDir(), Timeout: 10 * time.Minute}.Run(context.Background(), "diff")
	if err == nil || !strings.Contains(err.Error(), "output over") {
		t.Fatalf("%d bytes of output accepted: %v", len(out), err)
	}
}

// TestGitTimeout: a call ends at its Git's own time limit, and says which
// one; without one it runs under GitTimeout.
func TestGitTimeout(t *testing.T) {
	bin := t.TempDir()
	// A git that never finishes on its own (exec: the shell's child is the
	// one the context kills).
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nexec tail -f /dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	_, err := Git{Dir: t.TempDir(), Timeout: time.Millisecond}.Run(context.Background(), "fetch")
	if err == nil || err.Error() != "git fetch: timed out after 1ms" {
		t.Fatalf("Run = %v, want the 1ms time limit", err)
	}
}

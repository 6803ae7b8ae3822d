package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

func TestFromWorktree(t *testing.T) {
	testsys.LookPath(t, "git")
	ctx := context.Background()
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	write(t, filepath.Join(repo, "sub", "a.go"), "package a\n")
	gitCmd(t, repo, "init", "-q", "-b", "main")
	gitCmd(t, repo, "remote", "add", "origin", "https://example.com/app.git")
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "first")
	plain := filepath.Join(root, "plain")
	write(t, filepath.Join(plain, "x"), "x\n")

	t.Run("subdirectory of a worktree: the root and its git state", func(t *testing.T) {
		var rec handoff.Record
		if err := FromWorktree(ctx, &rec, filepath.Join(repo, "sub"), false); err != nil {
			t.Fatal(err)
		}
		want, _ := filepath.EvalSymlinks(repo)
		got, _ := filepath.EvalSymlinks(rec.Project.Path)
		if got != want {
			t.Errorf("project path %q, want the worktree root %q", rec.Project.Path, repo)
		}
		if rec.Git == nil || rec.Git.Branch != "main" || rec.Git.Head == "" {
			t.Errorf("git state %+v, want branch main with a HEAD", rec.Git)
		}
		if rec.Project.Remote != "https://example.com/app.git" {
			t.Errorf("remote %q", rec.Project.Remote)
		}
	})
	t.Run("noGit: the directory alone", func(t *testing.T) {
		var rec handoff.Record
		if err := FromWorktree(ctx, &rec, filepath.Join(repo, "sub"), true); err != nil {
			t.Fatal(err)
		}
		if rec.Git != nil || rec.Project.Remote != "" || !strings.HasSuffix(rec.Project.Path, filepath.Join("repo", "sub")) {
			t.Errorf("got path %q git %v remote %q, want the directory itself and no git state", rec.Project.Path, rec.Git, rec.Project.Remote)
		}
	})
	t.Run("not a worktree: ErrNotGitRepo, path kept", func(t *testing.T) {
		var rec handoff.Record
		err := FromWorktree(ctx, &rec, plain, false)
		if !errors.Is(err, ErrNotGitRepo) || !strings.HasSuffix(err.Error(), "plain is not a git worktree") {
			t.Fatalf("err %v, want one wrapping ErrNotGitRepo naming the directory", err)
		}
		if rec.Project.Path != plain || rec.Git != nil {
			t.Errorf("path %q git %v, want %q and no git state", rec.Project.Path, rec.Git, plain)
		}
	})
	for name, dir := range map[string]string{
		"missing": filepath.Join(root, "missing"),
		"a file":  filepath.Join(plain, "x"),
	} {
		t.Run(name, func(t *testing.T) {
			var rec handoff.Record
			err := FromWorktree(ctx, &rec, dir, true)
			if err == nil || !strings.Contains(err.Error(), dir) || errors.Is(err, ErrNotGitRepo) {
				t.Fatalf("err %v, want one naming %s", err, dir)
			}
			if rec.Project.Path != "" {
				t.Errorf("path %q set for a bad directory", rec.Project.Path)
			}
		})
	}
}

func TestCurrentState(t *testing.T) {
	testsys.LookPath(t, "git")
	ctx := context.Background()
	repo := t.TempDir()
	write(t, filepath.Join(repo, "a.go"), "package a\n")
	gitCmd(t, repo, "init", "-q", "-b", "main")
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "first")
	var rec handoff.Record
	if err := FromWorktree(ctx, &rec, repo, false); err != nil {
		t.Fatal(err)
	}
	rec.Source.Kind = handoff.SourceHand
	if st := CurrentState(ctx, &rec); st == nil || st.Head != rec.Git.Head {
		t.Fatalf("a local record's worktree: got %+v, want its state now", st)
	}
	for _, kind := range []string{handoff.SourceImport, handoff.SourceLegacy} {
		r := rec
		r.Source.Kind = kind
		if st := CurrentState(ctx, &r); st != nil {
			t.Errorf("%s record: its root was visited", kind)
		}
	}
	gone := rec
	g := *rec.Git
	g.Root = filepath.Join(repo, "gone")
	gone.Git = &g
	if st := CurrentState(ctx, &gone); st != nil {
		t.Errorf("a root that is gone: got %+v", st)
	}
	if st := CurrentState(ctx, &handoff.Record{}); st != nil {
		t.Errorf("no git state recorded: got %+v", st)
	}
}

// TestFromWorktreeOneRound: in a worktree whose configuration files the
// quick read takes, a save's git state (branch, status, recent commits,
// remote, root commit) costs three git processes started at once:
// status, log and rev-list, and no rev-parse, remote or remote get-url.
// Each process is logged by a git on PATH that runs the real one.
func TestFromWorktreeOneRound(t *testing.T) {
	real := testsys.LookPath(t, "git")
	ctx := context.Background()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(root, "global"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := filepath.Join(root, "repo")
	write(t, filepath.Join(repo, "a.go"), "package a\n")
	gitCmd(t, repo, "init", "-q", "-b", "main")
	gitCmd(t, repo, "remote", "add", "origin", "https://user:secret@example.com/app.git")
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "first")
	gitCmd(t, repo, "commit", "-q", "--allow-empty", "-m", "second")
	log := filepath.Join(root, "calls")
	bin := filepath.Join(root, "bin")
	write(t, filepath.Join(bin, "git"), "#!/bin/sh\nfor a; do case $a in status|log|rev-list|rev-parse|remote|config) echo $a >>"+log+"; break;; esac; done\nexec "+real+" \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	var rec handoff.Record
	if err := FromWorktree(ctx, &rec, repo, false); err != nil {
		t.Fatal(err)
	}
	if rec.Project.Remote != "https://example.com/app.git" || rec.Project.RootCommit == "" || rec.Git.Branch != "main" || len(rec.Git.RecentCommits) != 2 {
		t.Errorf("remote %q root %q branch %q commits %d", rec.Project.Remote, rec.Project.RootCommit, rec.Git.Branch, len(rec.Git.RecentCommits))
	}
	calls := func() []string {
		t.Helper()
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		testsys.Check(t, os.Remove(log))
		got := strings.Fields(string(data))
		slices.Sort(got)
		return got
	}
	if got := calls(); !slices.Equal(got, []string{"log", "rev-list", "status"}) {
		t.Errorf("git processes %q, want log, rev-list and status", got)
	}

	// Saved again at the same commit, after a handoff made there: git
	// status alone, and the same history.
	rec.Source.Kind = handoff.SourceHand
	prev := func(top string) *handoff.Record {
		if top != repo {
			t.Errorf("previous asked for %q, want %q", top, repo)
		}
		return &rec
	}
	var again handoff.Record
	if err := FromWorktreeAfter(ctx, &again, repo, false, prev); err != nil {
		t.Fatal(err)
	}
	if got := calls(); !slices.Equal(got, []string{"status"}) {
		t.Errorf("at the same commit: git processes %q, want status alone", got)
	}
	if again.Project.RootCommit != rec.Project.RootCommit || !slices.Equal(again.Git.RecentCommits, rec.Git.RecentCommits) || again.Git.Head != rec.Git.Head {
		t.Errorf("at the same commit: root %q commits %v, want %q %v", again.Project.RootCommit, again.Git.RecentCommits, rec.Project.RootCommit, rec.Git.RecentCommits)
	}

	// After a commit the history is read again.
	gitCmd(t, repo, "commit", "-q", "--allow-empty", "-m", "third")
	var third handoff.Record
	if err := FromWorktreeAfter(ctx, &third, repo, false, prev); err != nil {
		t.Fatal(err)
	}
	if got := calls(); !slices.Equal(got, []string{"log", "rev-list", "status"}) {
		t.Errorf("after a commit: git processes %q, want log, rev-list and status", got)
	}
	if len(third.Git.RecentCommits) != 3 || third.Git.RecentCommits[0].Subject != "third" {
		t.Errorf("after a commit: commits %v", third.Git.RecentCommits)
	}
}

package capture

import (
	"context"
	"errors"
	"path/filepath"
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

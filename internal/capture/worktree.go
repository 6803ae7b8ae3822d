package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/session-handoff/session-handoff/handoff"
)

// ProjectDir returns dir as an absolute path, or an error naming it when
// it does not exist or is not a directory.
func ProjectDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("project %s: %w", dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("project %s does not exist", abs)
		}
		return "", fmt.Errorf("project: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("project %s is not a directory", abs)
	}
	return abs, nil
}

// FromWorktree records in rec the project directory dir and, unless noGit,
// the git state of the worktree it is in: the worktree's root becomes the
// project path, and its remote is recorded. A directory outside any git
// worktree is an error wrapping ErrNotGitRepo ("project DIR is not a git
// worktree"), after rec.Project.Path is set, so a caller that tolerates
// it keeps a record without git state.
func FromWorktree(ctx context.Context, rec *handoff.Record, dir string, noGit bool) error {
	return FromWorktreeAfter(ctx, rec, dir, noGit, nil)
}

// FromWorktreeAfter is FromWorktree, taking the history (recent commits,
// root commit) from the previous handoff prev gives when it was made at
// the same commit (Worktree).
func FromWorktreeAfter(ctx context.Context, rec *handoff.Record, dir string, noGit bool, prev Previous) error {
	// One save is one moment: each worktree's git reader is made once.
	ctx = WithReaderCache(ctx)
	abs, err := ProjectDir(dir)
	if err != nil {
		return err
	}
	rec.Project.Path = abs
	if noGit {
		nameProject(rec)
		detectKind(rec)
		return nil
	}
	st, remote, root, err := Worktree(ctx, abs, prev)
	if err != nil {
		if errors.Is(err, ErrNotGitRepo) {
			return fmt.Errorf("project %s is %w", abs, ErrNotGitRepo)
		}
		return fmt.Errorf("read git state: %w", err)
	}
	rec.Git = st
	rec.Project.Path = st.Root
	rec.Project.Remote = remote
	rec.Project.RootCommit = root
	nameProject(rec)
	detectKind(rec)
	return nil
}

// nameProject names the project after its directory when nothing named
// it yet (handoff.Record.Normalize does the same, but not every caller
// normalises before using the record).
func nameProject(rec *handoff.Record) {
	if rec.Project.Name == "" && rec.Project.Path != "" {
		rec.Project.Name = filepath.Base(rec.Project.Path)
	}
}

// detectKind fills in the project's kind and its build and test commands
// (DetectProject) when the record has none yet, as agent-handoff's
// snapshot detected the project type; a directory that cannot be read
// leaves them empty.
func detectKind(rec *handoff.Record) {
	if rec.Project.Kind != "" || len(rec.Project.Checks) > 0 {
		return
	}
	if kind, checks, err := DetectProject(rec.Project.Path); err == nil {
		rec.Project.Kind, rec.Project.Checks = kind, checks
	}
}

// CurrentState reads the git state, now, of the worktree a handoff was
// made in, so the handoff can be compared with it; nil when there is
// nothing to compare: no git state recorded, a record made on another
// machine (an imported or legacy record's root is a path someone else
// chose, and is never visited), a root that is no longer a directory, or
// a worktree git cannot read.
func CurrentState(ctx context.Context, rec *handoff.Record) *handoff.GitState {
	if rec.Git == nil || rec.Git.Root == "" || rec.Source.Kind == handoff.SourceImport || rec.Source.Kind == handoff.SourceLegacy {
		return nil
	}
	if info, err := os.Stat(rec.Git.Root); err != nil || !info.IsDir() {
		return nil
	}
	st, err := State(ctx, rec.Git.Root)
	if err != nil {
		return nil
	}
	return st
}

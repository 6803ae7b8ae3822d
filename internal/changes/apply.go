package changes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// ErrNoBase is wrapped when the patch's base commit is not in the
// repository.
var ErrNoBase = errors.New("base commit is not in this repository")

// ErrWorktree is wrapped when the worktree's state keeps a patch from
// being applied safely (a merge in progress, an untracked file in the way).
var ErrWorktree = errors.New("worktree not ready")

// ApplyOptions say how a patch is applied.
type ApplyOptions struct {
	// Branch, when set, is a new branch made at the patch's base commit
	// to apply it on; otherwise it goes on top of the current HEAD.
	Branch string
	// DryRun checks everything and changes nothing.
	DryRun bool
	// StashMessage names the stash entry that keeps local changes.
	StashMessage string
}

// Plan is what Apply did, or would do.
type Plan struct {
	Summary *Summary
	// BaseIsHead is set when HEAD is the patch's base commit.
	BaseIsHead bool
	// Local are the files with local changes, kept in Stash before
	// anything is applied; Touched those of them the patch changes too.
	Local   []string
	Touched []string
	Stash   string // the stash commit holding the local changes
	// Clean is set when the patch applies without a three-way merge.
	Clean bool
	// Conflicts are the files left with conflict markers.
	Conflicts []string
	// AlreadyApplied is set when the worktree held the changes already:
	// nothing was done.
	AlreadyApplied bool
	// Interrupted is set when an earlier apply was killed; what it began
	// was undone (from its stash entry) before this one.
	Interrupted bool
}

// Apply checks the patch, then applies it to the worktree at root with a
// three-way merge (git apply --3way): on a new branch at the base commit
// or on top of HEAD. Local changes are never overwritten: they are first
// saved as a stash entry (git stash create and store: the worktree is not
// touched), and a file the patch changes too is merged, with conflict
// markers where both changed the same lines. It refuses, changing
// nothing, when the base commit is missing (ErrNoBase), a merge is in
// progress or a file (untracked or ignored) is where the patch creates
// one (ErrWorktree), or a path the patch writes is, or lies below, a
// symbolic link on disk or in the base commit (ErrLink). Conflicts are no
// error: Plan.Conflicts lists them.
func Apply(ctx context.Context, root string, data []byte, opts ApplyOptions) (*Plan, error) {
	sum, err := Check(data)
	if err != nil {
		return nil, err
	}
	g, err := reader(ctx, root)
	if err != nil {
		return nil, err
	}
	pl := &Plan{Summary: sum}
	jpath, err := journalPath(ctx, g)
	if err != nil {
		return pl, err
	}
	if done, err := pl.resume(ctx, g, root, jpath, data, opts); done || err != nil {
		return pl, err
	}
	if err := pl.inspect(ctx, g, root, opts); err != nil {
		return pl, err
	}
	if err := checkDisk(root, sum); err != nil {
		return pl, err
	}
	if err := checkBaseLinks(ctx, g, sum); err != nil {
		return pl, err
	}
	tmp, patch, err := tempPatch(data)
	if err != nil {
		return pl, err
	}
	defer os.RemoveAll(tmp)
	if err := checkOnBase(ctx, g, tmp, patch, sum.Base); err != nil {
		return pl, err
	}
	if opts.DryRun {
		pl.Clean = opts.Branch != "" || (len(pl.Touched) == 0 && applies(ctx, g, "apply", "--check", patch))
		return pl, nil
	}
	if err := pl.keepLocal(ctx, g, opts); err != nil {
		return pl, err
	}
	j, err := pl.begin(ctx, g, jpath, opts)
	if err != nil {
		return pl, err
	}
	if err := pl.apply(ctx, g, root, patch, opts); err != nil {
		if uerr := j.undo(ctx, g, root, opts.StashMessage); uerr != nil {
			return pl, fmt.Errorf("%w; and undoing it: %v", err, uerr)
		}
		return pl, err
	}
	return pl, safefile.Remove(jpath)
}

// begin writes the journal that lets a killed apply be undone.
func (pl *Plan) begin(ctx context.Context, g git.Runner, jpath string, opts ApplyOptions) (*journal, error) {
	head, err := g.Run(ctx, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	branch, _ := g.Run(ctx, "symbolic-ref", "-q", "HEAD")
	j := &journal{path: jpath, Head: strings.TrimSpace(string(head)), Branch: strings.TrimSpace(string(branch)),
		NewBranch: opts.Branch, Stash: pl.Stash}
	// What the apply writes where nothing was (checkDisk saw to that):
	// the files the patch creates, each with the blob id of its content.
	// One whose id the patch does not give in full is never removed.
	for _, f := range pl.Summary.Files {
		if f.Status == "A" && f.Blob != "" {
			j.Creates = append(j.Creates, created{Path: f.Path, Blob: f.Blob})
		}
	}
	if err := j.write(); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return j, nil
}

// resume deals with what an earlier apply left: a journal (it was killed)
// is undone, unless that apply had ended in conflicts, which stay; a
// worktree that holds the changes already is done. done is set when
// nothing is left to do.
func (pl *Plan) resume(ctx context.Context, g git.Runner, root, jpath string, data []byte, opts ApplyOptions) (done bool, err error) {
	j, err := readJournal(jpath)
	if err != nil {
		return true, err
	}
	if j == nil {
		pl.AlreadyApplied = Applied(ctx, root, data)
		return pl.AlreadyApplied, nil
	}
	if out, err := g.Run(ctx, "diff", "--name-only", "-z", "--diff-filter=U"); err == nil && len(out) > 0 {
		pl.Conflicts = splitZ(out)
		if opts.DryRun {
			return true, nil
		}
		return true, safefile.Remove(jpath)
	}
	pl.Interrupted = true
	if opts.DryRun {
		return true, nil
	}
	return false, j.undo(ctx, g, root, opts.StashMessage)
}

// apply switches to the new branch if asked, and applies the patch with a
// three-way merge; conflicts are left in the files and listed.
func (pl *Plan) apply(ctx context.Context, g git.Runner, root, patch string, opts ApplyOptions) error {
	sum := pl.Summary
	if opts.Branch != "" {
		if _, err := g.Run(ctx, "switch", "--no-guess", "-c", opts.Branch, "--end-of-options", sum.Base); err != nil {
			return fmt.Errorf("new branch: %w", err)
		}
	}
	// Once more, as close to git apply as can be: the worktree may have
	// changed since the first look (a new branch checked out, or another
	// process of the user's at work).
	if err := checkDisk(root, sum); err != nil {
		return err
	}
	if len(pl.Touched) > 0 {
		// git apply --3way merges into the index's version of a file:
		// the local change goes there first (it is in the stash too).
		g.Env = append(g.Env, "GIT_LITERAL_PATHSPECS=1")
		if _, err := g.Run(ctx, append([]string{"add", "--"}, pl.Touched...)...); err != nil {
			return fmt.Errorf("stage local changes: %w", err)
		}
	}
	_, err := g.Run(ctx, "apply", "--3way", "--whitespace=nowarn", patch)
	if err == nil {
		pl.Clean = len(pl.Touched) == 0
		return nil
	}
	out, uerr := g.Run(ctx, "diff", "--name-only", "-z", "--diff-filter=U")
	if uerr != nil || len(out) == 0 {
		return fmt.Errorf("apply: %w", err)
	}
	pl.Conflicts = splitZ(out)
	return nil
}

// inspect checks the base commit and the worktree, and finds the local
// changes and those the patch touches too.
func (pl *Plan) inspect(ctx context.Context, g git.Runner, root string, opts ApplyOptions) error {
	base := pl.Summary.Base
	if _, err := g.Run(ctx, "cat-file", "-e", "--end-of-options", base+"^{commit}"); err != nil {
		hint := "git fetch"
		if pl.Summary.Branch != "" {
			hint = "git fetch origin " + pl.Summary.Branch
		}
		return fmt.Errorf("%s %w: fetch it first (%s), or push it from the other machine", base[:12], ErrNoBase, hint)
	}
	head, err := g.Run(ctx, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		// An unborn branch (a fresh init, a clone of an empty
		// repository, a fetch without a checkout): there is nothing to
		// apply on top of, and no HEAD to come back to.
		what := "git switch --create NAME " + base[:12]
		if b := pl.Summary.Branch; b != "" {
			what = "git switch " + untrusted.Quote(b, 80) + " (the handoff's branch), or " + what
		}
		return fmt.Errorf("HEAD names no commit: nothing is checked out here: %w (check one out first: %s; then apply)", ErrWorktree, what)
	}
	pl.BaseIsHead = strings.TrimSpace(string(head)) == base
	if opts.Branch != "" {
		if _, err := g.Run(ctx, "check-ref-format", "--branch", opts.Branch); err != nil || strings.HasPrefix(opts.Branch, "-") {
			return fmt.Errorf("%s is not a branch name: %w", untrusted.Quote(opts.Branch, 80), ErrWorktree)
		}
		if _, err := g.Run(ctx, "rev-parse", "--verify", "-q", "refs/heads/"+opts.Branch); err == nil {
			return fmt.Errorf("branch %s exists already: %w", untrusted.Quote(opts.Branch, 80), ErrWorktree)
		}
	}
	out, err := g.Run(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return fmt.Errorf("worktree state: %w", err)
	}
	changes := map[string]bool{}
	for _, f := range pl.Summary.Files {
		changes[f.Path] = f.Status != "A"
	}
	entries := splitZ(out)
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		if len(e) < 4 {
			continue
		}
		xy, path := e[:2], e[3:]
		if xy[0] == 'R' || xy[0] == 'C' {
			i++ // a rename's entry is followed by its source path
		}
		switch {
		case strings.Contains(xy, "U") || xy == "AA" || xy == "DD":
			return fmt.Errorf("%s has unresolved conflicts: %w (finish or abort the merge first)", untrusted.Quote(path, 200), ErrWorktree)
		case xy == "??":
			if modified, in := changes[path]; in && !modified {
				return fmt.Errorf("%s exists here, untracked, and the patch creates it: %w (move it away or commit it)", untrusted.Quote(path, 200), ErrWorktree)
			}
			continue
		}
		pl.Local = append(pl.Local, path)
		if _, in := changes[path]; in {
			pl.Touched = append(pl.Touched, path)
		}
	}
	if opts.Branch != "" && len(pl.Local) > 0 {
		return fmt.Errorf("%d file(s) with local changes: %w (a new branch starts from the base commit: commit or stash them first, or apply on top of the current branch)", len(pl.Local), ErrWorktree)
	}
	return nil
}

// keepLocal saves the local changes as a stash entry without touching the
// worktree, so that git stash list and the reflog hold them whatever the
// merge does.
func (pl *Plan) keepLocal(ctx context.Context, g git.Runner, opts ApplyOptions) error {
	if len(pl.Local) == 0 {
		return nil
	}
	out, err := g.Run(ctx, "stash", "create", opts.StashMessage)
	if err != nil {
		return fmt.Errorf("save local changes: %w", err)
	}
	pl.Stash = strings.TrimSpace(string(out))
	if pl.Stash == "" {
		return nil
	}
	if _, err := g.Run(ctx, "stash", "store", "-m", opts.StashMessage, pl.Stash); err != nil {
		return fmt.Errorf("save local changes: %w", err)
	}
	return nil
}

// checkOnBase checks that the patch applies to its base commit, in an
// index of its own under tmp: a patch that does not is no change of the
// base, whatever it claims.
func checkOnBase(ctx context.Context, g git.Runner, tmp, patch, base string) error {
	g.Env = append(g.Env, "GIT_INDEX_FILE="+filepath.Join(tmp, "index"))
	if _, err := g.Run(ctx, "read-tree", "--end-of-options", base); err != nil {
		return fmt.Errorf("read the base commit: %w", err)
	}
	if _, err := g.Run(ctx, "apply", "--check", "--cached", patch); err != nil {
		return fmt.Errorf("the patch does not apply to its own base commit %s: %w", base[:12], err)
	}
	return nil
}

// applies reports whether a git apply check passes.
func applies(ctx context.Context, g git.Runner, args ...string) bool {
	_, err := g.Run(ctx, args...)
	return err == nil
}

func splitZ(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Applied reports whether the worktree at root holds the changes of the
// patch now: the patch, checked, applies in reverse.
func Applied(ctx context.Context, root string, data []byte) bool {
	if _, err := Check(data); err != nil {
		return false
	}
	g, err := reader(ctx, root)
	if err != nil {
		return false
	}
	tmp, patch, err := tempPatch(data)
	if err != nil {
		return false
	}
	defer os.RemoveAll(tmp)
	return applies(ctx, g, "apply", "--check", "--reverse", patch)
}

// tempPatch writes data to a file in a new temporary directory, for git
// apply to read; the caller removes the directory.
func tempPatch(data []byte) (dir, patch string, err error) {
	dir, err = os.MkdirTemp("", "session-handoff-apply-")
	if err != nil {
		return "", "", err
	}
	patch = filepath.Join(dir, Name)
	if err := os.WriteFile(patch, data, 0o600); err != nil {
		os.RemoveAll(dir)
		return "", "", err
	}
	return dir, patch, nil
}

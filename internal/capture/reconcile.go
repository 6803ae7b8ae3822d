package capture

import (
	"bytes"
	"context"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/git"
)

// Reconciliation: the files an agent touched, as its transcript tells
// them, set against what git says about them now.

// How a touched file stands in git (handoff.FileTouched.Git).
const (
	GitDirty     = "dirty"     // staged or unstaged changes
	GitUntracked = "untracked" // a new file git does not track yet
	GitCommitted = "committed" // clean now, and changed by a commit made during the session
	GitClean     = "clean"     // tracked and unchanged
)

// maxHistoryCommits bounds the commits ChangedSince reads.
const maxHistoryCommits = 1000

// History is what git says about the touched files beyond a GitState.
type History struct {
	// Committed holds the paths, relative to the root, that commits made
	// since the session started changed.
	Committed map[string]bool
	// Tracked holds those of the touched paths that git tracks. When it
	// is nil, a touched path that is neither dirty, untracked nor
	// committed is taken to be clean; when it is set, a path it does not
	// hold (ignored, or gone) is left unknown.
	Tracked map[string]bool
}

// Reconcile returns files with each path made relative to the root of the
// worktree st describes and its Git field set: dirty, untracked,
// committed or clean, by that precedence. Paths may be absolute or
// relative to cwd, the session's working directory (relative to the root
// when cwd is ""); a path outside the worktree keeps its form and an
// empty Git field. Two paths that name the same file are merged. hist may
// be nil. files is not modified.
func Reconcile(files []handoff.FileTouched, st *handoff.GitState, cwd string, hist *History) []handoff.FileTouched {
	if st == nil || st.Root == "" {
		return append([]handoff.FileTouched(nil), files...)
	}
	n := newPathNorm(st.Root, cwd)
	dirty := map[string]bool{}
	for _, list := range [][]handoff.FileStatus{st.Staged, st.Unstaged} {
		for _, fs := range list {
			dirty[fs.Path] = true
			if fs.From != "" {
				dirty[fs.From] = true
			}
		}
	}
	out := make([]handoff.FileTouched, 0, len(files))
	index := map[string]int{}
	for _, f := range files {
		rel, inside := n.rel(f.Path)
		if !inside {
			f.Git = ""
			out = append(out, f)
			continue
		}
		f.Path = rel
		switch {
		case dirty[rel]:
			f.Git = GitDirty
		case isUntracked(rel, st.Untracked):
			f.Git = GitUntracked
		case hist != nil && hist.Committed[rel]:
			f.Git = GitCommitted
		case hist == nil || hist.Tracked == nil || hist.Tracked[rel]:
			f.Git = GitClean
		default:
			f.Git = "" // ignored by git, or neither in the worktree nor in history
		}
		if i, seen := index[rel]; seen {
			// The same file written two ways: one entry, the later action.
			prev := &out[i]
			prev.Action = f.Action
			prev.Edits = min(prev.Edits+f.Edits, 1<<31-1)
			continue
		}
		index[rel] = len(out)
		out = append(out, f)
	}
	return out
}

// isUntracked reports whether rel is an untracked path or lies in an
// untracked directory (git status lists a new directory as "dir/").
func isUntracked(rel string, untracked []string) bool {
	for _, u := range untracked {
		if u == rel || strings.HasSuffix(u, "/") && strings.HasPrefix(rel, u) {
			return true
		}
	}
	return false
}

// UntouchedDirty lists the changed paths of st (staged and unstaged, each
// path once) that are not among files: changes in the worktree the agent
// did not make. files are paths relative to the root, as Reconcile
// returns them. Untracked files are left out: st.Untracked lists them.
func UntouchedDirty(files []handoff.FileTouched, st *handoff.GitState) []handoff.FileStatus {
	if st == nil {
		return nil
	}
	touched := make(map[string]bool, len(files))
	for _, f := range files {
		touched[f.Path] = true
	}
	seen := map[string]bool{}
	var out []handoff.FileStatus
	for _, list := range [][]handoff.FileStatus{st.Staged, st.Unstaged} {
		for _, fs := range list {
			if touched[fs.Path] || fs.From != "" && touched[fs.From] || seen[fs.Path] {
				continue
			}
			seen[fs.Path] = true
			out = append(out, fs)
		}
	}
	return out
}

// ReconcileWithGit reads what Reconcile needs from git (the files
// changed by commits on HEAD since the session started, when since is
// set, and which touched files git tracks) and reconciles files with st.
// On a git error it still reconciles, with what the GitState tells.
func ReconcileWithGit(ctx context.Context, files []handoff.FileTouched, st *handoff.GitState, cwd string, since time.Time) ([]handoff.FileTouched, error) {
	if st == nil || st.Root == "" {
		return Reconcile(files, st, cwd, nil), nil
	}
	g, err := reader(ctx, st.Root)
	if err != nil {
		return Reconcile(files, st, cwd, nil), err
	}
	n := newPathNorm(st.Root, cwd)
	var rels []string
	for _, f := range files {
		if rel, ok := n.rel(f.Path); ok {
			rels = append(rels, rel)
		}
	}
	hist := &History{}
	var firstErr error
	if st.Head != "" && !since.IsZero() {
		changed, _, err := changedSince(ctx, g, since)
		if err != nil {
			firstErr = err
		}
		hist.Committed = map[string]bool{}
		for _, p := range changed {
			hist.Committed[p] = true
		}
	}
	tracked, err := trackedPaths(ctx, g, rels)
	if err != nil {
		if firstErr == nil {
			firstErr = err
		}
	} else {
		hist.Tracked = tracked
	}
	return Reconcile(files, st, cwd, hist), firstErr
}

// ChangedSince lists the paths, relative to the root, changed by the
// commits on HEAD of the worktree at root whose committer date is at or
// after since (at most maxHistoryCommits of them, and MaxListed paths;
// truncated tells when there were more). A rename counts as its two paths.
func ChangedSince(ctx context.Context, root string, since time.Time) (paths []string, truncated bool, err error) {
	g, err := reader(ctx, root)
	if err != nil {
		return nil, false, err
	}
	return changedSince(ctx, g, since)
}

func changedSince(ctx context.Context, g git.Runner, since time.Time) (paths []string, truncated bool, err error) {
	out, err := g.Run(ctx, "log", "--since="+since.UTC().Truncate(time.Second).Format(time.RFC3339),
		"--max-count="+strconv.Itoa(maxHistoryCommits), "--no-renames", "--name-only", "--format=", "-z", "HEAD", "--")
	if err != nil {
		return nil, false, err
	}
	seen := map[string]bool{}
	for _, f := range bytes.Split(out, []byte{0}) {
		p := strings.Trim(string(f), "\n")
		if p == "" || seen[p] {
			continue
		}
		if len(paths) >= MaxListed {
			return paths, true, nil
		}
		seen[p] = true
		paths = append(paths, p)
	}
	return paths, false, nil
}

// Tracked returns those of paths (relative to root) that are in the index
// of the worktree at root, asking git about a hundred at a time.
func Tracked(ctx context.Context, root string, paths []string) (map[string]bool, error) {
	g, err := reader(ctx, root)
	if err != nil {
		return nil, err
	}
	return trackedPaths(ctx, g, paths)
}

func trackedPaths(ctx context.Context, g git.Runner, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	const batch = 100
	for i := 0; i < len(paths); i += batch {
		args := []string{"ls-files", "-z", "--cached", "--"}
		for _, p := range paths[i:min(i+batch, len(paths))] {
			args = append(args, ":(literal)"+p)
		}
		list, err := g.Run(ctx, args...)
		if err != nil {
			return nil, err
		}
		for _, f := range bytes.Split(list, []byte{0}) {
			if len(f) > 0 {
				out[string(f)] = true
			}
		}
	}
	return out, nil
}

// pathNorm makes touched paths relative to a worktree's root. The root
// git reports has its symbolic links resolved; the session's directory
// may not, so it is resolved too (only it: the touched paths are never
// looked up on disk), and an absolute path under the part of it that a
// link leads elsewhere is read as under where the link leads.
type pathNorm struct {
	root    string // slash-separated, clean
	cwd     string // the session's directory with its links resolved; "" if unknown
	linked  string // the start of the session's directory that is a link…
	linksTo string // …and where it leads
}

func newPathNorm(root, cwd string) *pathNorm {
	n := &pathNorm{root: path.Clean(filepath.ToSlash(root))}
	if cwd == "" {
		return n
	}
	n.cwd = path.Clean(filepath.ToSlash(cwd))
	if underSlashDir(n.cwd, n.root) {
		return n
	}
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return n
	}
	given := n.cwd
	n.cwd = path.Clean(filepath.ToSlash(real))
	// Drop the trailing elements the two spellings share: what is left
	// of each is the link and where it leads.
	from, to := given, n.cwd
	for from != "/" && to != "/" && path.Base(from) == path.Base(to) && from != to {
		from, to = path.Dir(from), path.Dir(to)
	}
	if from != to {
		n.linked, n.linksTo = from, to
	}
	return n
}

// rel returns p relative to the root, and whether it lies inside it.
func (n *pathNorm) rel(p string) (string, bool) {
	if p == "" || strings.ContainsRune(p, '\\') && filepath.Separator != '\\' {
		return "", false
	}
	p = filepath.ToSlash(p)
	var abs string
	switch {
	case path.IsAbs(p) || filepath.IsAbs(filepath.FromSlash(p)):
		abs = path.Clean(p)
		if !underSlashDir(abs, n.root) && n.linked != "" && underSlashDir(abs, n.linked) {
			abs = path.Join(n.linksTo, abs[len(n.linked):])
		}
	case n.cwd == "":
		abs = path.Join(n.root, p)
	default:
		abs = path.Join(n.cwd, p)
	}
	if abs == n.root || !underSlashDir(abs, n.root) {
		return "", false
	}
	if n.root == "/" {
		return abs[1:], true
	}
	return abs[len(n.root)+1:], true
}

// underSlashDir reports whether the clean slash path p is dir or lies
// under it.
func underSlashDir(p, dir string) bool {
	return p == dir || dir == "/" && strings.HasPrefix(p, "/") || strings.HasPrefix(p, dir+"/")
}

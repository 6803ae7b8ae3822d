package capture

import (
	"bytes"
	"context"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/transcript"
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
		if f.From != "" {
			touched[f.From] = true // renamed: the old path's deletion is the session's too
		}
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

// ReconcileShell adds to files, as Reconcile returns them, what the
// session's own shell commands renamed, removed and made, where git shows
// it now (issue 45): a rename git records (a staged rename, or the old
// path deleted and the new one untracked), a deleted tracked file (or
// every one under a removed directory), a new untracked file or one
// under a new untracked directory. A file already listed takes the
// effect's kind (renamed moves it to its new path, keeping its edits).
// Commands that failed are passed over; a subagent's command makes its
// files the subagent's. cwd is the session's working directory.
func ReconcileShell(files []handoff.FileTouched, cmds []handoff.Command, st *handoff.GitState, cwd string) []handoff.FileTouched {
	if st == nil || st.Root == "" || len(cmds) == 0 {
		return files
	}
	n := newPathNorm(st.Root, cwd)
	g := newGitFiles(st)
	out := append([]handoff.FileTouched(nil), files...)
	index := map[string]int{}
	for i, f := range out {
		index[f.Path] = i
	}
	put := func(f handoff.FileTouched, old string) {
		i, ok := index[old]
		if !ok {
			i, ok = index[f.Path]
		}
		if !ok {
			index[f.Path] = len(out)
			out = append(out, f)
			return
		}
		prev := &out[i]
		delete(index, prev.Path)
		prev.Path, prev.Action, prev.From, prev.Git = f.Path, f.Action, f.From, f.Git
		if prev.By == "" {
			prev.By = f.By
		}
		index[prev.Path] = i
	}
	for _, c := range cmds {
		if c.ExitCode != nil && *c.ExitCode != 0 || c.Status == "failed" || c.Status == "denied" {
			continue
		}
		for _, e := range transcript.ShellEffects(c.Command) {
			path, inside := n.rel(e.Path)
			if !inside {
				continue
			}
			switch e.Kind {
			case transcript.EffectRenamed:
				from, ok := n.rel(e.From)
				if !ok {
					continue
				}
				for _, to := range candidates(path, from, e.IntoDir) {
					if git := g.renamed(from, to); git != "" {
						put(handoff.FileTouched{Path: to, Action: transcript.EffectRenamed, From: from, Git: git, By: c.By}, from)
						break
					}
				}
			case transcript.EffectDeleted:
				for _, p := range g.deletedUnder(path) {
					put(handoff.FileTouched{Path: p, Action: transcript.EffectDeleted, Git: GitDirty, By: c.By}, p)
				}
			case transcript.EffectCreated:
				for _, to := range candidates(path, e.From, e.IntoDir) {
					if slices.Contains(st.Untracked, to+"/") {
						to += "/" // a new directory, as git names it
					}
					if g.untracked(to) {
						if _, listed := index[to]; !listed {
							put(handoff.FileTouched{Path: to, Action: transcript.EffectCreated, Git: GitUntracked, By: c.By}, to)
						}
						break
					}
				}
			}
		}
	}
	// A new directory is listed only when none of its files is.
	return slices.DeleteFunc(out, func(f handoff.FileTouched) bool {
		return strings.HasSuffix(f.Path, "/") && slices.ContainsFunc(out, func(o handoff.FileTouched) bool {
			return o.Path != f.Path && strings.HasPrefix(o.Path, f.Path)
		})
	})
}

// candidates are the paths a move or copy to path may have made: path
// itself, and with two operands path/BASE, where path was a directory.
func candidates(path, from string, intoDir bool) []string {
	if !intoDir || from == "" {
		return []string{path}
	}
	return []string{path, path + "/" + pathBase(from)}
}

func pathBase(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// gitFiles is a GitState's changes, for looking paths up.
type gitFiles struct {
	st      *handoff.GitState
	deleted map[string]bool   // deleted in the index or the worktree
	renames map[string]string // staged renames, new path to old
}

func newGitFiles(st *handoff.GitState) *gitFiles {
	g := &gitFiles{st: st, deleted: map[string]bool{}, renames: map[string]string{}}
	for _, list := range [][]handoff.FileStatus{st.Staged, st.Unstaged} {
		for _, fs := range list {
			switch fs.Status {
			case "D":
				g.deleted[fs.Path] = true
			case "R":
				g.renames[fs.Path] = fs.From
			}
		}
	}
	return g
}

// renamed is how the rename from → to stands in git ("" when git does
// not show it).
func (g *gitFiles) renamed(from, to string) string {
	switch {
	case g.renames[to] == from:
		return GitDirty
	case g.deleted[from] && g.untracked(to):
		return GitUntracked
	case g.deleted[from] && slices.ContainsFunc(g.st.Staged, func(fs handoff.FileStatus) bool { return fs.Path == to && fs.Status == "A" }):
		return GitDirty
	}
	return ""
}

// deletedUnder lists p, when git shows it deleted, or the deleted paths
// under the directory p.
func (g *gitFiles) deletedUnder(p string) []string {
	if g.deleted[p] {
		return []string{p}
	}
	var out []string
	for d := range g.deleted {
		if strings.HasPrefix(d, p+"/") {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// untracked says whether git shows p as a new file, or as a new
// directory ("p/", or under one).
func (g *gitFiles) untracked(p string) bool {
	return isUntracked(p, g.st.Untracked) || slices.Contains(g.st.Untracked, p+"/")
}

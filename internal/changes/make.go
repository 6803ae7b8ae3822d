package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Bounds on the untracked files a patch carries.
const (
	// MaxUntracked bounds how many untracked files go into a patch; the
	// rest are left out and listed.
	MaxUntracked = 200
	// MaxUntrackedSize bounds one untracked file; a larger one is left
	// out and listed.
	MaxUntrackedSize = 1 << 20
	// maxIndex bounds the index file copied to add the untracked files.
	maxIndex = 256 << 20
)

// Made is a patch of a worktree's uncommitted changes, kept in a
// temporary file (removed from its directory at once where the system
// allows it) and read through Open: its memory does not grow with the
// patch. Close releases it.
type Made struct {
	Summary *Summary
	// Size is the patch's size in bytes.
	Size int64
	// Untracked are the untracked files the patch carries (as created
	// files); LeftOut the untracked files it does not, each with why.
	Untracked []string
	LeftOut   []string

	file    *os.File
	path    string // the file's name, when it could not be removed at once
	changed int    // the files the diff names
}

// Open returns a reader of the whole patch; several may read at once.
func (m *Made) Open() (io.ReadCloser, error) {
	if m == nil || m.file == nil {
		return nil, errors.New("changes: no patch")
	}
	return io.NopCloser(io.NewSectionReader(m.file, 0, m.Size)), nil
}

// Close releases the patch's file.
func (m *Made) Close() error {
	if m == nil || m.file == nil {
		return nil
	}
	err := m.file.Close()
	if m.path != "" {
		err = errors.Join(err, os.Remove(m.path))
	}
	m.file = nil
	return err
}

// ErrTooLarge is matched (errors.Is) by the error of Make when the
// uncommitted changes make a patch over MaxPatch bytes.
var ErrTooLarge = errors.New("the changes are too large to carry")

// tooLarge is that error, saying the limit and how many files changed.
type tooLarge struct{ files int }

func (e tooLarge) Error() string {
	return fmt.Sprintf("the changes are over %d MiB (%d changed file(s)), the most a handoff carries", MaxPatch>>20, e.files)
}

func (e tooLarge) Is(target error) bool { return target == ErrTooLarge }

// ErrNoCommit is wrapped when the worktree has no commit to make a patch
// against.
var ErrNoCommit = errors.New("no commit yet to carry changes against")

// reader returns the git runner for the worktree at dir, which may be
// hostile: no call through it runs a program the repository names.
func reader(ctx context.Context, dir string) (git.Runner, error) {
	if g, _, quick := (git.Runner{Dir: dir}).UntrustedQuick(); quick {
		return g, nil
	}
	return git.Runner{Dir: dir}.Untrusted(ctx)
}

// Make returns the uncommitted changes of the worktree whose top
// directory is root, as a patch against HEAD: staged and unstaged changes
// and untracked files that are not ignored (bounded: MaxUntracked files
// of at most MaxUntrackedSize), binary-safe. Submodules are left as they
// are. The repository's index is not changed: untracked files are added,
// as intent to add, to a copy of it. A patch Check would refuse (a link,
// a file made executable) is an error naming the file; changes whose
// patch would pass MaxPatch, an error matching ErrTooLarge that says so.
// Make returns nil when there is nothing to carry. The patch is streamed
// to a temporary file, never held: the caller reads it with Made.Open and
// releases it with Made.Close.
func Make(ctx context.Context, root string) (*Made, error) {
	g, err := reader(ctx, root)
	if err != nil {
		return nil, err
	}
	out, err := g.Run(ctx, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, ErrNoCommit)
	}
	base := strings.TrimSpace(string(out))
	branch, _ := g.Run(ctx, "symbolic-ref", "-q", "--short", "HEAD")
	tmp, err := os.MkdirTemp("", "session-handoff-changes-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if err := copyIndex(ctx, g, index); err != nil {
		return nil, err
	}
	m := &Made{}
	if err := m.untracked(ctx, g, root); err != nil {
		return nil, err
	}
	g.Env = append(g.Env, "GIT_INDEX_FILE="+index, "GIT_LITERAL_PATHSPECS=1")
	if len(m.Untracked) > 0 {
		if _, err := g.Run(ctx, append([]string{"add", "--intent-to-add", "--"}, m.Untracked...)...); err != nil {
			return nil, fmt.Errorf("untracked files: %w", err)
		}
	}
	paths, err := m.ownWork(ctx, g)
	if err != nil || paths == nil {
		return nil, err
	}
	var pre bytes.Buffer
	fmt.Fprintf(&pre, "%s\n# base %s\n", header, base)
	if br := strings.TrimSpace(string(branch)); br != "" {
		fmt.Fprintf(&pre, "# branch %s\n", br)
	}
	for _, l := range m.LeftOut {
		fmt.Fprintf(&pre, "# left out: %s\n", untrusted.OneLine(l, 300))
	}
	if err := m.write(ctx, g, pre.Bytes(), paths); err != nil || m.file == nil {
		return nil, err
	}
	r, err := m.Open()
	if err == nil {
		m.Summary, err = CheckReader(r)
	}
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("the changes cannot travel: %w", err)
	}
	return m, nil
}

// write writes the patch, the preamble pre then git's diff of paths
// against HEAD, to a temporary file of m's, streamed; m.file stays nil
// when the diff is empty.
func (m *Made) write(ctx context.Context, g git.Runner, pre []byte, paths []string) error {
	f, err := os.CreateTemp("", "session-handoff-changes-*.patch")
	if err != nil {
		return err
	}
	m.file, m.path = f, f.Name()
	if os.Remove(f.Name()) == nil {
		m.path = ""
	}
	fail := func(err error) error {
		m.Close()
		return err
	}
	if _, err := f.Write(pre); err != nil {
		return fail(err)
	}
	g.Limit = MaxPatch - len(pre)
	n, err := g.RunTo(ctx, f, append([]string{"diff", "--binary", "--full-index", "--no-color", "--no-renames", "--no-relative",
		"--ignore-submodules=all", "--src-prefix=a/", "--dst-prefix=b/", "HEAD", "--"}, paths...)...)
	switch {
	case errors.Is(err, git.ErrOutputLimit):
		return fail(tooLarge{files: m.changed})
	case err != nil:
		return fail(fmt.Errorf("diff: %w", err))
	case n == 0:
		return fail(nil)
	}
	m.Size = int64(len(pre)) + n
	return nil
}

// ownWork returns the pathspecs of the diff: none (every change) when no
// file the agents' integration manages changed, else the changed files
// but those (agents.IsSettingsFile: .claude/settings.json holds this
// machine's path to the program; it is integrate's, never work in
// progress), which LeftOut names; nil when nothing else changed.
func (m *Made) ownWork(ctx context.Context, g git.Runner) ([]string, error) {
	out, err := g.Run(ctx, "diff", "--name-only", "-z", "--no-renames", "--no-relative", "--ignore-submodules=all", "HEAD", "--")
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	var kept []string
	skipped := false
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			m.changed++
		}
		switch {
		case p == "":
		case agents.IsSettingsFile(p):
			m.LeftOut = append(m.LeftOut, p+" (the agent integration's own settings)")
			skipped = true
		default:
			kept = append(kept, p)
		}
	}
	if !skipped {
		return []string{}, nil
	}
	return kept, nil
}

// copyIndex copies the repository's index to dst, so that adding to it
// leaves the user's own alone. A repository without one gets none.
func copyIndex(ctx context.Context, g git.Runner, dst string) error {
	out, err := g.Run(ctx, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return fmt.Errorf("find the index: %w", err)
	}
	src, err := os.Open(strings.TrimSpace(string(out)))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer src.Close()
	if info, err := src.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() > maxIndex {
		return fmt.Errorf("the index is not a regular file of at most %d bytes", maxIndex)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, io.LimitReader(src, maxIndex)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// untracked lists the untracked files that are not ignored and sorts them
// into those the patch carries and those it leaves out.
func (m *Made) untracked(ctx context.Context, g git.Runner, root string) error {
	out, err := g.Run(ctx, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return fmt.Errorf("untracked files: %w", err)
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case err != nil:
			m.LeftOut = append(m.LeftOut, p+" (unreadable)")
		case !info.Mode().IsRegular():
			m.LeftOut = append(m.LeftOut, p+" (not a regular file)")
		case info.Mode()&0o111 != 0:
			m.LeftOut = append(m.LeftOut, p+" (executable)")
		case info.Size() > MaxUntrackedSize:
			m.LeftOut = append(m.LeftOut, fmt.Sprintf("%s (over %d bytes)", p, MaxUntrackedSize))
		case len(m.Untracked) >= MaxUntracked:
			m.LeftOut = append(m.LeftOut, fmt.Sprintf("%s (over %d untracked files)", p, MaxUntracked))
		default:
			m.Untracked = append(m.Untracked, p)
		}
	}
	return nil
}

// ErrSecrets is wrapped when the redactor finds a secret in a patch: it
// does not travel, since code is never altered to hide one.
var ErrSecrets = errors.New("the uncommitted changes hold secrets")

// Secrets scans the patch with r and returns what it found; the error
// wraps ErrSecrets, naming how many of which kinds, when it found any.
func (m *Made) Secrets(r *redact.Redactor) (*redact.Report, error) {
	rep := &redact.Report{}
	in, err := m.Open()
	if err != nil {
		return rep, err
	}
	defer in.Close()
	if err := r.Copy(io.Discard, in, Name, rep); err != nil {
		return rep, err
	}
	if n := rep.Total(); n > 0 {
		var kinds []string
		for _, k := range rep.Redactions() {
			kinds = append(kinds, k.Kind)
		}
		return rep, fmt.Errorf("%w: %d (%s)", ErrSecrets, n, strings.Join(kinds, ", "))
	}
	return rep, nil
}

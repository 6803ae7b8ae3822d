package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Local state of a remote, under the data directory:
//
//	remotes/<name>/            a git repository whose origin is the remote;
//	                           its work tree holds only what one command
//	                           checks out for a moment
//	remotes/<name>/.git/session-handoff/pending    sends not yet pushed
//	remotes/<name>/.git/session-handoff/outbox/    their bundles
//	remotes/<name>.lock        held by every command that uses the clone
const (
	remotesDir = "remotes"
	stateDir   = "session-handoff"
	outboxDir  = "outbox"
)

// clone is the local repository of one remote. Every method runs git with
// a time limit (git.Runner.Run): never prompting, credentials removed from
// errors.
type clone struct {
	remote Remote
	dir    string
	git    git.Runner // for local work
	net    git.Runner // for fetch, ls-remote and push: a longer time limit
	lock   *safefile.Lock
	// fresh: the clone was made by this command, and holds nothing yet.
	fresh bool
	// seen is what an ls-remote this command made answered, for the next
	// sync of the same refs (nil: none).
	seen refState
	// date is the date of every commit this command makes, so that the
	// same tree makes the same commit (one bundle sent to two recipients
	// alone: one commit for both refs), whatever second each is made in.
	date string
	// trees are the top-level entries of commits this command listed, by
	// commit (see remember).
	trees map[string]map[string]string
	// hooks is an empty directory used as core.hooksPath, so that no hook
	// (the user's global ones included) runs in this repository.
	hooks string
}

// checkoutHook, set by tests only, sees every list of paths written into
// a work tree or read from git's objects.
var checkoutHook func(paths []string)

// readHook, set by tests only, wraps every bundle file a receive reads
// from git's objects.
var readHook func(io.ReadSeekCloser) io.ReadSeekCloser

// clonePath is where the clone of remote name lives in the data directory.
func clonePath(dataDir, name string) string { return filepath.Join(dataDir, remotesDir, name) }

// openClone locks the clone of r in dataDir and creates it if needed. The
// caller must call close.
func openClone(ctx context.Context, dataDir string, r Remote) (*clone, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	base := filepath.Join(dataDir, remotesDir)
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, safefile.Wrap("create", base, err)
	}
	lock, err := safefile.LockFile(filepath.Join(base, r.Name+".lock"))
	if err != nil {
		return nil, fmt.Errorf("lock remote %s: %w", r.Name, err)
	}
	c := &clone{remote: r, dir: clonePath(dataDir, r.Name), lock: lock, date: fmt.Sprintf("@%d +0000", time.Now().Unix())}
	c.git = git.Runner{Dir: c.dir, Env: quietEnv}
	c.net = git.Runner{Dir: c.dir, Timeout: git.NetworkTimeout, Env: quietEnv}
	c.hooks = filepath.Join(c.dir, ".git", stateDir, "no-hooks")
	if err := c.ensure(ctx); err != nil {
		lock.Unlock()
		return nil, err
	}
	if err := c.clearStaleGitLocks(); err != nil {
		lock.Unlock()
		return nil, err
	}
	return c, nil
}

func (c *clone) close() { c.lock.Unlock() }

// clearStaleGitLocks removes the lock files a git command killed in the
// private clone leaves behind (index.lock, HEAD.lock, a ref's lock).
// Every git command in the clone runs while we hold the remote's lock, so
// any such file found now belongs to a process that is gone; left in
// place it would make every later receive fail.
func (c *clone) clearStaleGitLocks() error {
	gitDir := filepath.Join(c.dir, ".git")
	stale := []string{}
	for _, name := range []string{"index.lock", "HEAD.lock", "shallow.lock", "config.lock", "packed-refs.lock"} {
		stale = append(stale, filepath.Join(gitDir, name))
	}
	err := filepath.WalkDir(filepath.Join(gitDir, "refs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".lock") {
			stale = append(stale, path)
		}
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("look for stale git locks in %s: %w", c.dir, err)
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove a stale git lock in %s: %w", c.dir, err)
		}
	}
	return nil
}

// state is a path inside the clone's private state directory.
func (c *clone) state(name ...string) string {
	return filepath.Join(append([]string{c.dir, ".git", stateDir}, name...)...)
}

// ensure makes the repository if it is missing (built in a temporary
// directory and renamed into place, so a crash leaves none or a whole
// one) and points origin at the configured URL.
func (c *clone) ensure(ctx context.Context) error {
	info, err := os.Lstat(filepath.Join(c.dir, ".git"))
	switch {
	case err == nil && info.IsDir():
	case err == nil:
		return fmt.Errorf("%s: .git is not a directory", c.dir)
	case errors.Is(err, fs.ErrNotExist):
		if err := c.create(ctx); err != nil {
			return err
		}
	default:
		return err
	}
	if err := os.MkdirAll(c.hooks, 0o700); err != nil {
		return err
	}
	// Point origin at the configured URL, calling git only when it changed.
	urlFile := c.state("url")
	if old, err := os.ReadFile(urlFile); err == nil && string(old) == c.remote.URL {
		return nil
	}
	if _, err := c.git.Run(ctx, "config", "remote.origin.url", c.remote.URL); err != nil {
		return err
	}
	return safefile.WriteFile(urlFile, []byte(c.remote.URL), 0o600)
}

func (c *clone) create(ctx context.Context) error {
	if info, err := os.Lstat(c.dir); err == nil && !info.IsDir() {
		return fmt.Errorf("%s is not a directory", c.dir)
	} else if err == nil {
		// A directory without .git: not ours to keep (a crash between
		// mkdir and rename cannot leave it, but a user might).
		return fmt.Errorf("%s exists but is not a git repository", c.dir)
	}
	// Under the lock, any temporary clone is a dead one's.
	if old, _ := filepath.Glob(filepath.Join(filepath.Dir(c.dir), ".tmp-"+c.remote.Name+"-*")); len(old) > 0 {
		for _, o := range old {
			os.RemoveAll(o)
		}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(c.dir), ".tmp-"+c.remote.Name+"-")
	if err != nil {
		return fmt.Errorf("create clone: %w", err)
	}
	defer os.RemoveAll(tmp)
	g := git.Runner{Dir: tmp}
	// No template: its sample hooks never run here (core.hooksPath is
	// an empty directory), and each is a file to write.
	if _, err := g.Run(ctx, "init", "--quiet", "--template="); err != nil {
		return err
	}
	hooks := filepath.Join(tmp, ".git", stateDir, "no-hooks")
	if err := os.MkdirAll(hooks, 0o700); err != nil {
		return err
	}
	settings := [][2]string{
		{"remote.origin.url", c.remote.URL},
		// Commits made here say nothing about the user.
		{"user.name", "session-handoff"},
		{"user.email", "session-handoff@invalid"},
		{"commit.gpgSign", "false"},
		{"core.hooksPath", filepath.Join(c.dir, ".git", stateDir, "no-hooks")},
		// Bytes are bytes: no line-end conversion, no symbolic links
		// made by a checkout (a link in the remote becomes a small file).
		{"core.autocrlf", "false"},
		{"core.symlinks", "false"},
		{"gc.autoDetach", "false"},
	}
	if os.Getenv("GIT_SSH_COMMAND") == "" && os.Getenv("GIT_SSH") == "" {
		if out, _ := g.Run(ctx, "config", "--get", "core.sshCommand"); len(bytes.TrimSpace(out)) == 0 {
			// ssh must fail rather than ask on the terminal.
			settings = append(settings, [2]string{"core.sshCommand", "ssh -o BatchMode=yes"})
		}
	}
	// Written here rather than by one git config each: a new clone costs
	// two git processes, not thirteen.
	if err := appendConfig(filepath.Join(tmp, ".git", "config"), settings); err != nil {
		return fmt.Errorf("create clone: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".git", stateDir, "url"), []byte(c.remote.URL), 0o600); err != nil {
		return fmt.Errorf("create clone: %w", err)
	}
	if err := os.Rename(tmp, c.dir); err != nil {
		return fmt.Errorf("create clone: %w", err)
	}
	c.fresh = true
	return safefile.SyncDir(filepath.Dir(c.dir))
}

// appendConfig appends settings ("section.key" or "section.sub.key", and
// a value) to the git configuration file at path, each value quoted as
// git-config(1) reads it back.
func appendConfig(path string, settings [][2]string) error {
	var b strings.Builder
	for _, kv := range settings {
		section, key, _ := strings.Cut(kv[0], ".")
		if sub, k, ok := strings.Cut(key, "."); ok {
			fmt.Fprintf(&b, "[%s %s]\n", section, quoteConfig(sub))
			key = k
		} else {
			fmt.Fprintf(&b, "[%s]\n", section)
		}
		fmt.Fprintf(&b, "\t%s = %s\n", key, quoteConfig(kv[1]))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// quoteConfig quotes a value (or a subsection name) of a git
// configuration file: in double quotes, with backslash, double quote,
// newline and tab escaped.
func quoteConfig(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(v) + `"`
}

// errNotInbox refuses a branch whose marker file is not ours, or of
// another version.
func (c *clone) errNotInbox() error {
	return fmt.Errorf("%s: branch %s is not a session-handoff inbox of layout 1 or 2 (its file %s says otherwise): if a newer session-handoff made it, upgrade", c.remote.Name, c.remote.branch(), markerFile)
}

// entry is one line of git ls-tree -l.
type entry struct {
	mode, typ, object string
	size              int64 // -1 for trees and submodules
	path              string
}

// regular reports whether the entry is a plain file (not a link, tree or
// submodule).
func (e entry) regular() bool { return e.typ == "blob" && (e.mode == "100644" || e.mode == "100755") }

// unreadable says why a bundle entry of an inbox is never read, "" when it
// may be: a link (never followed), anything but a plain file, or over
// limit bytes. Receive and inbox judge entries by it alike.
func (e entry) unreadable(limit int64) string {
	switch {
	case e.mode == "120000":
		return "a symbolic link: never followed"
	case !e.regular():
		return fmt.Sprintf("not a regular file (git mode %s)", e.mode)
	case e.size > limit:
		return fmt.Sprintf("%d bytes: over the limit of %d bytes (--max-input)", e.size, limit)
	}
	return ""
}

// list runs ls-tree on commit for the given paths; recursive descends
// into subdirectories.
func (c *clone) list(ctx context.Context, commit string, recursive bool, paths ...string) ([]entry, error) {
	if commit == "" {
		return nil, nil
	}
	args := []string{"ls-tree", "-l", "-z", "--full-tree"}
	if recursive {
		args = append(args, "-r")
	}
	args = append(args, commit, "--")
	args = append(args, paths...)
	g := c.git
	g.Limit = treeLimit
	out, err := g.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	return parseLsTree(out)
}

func parseLsTree(out []byte) ([]entry, error) {
	var es []entry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 4 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %s", untrusted.Quote(string(rec), 80))
		}
		e := entry{mode: f[0], typ: f[1], object: f[2], size: -1, path: string(path)}
		if f[3] != "-" {
			n, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("git ls-tree: bad size %s", untrusted.Quote(f[3], 32))
			}
			e.size = n
		}
		es = append(es, e)
	}
	return es, nil
}

// checkout writes the given regular files of commit into the work tree,
// after clearing what an earlier command left there, and returns a
// function that clears them again. Only the listed paths are written:
// nothing else of the remote reaches the disk outside git's objects.
func (c *clone) checkout(ctx context.Context, commit string, paths []string) (func(), error) {
	if checkoutHook != nil {
		checkoutHook(paths)
	}
	clear := func() {
		for _, d := range []string{toDir, markerFile} {
			os.RemoveAll(filepath.Join(c.dir, d))
		}
	}
	clear()
	if len(paths) == 0 {
		return clear, nil
	}
	var spec bytes.Buffer
	for _, p := range paths {
		spec.WriteString(":(literal)" + p + "\x00")
	}
	specFile := c.state("pathspec")
	if err := os.WriteFile(specFile, spec.Bytes(), 0o600); err != nil {
		return clear, err
	}
	defer os.Remove(specFile)
	// The index is kept empty between commands, so no .gitattributes of
	// the remote can change the bytes written.
	if _, err := c.git.Run(ctx, "restore", "--source="+commit, "--worktree", "--pathspec-from-file="+specFile, "--pathspec-file-nul"); err != nil {
		return clear, err
	}
	return clear, nil
}

// openChecked opens a file checkout wrote, refusing anything but a
// regular file of at most limit bytes that is not a symbolic link.
func (c *clone) openChecked(path string, limit int64) (*os.File, error) {
	full := filepath.Join(c.dir, filepath.FromSlash(path))
	// Every directory on the way must be a real directory of the clone.
	dir := c.dir
	parts := strings.Split(path, "/")
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		info, err := os.Lstat(dir)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("%s: not a directory (a symbolic link is never followed)", p)
		}
	}
	before, err := os.Lstat(full)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, errors.New("not a regular file (a symbolic link is never followed)")
	}
	if before.Size() > limit {
		return nil, fmt.Errorf("over %d bytes", limit)
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, err
	}
	after, err := f.Stat()
	if err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, errors.New("changed while being opened")
	}
	return f, nil
}

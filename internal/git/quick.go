package git

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// maxQuickConfig bounds each configuration file UntrustedQuick reads; a
// larger one is left to git.
const maxQuickConfig = 1 << 20

// quickEnvKept are the GIT_ variables UntrustedQuick understands (the
// configuration files they choose are read as git would) or knows to be
// beside the point: who commits, which editor, how a transport connects,
// what is traced, and what this package sets itself; quickEnvKeptPrefixes
// are families of the same. Any other GIT_ variable left in a call's
// environment (GIT_CEILING_DIRECTORIES, GIT_DISCOVERY_ACROSS_FILESYSTEM,
// one added in a later git…) might change which repository or
// configuration git reads: with one, git answers.
var quickEnvKept = []string{
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
	"GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_ASKPASS", "GIT_REFLOG_ACTION", "GIT_PROTOCOL_FROM_USER",
	"GIT_OPTIONAL_LOCKS", "GIT_TERMINAL_PROMPT", "GIT_NO_LAZY_FETCH", "GIT_ALLOW_PROTOCOL",
}

var quickEnvKeptPrefixes = []string{"GIT_AUTHOR_", "GIT_COMMITTER_", "GIT_SSL_", "GIT_SSH", "GIT_HTTP_", "GIT_CURL_", "GIT_TRACE", "GIT_PS1_", "GIT_LFS_"}

// quickEnvKnown reports whether UntrustedQuick may go on with the GIT_
// variable name in the environment.
func quickEnvKnown(name string) bool {
	if slices.Contains(quickEnvKept, name) {
		return true
	}
	for _, p := range quickEnvKeptPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// UntrustedQuick is Untrusted and `rev-parse --show-toplevel` without
// starting git, for the worktree most reads meet: one whose configuration
// files define no filter, diff or merge driver and no hook. It returns the reader (the same
// Runner Untrusted returns when it lists no driver) and the top directory
// of the worktree holding r.Dir, or ok false whenever the files cannot
// promise that; the caller then asks git (UntrustedBeside), which is
// never less safe. Every session-start hook, render and save starts with
// this read, and one git round trip is most of their time.
//
// What it reads, each as git does (git(1) "ENVIRONMENT", git-config(1)
// "FILES", gitrepository-layout(5)), and where it gives up instead:
//
//   - The repository: r.Dir resolved on disk as git -C resolves it (each
//     link followed before a ".." after it), and its parents, up to the
//     first holding a .git directory: a plain directory, with HEAD,
//     objects and refs and no commondir file. It gives up at a .git that
//     is a file ("gitdir: PATH", as in a linked worktree or a submodule),
//     a link or anything else, at a commondir file, at a directory with
//     a HEAD of its own (perhaps a git directory: a bare repository, r.Dir
//     inside .git), at a directory on another file system (git stops
//     there), and at a worktree or .git another user owns (git's
//     safe.directory check). So every path it opens is a physical one, or
//     one the kernel resolves for it exactly as for git; a path whose text
//     could say otherwise than the disk ("link/..") is never cleaned.
//   - The configuration git would read: the system file (/etc/gitconfig,
//     when the git on PATH is the distribution's /usr/bin/git, the only
//     build whose system file is known without asking it; any other git
//     is asked), GIT_CONFIG_SYSTEM, GIT_CONFIG_NOSYSTEM, the global files
//     ($XDG_CONFIG_HOME/git/config or $HOME/.config/git/config, and
//     $HOME/.gitconfig, joined as text as git joins them; no HOME, and
//     git answers) or GIT_CONFIG_GLOBAL, the repository's config and
//     config.worktree. Any other GIT_ variable in the environment
//     (GIT_CEILING_DIRECTORIES, say) makes it give up.
//   - In those files, read as bytes folded to lower case with blanks
//     removed, it gives up at any "filter", any "diff" followed by a
//     quote or a dot (a [diff "driver"] or [diff.driver] section; a plain
//     [diff] section defines no driver), any "merge" or "hook" followed
//     by a quote or a dot (a merge driver, a configured hook; a plain
//     [merge] section defines none), any "include" (include.path and
//     includeIf name more files, on conditions), any "worktree"
//     (core.worktree moves the top directory; extensions.worktreeConfig),
//     and any "bare" not followed by "=false". That is more than git
//     would take for a driver (a word in a comment or a value counts) and
//     never less: a section name is letters, digits, "-" and "." only,
//     compared without case, so a driver's section always holds one of
//     those spellings.
//
// Reading the files runs nothing; with no driver defined there is none to
// switch off, and the guard is fixedGuard, as Untrusted's would be.
func (r Runner) UntrustedQuick() (u Runner, top string, ok bool) {
	if runtime.GOOS != "linux" {
		return Runner{}, "", false
	}
	env := quickEnv(r.Env)
	for name := range env {
		if strings.HasPrefix(name, "GIT_") && !quickEnvKnown(name) {
			return Runner{}, "", false
		}
	}
	files, ok := configFiles(env)
	if !ok {
		return Runner{}, "", false
	}
	top, gitDir, ok := discover(r.Dir)
	if !ok {
		return Runner{}, "", false
	}
	files = append(files, filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree"))
	for _, f := range files {
		if !configDefinesNothing(f) {
			return Runner{}, "", false
		}
	}
	r.untrusted = true
	r.guard = slices.Clone(fixedGuard)
	r.quick = &quickFiles{gitDir: gitDir, configs: files}
	return r, top, true
}

// quickFiles are what UntrustedQuick found: the git directory and every
// configuration file git reads for the worktree, in git's order.
type quickFiles struct {
	gitDir  string
	configs []string
}

// quickEnv is the environment a call of r would have, as a map: ours
// without the variables cleanEnv drops, then r.Env.
func quickEnv(extra []string) map[string]string {
	env := map[string]string{}
	for _, kv := range append(cleanEnv(os.Environ()), extra...) {
		name, value, _ := strings.Cut(kv, "=")
		env[name] = value
	}
	return env
}

// configFiles are the system and global configuration files git reads
// in env (those that do not exist are skipped when read), or ok false
// when the system file cannot be known.
func configFiles(env map[string]string) (files []string, ok bool) {
	if !envTrue(env["GIT_CONFIG_NOSYSTEM"]) {
		if f, set := env["GIT_CONFIG_SYSTEM"]; set {
			if f == "" {
				return nil, false
			}
			files = append(files, f)
		} else {
			path, err := exec.LookPath("git")
			if err != nil {
				return nil, false
			}
			if real, err := filepath.EvalSymlinks(path); err != nil || real != "/usr/bin/git" {
				return nil, false
			}
			files = append(files, "/etc/gitconfig")
		}
	}
	if f, set := env["GIT_CONFIG_GLOBAL"]; set {
		if !filepath.IsAbs(f) {
			return nil, false // empty, or relative (see below)
		}
		return append(files, f), true
	}
	// Joined as git joins them, by text, without cleaning: the kernel then
	// resolves "link/.." in HOME as it does for git. Without a HOME git's
	// choice is its own.
	home := env["HOME"]
	if home == "" {
		return nil, false
	}
	if xdg := env["XDG_CONFIG_HOME"]; xdg != "" {
		files = append(files, xdg+"/git/config")
	} else {
		files = append(files, home+"/.config/git/config")
	}
	files = append(files, home+"/.gitconfig")
	// git -C reads a relative path from the worktree, not from here.
	for _, f := range files {
		if !filepath.IsAbs(f) {
			return nil, false
		}
	}
	return files, true
}

// envTrue is git's reading of a boolean variable as true (git-config(1)
// "true": yes, on, true, 1); anything else, which git might read
// otherwise, counts as false here, so that the system file is read.
func envTrue(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// discover finds the worktree holding dir as git would: its top directory
// (physical) and its git directory, or ok false (see UntrustedQuick).
//
// Every path is resolved on disk, never by its text: git -C dir changes
// into dir as the kernel resolves it, where "link/.." is the parent of
// wherever link points, and filepath.Clean's "link/.." would name another
// directory. dir is resolved by filepath.EvalSymlinks, which follows each
// link before the ".." after it, from a physical start; the walk up goes
// from that physical path, whose parents are physical too. The git
// directory is a plain directory named .git: a .git file ("gitdir:"), a
// .git that is a link, and a commondir file name another directory by a
// path, and there git answers.
func discover(dir string) (top, gitDir string, ok bool) {
	abs := dir
	if !filepath.IsAbs(dir) {
		wd, err := os.Getwd()
		if err != nil {
			return "", "", false
		}
		abs = wd + string(filepath.Separator) + dir // not Join: it would clean the text
	}
	phys, err := filepath.EvalSymlinks(abs)
	if err != nil || !filepath.IsAbs(phys) {
		return "", "", false
	}
	dev, ok := deviceOf(phys)
	if !ok {
		return "", "", false
	}
	for d := phys; ; d = filepath.Dir(d) {
		if here, ok := deviceOf(d); !ok || here != dev {
			return "", "", false
		}
		dotGit := filepath.Join(d, ".git")
		info, err := os.Lstat(dotGit)
		switch {
		case err == nil && info.IsDir():
			if !absent(filepath.Join(dotGit, "commondir")) || !isGitDir(dotGit) || within(phys, dotGit) {
				return "", "", false
			}
			// Git reads a repository someone else owns only where
			// safe.directory says so (git-config(1) "safe.directory"):
			// that, git decides.
			if !ownedByUs(d) || !ownedByUs(dotGit) {
				return "", "", false
			}
			return d, dotGit, true
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			// A .git file or link, or something else.
			return "", "", false
		case !absent(filepath.Join(d, "HEAD")):
			// Perhaps a git directory itself (a bare repository, dir
			// inside .git, or one whose commondir names its objects).
			return "", "", false
		}
		if d == filepath.Dir(d) {
			return "", "", false
		}
	}
}

// absent reports whether nothing at all is at path (not even a broken
// link).
func absent(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// isGitDir is what git asks of a git directory without a commondir file
// (setup.c is_git_directory): HEAD, and objects and refs directories.
func isGitDir(gitDir string) bool {
	head, err := os.Stat(filepath.Join(gitDir, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if info, err := os.Stat(filepath.Join(gitDir, sub)); err != nil || !info.IsDir() {
			return false
		}
	}
	return true
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// readSmall reads a regular file of at most limit bytes. A named pipe in
// its place fails at once instead of blocking the read (git's own read of
// it would wait until the caller's timeout).
func readSmall(path string, limit int64) ([]byte, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|safefile.OpenNonBlock, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	data, err := safefile.ReadAllLimit(f, limit)
	return data, err == nil
}

// configDefinesNothing reports whether the configuration file at path,
// which may not exist, certainly defines no filter, diff or merge driver,
// no configured hook, no
// include, no worktree and no bare repository (see UntrustedQuick).
func configDefinesNothing(path string) bool {
	if path == os.DevNull {
		return true
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return true
	}
	data, ok := readSmall(path, maxQuickConfig)
	return ok && configTextDefinesNothing(data)
}

// configTextDefinesNothing is configDefinesNothing's test of a file's
// bytes.
func configTextDefinesNothing(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return false
	}
	folded := make([]byte, 0, len(data))
	for _, c := range data {
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		folded = append(folded, c)
	}
	for _, word := range []string{"filter", "include", "worktree", `diff"`, "diff.", `merge"`, "merge.", `hook"`, "hook."} {
		if bytes.Contains(folded, []byte(word)) {
			return false
		}
	}
	for rest := folded; ; {
		i := bytes.Index(rest, []byte("bare"))
		if i < 0 {
			return true
		}
		rest = rest[i+len("bare"):]
		if !bytes.HasPrefix(rest, []byte("=false")) {
			return false
		}
	}
}

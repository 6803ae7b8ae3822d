package git

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// The quick read against layouts where a path's text and the file system
// disagree: a symbolic link followed by "..", in the worktree path, a .git
// file's gitdir or a commondir file. Git resolves each on disk, so
// "link/.." is the parent of wherever link points; cleaning the text
// instead names another directory, a decoy the repository can make clean.

// driverConfig defines a filter driver that would run a program.
const driverConfig = "[filter \"x\"]\n\tclean = touch pwned\n"

// newGitDir makes a git directory (HEAD, objects, refs, a config with
// core.bare = false) at path, with a filter driver when armed.
func newGitDir(t *testing.T, path string, armed bool) {
	t.Helper()
	tmp, err := os.MkdirTemp(filepath.Dir(path), "init-")
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, tmp, "init", "-q", "-b", "main")
	if err := os.Rename(filepath.Join(tmp, ".git"), path); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(tmp); err != nil {
		t.Fatal(err)
	}
	if armed {
		appendFile(t, filepath.Join(path, "config"), driverConfig)
	}
}

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestUntrustedQuickFollowsLinksAsGitDoes: the reviewed attacks. In each,
// git itself finds the driver (its listing is not empty), so the quick
// read must not say there is none.
func TestUntrustedQuickFollowsLinksAsGitDoes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, w string) (dir string)
	}{
		{"gitfile s/../gd with s a link to inner/deeper", func(t *testing.T, w string) string {
			mkdirs(t, filepath.Join(w, "inner", "deeper"))
			symlink(t, "inner/deeper", filepath.Join(w, "s"))
			newGitDir(t, filepath.Join(w, "gd"), false)         // the decoy the text names
			newGitDir(t, filepath.Join(w, "inner", "gd"), true) // the one git uses
			writeFile(t, filepath.Join(w, ".git"), "gitdir: s/../gd\n")
			return w
		}},
		{"commondir l/../../common with l a link to x/y", func(t *testing.T, w string) string {
			g := filepath.Join(w, ".git")
			mkdirs(t, w)
			newGitDir(t, g, false)
			mkdirs(t, filepath.Join(g, "x", "y"))
			symlink(t, "x/y", filepath.Join(g, "l"))
			writeFile(t, filepath.Join(g, "commondir"), "l/../../common\n")
			newGitDir(t, filepath.Join(w, "common"), false) // the decoy: .git/l/../../common as text
			newGitDir(t, filepath.Join(g, "common"), true)  // git's: .git/x/y/../../common
			writeFile(t, filepath.Join(g, "config"), "[core]\n\tbare = false\n")
			return w
		}},
		{"worktree path s/.. with s a link into a nested repository", func(t *testing.T, w string) string {
			mkdirs(t, w)
			newGitDir(t, filepath.Join(w, ".git"), false)
			mkdirs(t, filepath.Join(w, "inner", "deeper"))
			newGitDir(t, filepath.Join(w, "inner", ".git"), true)
			symlink(t, "inner/deeper", filepath.Join(w, "s"))
			return w + "/s/.."
		}},
		{"HOME h/.. with h a link to a/b", func(t *testing.T, w string) string {
			root := filepath.Dir(w)
			mkdirs(t, w, filepath.Join(root, "a", "b"))
			newGitDir(t, filepath.Join(w, ".git"), false)
			symlink(t, "a/b", filepath.Join(root, "h"))
			writeFile(t, filepath.Join(root, ".gitconfig"), "")                // the decoy: h/.. as text
			writeFile(t, filepath.Join(root, "a", ".gitconfig"), driverConfig) // git's: a/b/..
			os.Unsetenv("GIT_CONFIG_GLOBAL")                                   // restored by quickRepo's t.Setenv
			t.Setenv("HOME", root+"/h/..")
			t.Setenv("XDG_CONFIG_HOME", "")
			return w
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, _ := quickRepo(t)
			dir := tc.setup(t, filepath.Join(filepath.Dir(repo), "w"))
			slow, err := (Runner{Dir: dir}).Untrusted(t.Context())
			if err != nil || len(slow.guard) == len(fixedGuard) {
				t.Fatalf("git's own listing finds no driver (%v): the layout is not armed", err)
			}
			checkQuickAgrees(t, dir)
		})
	}
}

// TestUntrustedQuickAgreesWithGitOnLayouts generates repositories laid out
// in every way the quick read could misread: symbolic links at each depth
// of the worktree path and inside git directories, .git files with
// relative and absolute gitdirs, ".." after a link, commondir files,
// linked worktrees made by git worktree add, nested repositories, a .git
// that is a link, and a filter driver in any of the files git may read
// (the global file, each git directory's config and config.worktree). For
// every directory asked about, a yes from the quick read must match git's
// own driver listing and top directory (checkQuickAgrees).
func TestUntrustedQuickAgreesWithGitOnLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	var yes, no int
	for i := range 32 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, global := quickRepo(t)
			root := filepath.Dir(global)
			armed := func() bool { return rng.IntN(3) == 0 }
			if rng.IntN(8) == 0 {
				appendFile(t, global, driverConfig)
			}
			w := filepath.Join(root, "a", "w")
			mkdirs(t, filepath.Join(w, "inner", "deeper"), filepath.Join(w, "x", "y"))
			// Links at each depth: to the worktree, into it, and back out.
			symlink(t, "inner/deeper", filepath.Join(w, "s"))
			symlink(t, filepath.Join(w, "x", "y"), filepath.Join(w, "l"))
			symlink(t, "a/w", filepath.Join(root, "wl"))
			symlink(t, "../..", filepath.Join(w, "inner", "up"))
			// Git directories wherever a path's text or its resolution
			// could land.
			for _, d := range []string{filepath.Join(w, "gd"), filepath.Join(w, "inner", "gd"), filepath.Join(w, "x", "gd"), filepath.Join(root, "a", "gd")} {
				newGitDir(t, d, armed())
			}
			g := filepath.Join(w, ".git")
			switch rng.IntN(6) {
			case 0: // a plain .git directory
				newGitDir(t, g, armed())
			case 1: // a .git file
				targets := []string{"gd", "s/../gd", "s/../../gd", "l/../gd", "inner/up/w/gd", w + "/s/../gd", root + "/wl/l/../gd", "../gd"}
				writeFile(t, g, "gitdir: "+targets[rng.IntN(len(targets))]+"\n")
			case 2: // a .git directory with a commondir file
				newGitDir(t, g, armed())
				mkdirs(t, filepath.Join(g, "x", "y"))
				symlink(t, "x/y", filepath.Join(g, "l"))
				for _, d := range []string{filepath.Join(w, "common"), filepath.Join(g, "common"), filepath.Join(g, "x", "common")} {
					newGitDir(t, d, armed())
				}
				targets := []string{"common", "../common", "l/../common", "l/../../common", g + "/l/../common"}
				writeFile(t, filepath.Join(g, "commondir"), targets[rng.IntN(len(targets))]+"\n")
			case 3: // a .git file naming a git directory with a commondir file
				gd := filepath.Join(w, "gd")
				mkdirs(t, filepath.Join(gd, "x", "y"))
				symlink(t, "x/y", filepath.Join(gd, "l"))
				newGitDir(t, filepath.Join(gd, "x", "common"), armed())
				writeFile(t, filepath.Join(gd, "commondir"), []string{"l/../common", "../../a/gd", "l/../../inner/gd"}[rng.IntN(3)]+"\n")
				writeFile(t, g, "gitdir: "+[]string{"gd", "s/../../gd"}[rng.IntN(2)]+"\n")
			case 4: // a linked worktree of a repository beside it
				if err := os.RemoveAll(w); err != nil {
					t.Fatal(err)
				}
				main := filepath.Join(root, "main")
				gitIn(t, root, "init", "-q", "-b", "main", main)
				gitIn(t, main, "commit", "-q", "--allow-empty", "-m", "first")
				gitIn(t, main, "worktree", "add", "-q", w)
				mkdirs(t, filepath.Join(w, "inner", "deeper"))
				symlink(t, "inner/deeper", filepath.Join(w, "s"))
				if armed() {
					appendFile(t, filepath.Join(main, ".git", "config"), driverConfig)
				}
				if armed() {
					appendFile(t, filepath.Join(main, ".git", "config"), "[extensions]\n\tworktreeConfig = true\n")
					appendFile(t, filepath.Join(main, ".git", "worktrees", "w", "config.worktree"), driverConfig)
				}
			case 5: // .git, a link to a git directory
				symlink(t, []string{"gd", "s/../gd", "../gd"}[rng.IntN(3)], g)
			}
			if rng.IntN(3) == 0 { // a nested repository
				newGitDir(t, filepath.Join(w, "inner", ".git"), armed())
			}
			dirs := []string{w, filepath.Join(w, "inner", "deeper"), w + "/s/..", w + "/s/../..", filepath.Join(root, "wl"), root + "/wl/s/..", w + "/l/..", w + "/inner/up/w/s/.."}
			for _, k := range rng.Perm(len(dirs))[:3] {
				if checkQuickAgrees(t, dirs[k]) {
					yes++
				} else {
					no++
				}
			}
		})
	}
	if yes == 0 || no == 0 {
		t.Fatalf("the layouts never tested one side: %d yes, %d no", yes, no)
	}
}

package git

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// quickRepo makes a repository in a new directory, with a global
// configuration file of our own and no system one, and returns the
// repository's path (physical) and the global file.
func quickRepo(t *testing.T) (repo, global string) {
	t.Helper()
	testsys.LookPath(t, "git")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	global = filepath.Join(dir, "global.gitconfig")
	if err := os.WriteFile(global, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo = filepath.Join(dir, "repo")
	gitIn(t, dir, "init", "-q", "-b", "main", repo)
	return repo, global
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@e")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkQuickAgrees asks git what UntrustedQuick answered without it: when
// the quick read says yes, git's driver listing must give the same guard
// and rev-parse the same top directory.
func checkQuickAgrees(t *testing.T, dir string) (ok bool) {
	t.Helper()
	u, top, ok := Runner{Dir: dir}.UntrustedQuick()
	if !ok {
		return false
	}
	ctx := context.Background()
	slow, err := Runner{Dir: dir}.Untrusted(ctx)
	if err != nil {
		t.Fatalf("quick read said yes, git's listing failed: %v", err)
	}
	if !slices.Equal(u.guard, slow.guard) || !u.untrusted {
		t.Fatalf("quick guard %q, git's listing gives %q", u.guard, slow.guard)
	}
	out, err := slow.Run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); top != want {
		t.Fatalf("quick top %q, git says %q", top, want)
	}
	return true
}

func TestUntrustedQuickPlainRepository(t *testing.T) {
	repo, global := quickRepo(t)
	// A [diff] section of plain settings defines no driver.
	appendFile(t, global, "[diff]\n\talgorithm = histogram\n[core]\n\tbare = false\n")
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{repo, sub} {
		if !checkQuickAgrees(t, dir) {
			t.Errorf("%s: quick read gave up on a plain repository", dir)
		}
	}
	// Through a symbolic link, the top is the physical path, as git's.
	link := filepath.Join(filepath.Dir(repo), "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	if !checkQuickAgrees(t, link) {
		t.Error("quick read gave up through a symbolic link")
	}
}

// A linked worktree's .git is a file naming its git directory, whose
// commondir file names the shared one: paths the quick read leaves to git
// (see discover), which finds a driver in the shared configuration.
func TestUntrustedQuickLinkedWorktree(t *testing.T) {
	repo, _ := quickRepo(t)
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
	wt := filepath.Join(filepath.Dir(repo), "wt")
	gitIn(t, repo, "worktree", "add", "-q", wt)
	if checkQuickAgrees(t, wt) {
		t.Fatal("quick read took a linked worktree")
	}
	appendFile(t, filepath.Join(repo, ".git", "config"), "[filter \"x\"]\n\tclean = touch pwned\n")
	if slow, err := (Runner{Dir: wt}).Untrusted(t.Context()); err != nil || len(slow.guard) == len(fixedGuard) {
		t.Fatalf("git's listing from the worktree missed the shared driver: %v", err)
	}
}

func TestUntrustedQuickGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, repo, global string) (dir string)
	}{
		{"filter in the repository", func(t *testing.T, repo, _ string) string {
			appendFile(t, filepath.Join(repo, ".git", "config"), "[filter \"lfs\"]\n\tclean = x\n")
			return repo
		}},
		{"diff driver in the global file, odd spelling", func(t *testing.T, repo, global string) string {
			appendFile(t, global, "[DiFf\t \"x\"]\n\ttextconv = x\n")
			return repo
		}},
		{"old dotted driver section", func(t *testing.T, repo, _ string) string {
			appendFile(t, filepath.Join(repo, ".git", "config"), "[diff.x]\n\tcommand = x\n")
			return repo
		}},
		{"include", func(t *testing.T, repo, global string) string {
			appendFile(t, global, "[include]\n\tpath = other\n")
			return repo
		}},
		{"includeIf", func(t *testing.T, repo, _ string) string {
			appendFile(t, filepath.Join(repo, ".git", "config"), "[includeIf \"onbranch:main\"]\n\tpath = other\n")
			return repo
		}},
		{"core.worktree", func(t *testing.T, repo, _ string) string {
			appendFile(t, filepath.Join(repo, ".git", "config"), "[core]\n\tworktree = /\n")
			return repo
		}},
		{"bare", func(t *testing.T, repo, _ string) string {
			appendFile(t, filepath.Join(repo, ".git", "config"), "[core]\n\tbare\n")
			return repo
		}},
		{"inside .git", func(t *testing.T, repo, _ string) string {
			return filepath.Join(repo, ".git", "refs")
		}},
		{"not a repository", func(t *testing.T, repo, _ string) string {
			return filepath.Dir(repo)
		}},
		{"ceiling directories", func(t *testing.T, repo, _ string) string {
			t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(repo))
			return repo
		}},
		{"a .git that is a symbolic link", func(t *testing.T, repo, _ string) string {
			other := filepath.Join(filepath.Dir(repo), "other")
			if err := os.Rename(filepath.Join(repo, ".git"), other); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, filepath.Join(repo, ".git")); err != nil {
				t.Fatal(err)
			}
			return repo
		}},
		{"a .git file", func(t *testing.T, repo, _ string) string {
			gd := filepath.Join(filepath.Dir(repo), "gd")
			if err := os.Rename(filepath.Join(repo, ".git"), gd); err != nil {
				t.Fatal(err)
			}
			appendFile(t, filepath.Join(repo, ".git"), "gitdir: "+gd+"\n")
			return repo
		}},
		{"a commondir file", func(t *testing.T, repo, _ string) string {
			appendFile(t, filepath.Join(repo, ".git", "commondir"), ".\n")
			return repo
		}},
		{"a HEAD in a parent (perhaps a git directory)", func(t *testing.T, repo, _ string) string {
			sub := filepath.Join(repo, "sub")
			if err := os.Mkdir(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			appendFile(t, filepath.Join(sub, "HEAD"), "ref: refs/heads/main\n")
			return sub
		}},
		{"no HOME", func(t *testing.T, repo, _ string) string {
			os.Unsetenv("GIT_CONFIG_GLOBAL") // restored by quickRepo's t.Setenv
			t.Setenv("HOME", "")
			return repo
		}},
		{"a named pipe for the repository's configuration", func(t *testing.T, repo, _ string) string {
			config := filepath.Join(repo, ".git", "config")
			if err := os.Remove(config); err != nil {
				t.Fatal(err)
			}
			testsys.Mkfifo(t, config) // opened blocking, it would wait for a writer forever
			return repo
		}},
		{"a named pipe for the global configuration", func(t *testing.T, repo, global string) string {
			if err := os.Remove(global); err != nil {
				t.Fatal(err)
			}
			testsys.Mkfifo(t, global)
			return repo
		}},
		{"a NUL byte", func(t *testing.T, repo, global string) string {
			appendFile(t, global, "[x]\n\ty = a\x00b\n")
			return repo
		}},
		{"a configuration file too large", func(t *testing.T, repo, global string) string {
			appendFile(t, global, "#"+strings.Repeat("x", maxQuickConfig)+"\n")
			return repo
		}},
		{"empty GIT_CONFIG_GLOBAL", func(t *testing.T, repo, _ string) string {
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			return repo
		}},
		{"relative GIT_CONFIG_GLOBAL (git -C reads it from the worktree)", func(t *testing.T, repo, _ string) string {
			t.Setenv("GIT_CONFIG_GLOBAL", "global.gitconfig")
			return repo
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, global := quickRepo(t)
			dir := tc.setup(t, repo, global)
			if _, _, ok := (Runner{Dir: dir}).UntrustedQuick(); ok {
				t.Fatal("quick read said yes")
			}
		})
	}
}

// TestUntrustedQuickNeverMissesADriver writes configurations made of
// pieces, driver sections in many spellings among harmless ones, and
// checks the property the quick read rests on: whenever it says yes,
// git's own listing defines no driver and names the same top directory.
func TestUntrustedQuickNeverMissesADriver(t *testing.T) {
	pieces := []string{
		"[core]\n\teditor = vi\n",
		"[diff]\n\talgorithm = patience\n",
		"[diff]\n\texternal = x\n",
		"[filter \"a\"]\n\tclean = x\n",
		"[Filter \"a\"]\n\tsmudge = x\n",
		"[FILTER\t\"a\"]\n\tprocess = x\n",
		"[filter.a]\n\tclean = x\n",
		"[diff \"b\"]\n\ttextconv = x\n",
		"[DIFF  \"b\"]\n\tcommand = x\n",
		"[diff.b]\n\tcommand = x\n",
		"[alias]\n\td = diff --stat\n",
		"# a comment\n",
		"[user]\n\tname = \"quoted [filter \\\"x\\\"] value\"\n",
		"[color \"diff\"]\n\tmeta = yellow\n",
		"[merge \"ours\"]\n\tdriver = true\n",
		"[MERGE.m]\n\tdriver = x\n",
		"[merge]\n\tconflictStyle = diff3\n",
		"[hook \"lint\"]\n\tcommand = x\n\tevent = post-checkout\n",
		"[core]\n\thooksPath = /nowhere\n",
		"[core]\n\tbare = false\n",
		"[core]\n\tfsmonitor = x\n",
	}
	rng := rand.New(rand.NewPCG(19, 26))
	var yes, no int
	for i := range 40 {
		repo, global := quickRepo(t)
		for _, file := range []string{global, filepath.Join(repo, ".git", "config")} {
			for range rng.IntN(3) {
				appendFile(t, file, pieces[rng.IntN(len(pieces))])
			}
		}
		if checkQuickAgrees(t, repo) {
			yes++
		} else {
			no++
		}
		_ = i
	}
	if yes == 0 || no == 0 {
		t.Fatalf("the pieces never tested one side: %d yes, %d no", yes, no)
	}
}

func TestConfigTextDefinesNothing(t *testing.T) {
	for text, want := range map[string]bool{
		"": true,
		"[core]\n\tbare = false\n\tfilemode = true\n": true,
		"[core]\n\tBare=FALSE\n":                      true,
		"[core]\n\tbare = true\n":                     false,
		"[core]\n\tbare = no\n":                       false,
		"[diff]\n\tcolorMoved = zebra\n":              true,
		"[diff \"x\"]\n":                              false,
		"[diff\"x\"]\n":                               false,
		"[ Diff . x ]\n":                              false,
		"[remote \"o\"]\n\turl = x\n":                 true,
		"[x]\n\ty = \"no filters here\"\n":            false,
		"[includeif \"gitdir:/\"]\n":                  false,
		"[extensions]\n\tworktreeConfig = true\n":     false,
		"[merge]\n\tconflictStyle = zdiff3\n":         true,
		"[merge \"m\"]\n\tdriver = x\n":               false,
		"[ Merge . m ]\n":                             false,
		"[hook \"h\"]\n\tcommand = x\n":               false,
		"[core]\n\thooksPath = x\n":                   true,
	} {
		if got := configTextDefinesNothing([]byte(text)); got != want {
			t.Errorf("%q: got %v, want %v", text, got, want)
		}
	}
}

// A repository another user owns is git's to judge (safe.directory).
func TestUntrustedQuickLeavesOthersRepositoriesToGit(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the repository to another user")
	}
	repo, _ := quickRepo(t)
	if _, _, ok := (Runner{Dir: repo}).UntrustedQuick(); !ok {
		t.Fatal("quick read gave up on our own repository")
	}
	if err := os.Lchown(repo, 65534, 65534); err != nil {
		t.Fatal(err) // root may give a file away
	}
	if _, _, ok := (Runner{Dir: repo}).UntrustedQuick(); ok {
		t.Fatal("quick read took a repository another user owns")
	}
}

// FuzzConfigTextDefinesNothing holds the byte test to a second reading of
// the same text, line by line, as git's parser meets section headers and
// keys: a line that opens a filter or diff driver section, or an include,
// sets worktree, or sets bare to what git reads as true (the key alone,
// or true, yes, on or a number other than 0) is never taken for harmless.
// (A value git cannot read as a boolean, "fal se", stops git itself.)
func FuzzConfigTextDefinesNothing(f *testing.F) {
	for _, seed := range []string{
		"[core]\n\tbare = false\n", "[filter \"x\"]\n\tclean = y\n", "[Diff\t\"x\"]\n", "[diff.x]\n",
		"[include]\npath=x\n", "[core]\nworktree=/\n", "[diff]\n\talgorithm = x\n", "  [ FILTER \"a\" ]\n",
		"[core]\r\n\tBARE = True\r\n", "\xef\xbb\xbf[filter \"x\"]\n",
	} {
		f.Add([]byte(seed))
	}
	header := regexp.MustCompile(`(?i)^[ \t]*\[[ \t]*((filter|diff)[ \t]*[".]|filter[ \t]*\]|include)`)
	worktree := regexp.MustCompile(`(?i)^[ \t]*worktree\b`)
	bareTrue := regexp.MustCompile(`(?i)^[ \t]*bare[ \t]*(\r?$|[#;]|=[ \t]*(true|yes|on|0*[1-9]))`)
	f.Fuzz(func(t *testing.T, data []byte) {
		if !configTextDefinesNothing(data) {
			return
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if header.Match(line) || worktree.Match(line) || bareTrue.Match(line) {
				t.Fatalf("%q taken for harmless", line)
			}
		}
	})
}

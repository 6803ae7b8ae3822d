package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
)

// The campaigns of issue 9 ("Proof") are long runs behind flags, started
// by scripts/hostile.sh and scripts/crash.sh; a plain 'go test' skips them.
var (
	hostileCampaign = flag.Bool("hostile", false, "run the hostile-input campaign (scripts/hostile.sh)")
	crashCampaign   = flag.Bool("crash", false, "run the crash campaign (scripts/crash.sh)")
)

// cliResult is what one in-process run of the CLI gave.
type cliResult struct {
	code           int
	stdout, stderr string
	panicked       string // the panic and its stack, if the command panicked
}

// runCLI runs the CLI in-process, as hostile_test.go does, with env as its
// whole environment and stdin as standard input. A panic is caught and
// returned, so that one crashing input is counted rather than ending the
// campaign.
func runCLI(env map[string]string, stdin string, args ...string) (r cliResult) {
	var stdout, stderr bytes.Buffer
	a := newTestApp(context.Background(), strings.NewReader(stdin), &stdout, &stderr, env)
	defer func() {
		if p := recover(); p != nil {
			r = cliResult{code: -1, stdout: stdout.String(), stderr: stderr.String(), panicked: fmt.Sprintf("%v\n%s", p, debug.Stack())}
		}
	}()
	code := a.execute(args)
	return cliResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// treeState is a snapshot of a directory tree: for each path (relative,
// slash-separated) its mode and, for regular files, a hash of the content,
// for symbolic links their target.
type treeState map[string]string

// snapshotTree reads the tree at root; skip leaves out paths (and whole
// directories) it returns true for. A missing root is an empty tree.
func snapshotTree(root string, skip func(rel string) bool) (treeState, error) {
	st := treeState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := info.Mode().String()
		switch {
		case info.Mode().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			desc += " " + hex.EncodeToString(h.Sum(nil))
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + target
		}
		st[rel] = desc
		return nil
	})
	return st, err
}

// diff lists what changed from st to after, one path each: "+new",
// "-gone", "~changed".
func (st treeState) diff(after treeState) []string {
	var out []string
	for p, d := range st {
		switch a, ok := after[p]; {
		case !ok:
			out = append(out, "-"+p)
		case a != d:
			out = append(out, "~"+p)
		}
	}
	for p := range after {
		if _, ok := st[p]; !ok {
			out = append(out, "+"+p)
		}
	}
	sort.Strings(out)
	return out
}

// copyTree copies the tree at from to to, keeping modes and symbolic
// links, so that each campaign input starts from the same prepared state
// without running the commands that made it again.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.IsDir():
			return os.MkdirAll(dst, info.Mode().Perm())
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
				return err
			}
			return os.Chmod(dst, info.Mode().Perm())
		}
		return nil // sockets, FIFOs: not part of any template
	})
}

// firstLines returns at most n lines of s, for failure messages.
func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… (%d more lines)\n", len(lines)-n))
	}
	return strings.Join(lines, "")
}

// requireCampaign skips a campaign test unless its flag was given.
func requireCampaign(t *testing.T, on bool, name string) {
	t.Helper()
	if !on {
		t.Skipf("the %s campaign runs with -%s (scripts/%s.sh)", name, name, name)
	}
}

// linkSelf makes dir hold a link named name to this test binary, which
// runs the CLI when started under that name (see TestMain), and returns
// dir.
func linkSelf(t *testing.T, dir, name string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// gitIn runs git in dir with a fixed author, failing the test on error.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// newCampaignCase makes dir/case as the campaigns start from it: a home
// whose configuration holds the bundle corpus's keys (the reader's), a
// project in git with one empty commit, and the empty directories
// userhome and none. It returns the home, the project, the configuration
// directory and the reader's age recipient.
func newCampaignCase(t *testing.T, dir string) (home, project, cfg, recipient string) {
	t.Helper()
	home, project = filepath.Join(dir, "case", "home"), filepath.Join(dir, "case", "project")
	cfg = filepath.Join(home, "config")
	keys := filepath.Join(hostileBundleCorpus, "keys")
	for _, d := range []string{cfg, project, filepath.Join(dir, "case", "userhome"), filepath.Join(dir, "case", "none")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for from, to := range map[string]string{"signing.key": "signing_key", "signing.pub": "signing_key.pub",
		"age.txt": "age_identity.txt", "allowed_signers": "allowed_signers"} {
		copyFile(t, filepath.Join(keys, from), filepath.Join(cfg, to))
	}
	pub, err := os.ReadFile(filepath.Join(keys, "age.pub"))
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, project, "init", "-q", "-b", "main")
	gitIn(t, project, "commit", "-q", "--allow-empty", "-m", "first")
	return home, project, cfg, strings.TrimSpace(string(pub))
}

// mustCLI runs the CLI as runCLI does and fails the test, naming what it
// was making, unless the command exits 0.
func mustCLI(t *testing.T, what string, env map[string]string, stdin string, args ...string) cliResult {
	t.Helper()
	r := runCLI(env, stdin, args...)
	if r.code != 0 {
		t.Fatalf("%s: %v: exit %d\n%s%s%s", what, args, r.code, r.stdout, r.stderr, r.panicked)
	}
	return r
}

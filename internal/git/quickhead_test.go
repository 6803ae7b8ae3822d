package git

import (
	"os"
	"path/filepath"
	"testing"
)

// QuickHead reads what git rev-parse HEAD answers, from a loose ref, from
// packed-refs and when detached, and gives up where it is not sure.
func TestQuickHeadAgreesWithGit(t *testing.T) {
	repo, _ := quickRepo(t)
	quick := func() (string, bool) {
		t.Helper()
		u, _, ok := Runner{Dir: repo}.UntrustedQuick()
		if !ok {
			t.Fatal("the quick read gave up on the repository")
		}
		return u.QuickHead()
	}
	if oid, ok := quick(); ok {
		t.Errorf("before the first commit: %q", oid)
	}
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "one")
	check := func(what string) {
		t.Helper()
		oid, ok := quick()
		if want := gitIn(t, repo, "rev-parse", "HEAD"); !ok || oid != want {
			t.Errorf("%s: QuickHead %q %v, git says %s", what, oid, ok, want)
		}
	}
	check("loose ref")
	gitIn(t, repo, "pack-refs", "--all")
	check("packed ref")
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "two")
	gitIn(t, repo, "branch", "side")
	gitIn(t, repo, "pack-refs", "--all")
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "three")
	check("loose ref beside a packed one")
	gitIn(t, repo, "switch", "-q", "side")
	check("another branch, packed")
	gitIn(t, repo, "switch", "-q", "--detach", "main")
	check("detached")
	gitIn(t, repo, "switch", "-q", "main")
	gitIn(t, repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
	gitIn(t, repo, "symbolic-ref", "HEAD", "refs/heads/alias")
	if oid, ok := quick(); ok {
		t.Errorf("HEAD through a symbolic branch: %q", oid)
	}
	gitIn(t, repo, "symbolic-ref", "HEAD", "refs/heads/main")
	if err := os.Mkdir(filepath.Join(repo, ".git", "reftable"), 0o700); err != nil {
		t.Fatal(err)
	}
	if oid, ok := quick(); ok {
		t.Errorf("with a reftable directory: %q", oid)
	}
	if _, ok := (Runner{Dir: repo}).QuickHead(); ok {
		t.Error("a Runner not made by UntrustedQuick answered")
	}
}

func TestPlainBranch(t *testing.T) {
	for ref, want := range map[string]bool{
		"refs/heads/main": true, "refs/heads/feature/x": true, "refs/heads/": false, "refs/heads/../config": false,
		"refs/heads/a//b": false, "refs/heads/./a": false, "refs/tags/v1": false, "refs/heads/a.lock": false, "refs/heads/a\\b": false,
	} {
		if got := plainBranch(ref); got != want {
			t.Errorf("plainBranch(%q) = %v", ref, got)
		}
	}
}

package git

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRemoteURL is what capture.Remote asks git: the origin remote's URL,
// or the first listed remote's, rewritten by insteadOf; "" without one,
// or when git fails (as capture.Remote takes it).
func gitRemoteURL(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "remote").Output()
	if err != nil {
		return ""
	}
	names := strings.Fields(string(out))
	if len(names) == 0 {
		return ""
	}
	name := names[0]
	for _, n := range names {
		if n == "origin" {
			name = n
		}
	}
	u, err := exec.Command("git", "-C", dir, "remote", "get-url", "--", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(u))
}

// checkQuickRemote compares QuickRemote with git on the repository at
// repo; it reports whether the quick read answered.
func checkQuickRemote(t *testing.T, repo, what string) bool {
	t.Helper()
	u, _, ok := Runner{Dir: repo}.UntrustedQuick()
	if !ok {
		return false
	}
	quick, ok := u.QuickRemote()
	if !ok {
		return false
	}
	if want := gitRemoteURL(t, repo); quick != want {
		t.Fatalf("%s:\nQuickRemote %q, git says %q", what, quick, want)
	}
	return true
}

func TestQuickRemoteAgreesWithGit(t *testing.T) {
	repo, global := quickRepo(t)
	config := filepath.Join(repo, ".git", "config")
	base, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, local, global string
		quick               bool // the quick read must answer
	}{
		{"no remote", "", "", true},
		{"origin", "[remote \"origin\"]\n\turl = https://h.example/o.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n", "", true},
		{"origin among others", "[remote \"zed\"]\n\turl = z:z\n[remote \"origin\"]\n\turl = o:o\n[remote \"alpha\"]\n\turl = a:a\n", "", true},
		{"first by name", "[remote \"zed\"]\n\turl = z:z\n[remote \"Alpha\"]\n\turl = a:a\n[remote \"beta\"]\nurl=b:b\n", "", true},
		{"first URL of two", "[remote \"origin\"]\n\turl = one:1\n\turl = two:2\n", "", true},
		{"global and local", "[remote \"origin\"]\n\turl = local:l\n", "[remote \"origin\"]\n\turl = global:g\n", true},
		{"global only", "", "[remote \"up\"]\n\turl = global:g\n", true},
		{"insteadOf, the longest", "[remote \"origin\"]\n\turl = https://a.example/a/b\n[url \"ssh://s@a.example/\"]\n\tinsteadOf = https://a.example/\n[url \"ssh://long@a.example/a\"]\n\tinsteadOf = https://a.example/a\n", "", true},
		{"insteadOf in global", "[remote \"origin\"]\n\turl = https://gh.example/x\n", "[url \"git@gh.example:\"]\n\tInsteadOf = https://gh.example/\n", true},
		{"equal insteadOf, the first", "[remote \"origin\"]\n\turl = p:x\n[url \"first:\"]\n\tinsteadOf = p:\n[url \"second:\"]\n\tinsteadOf = p:\n", "", true},
		{"quoted and commented", "[remote \"origin\"]\n\tURL = \"https://q.example/a b\" ; a comment\n", "", true},
		{"inner blanks", "[remote \"origin\"]\n\turl = x  y\t z   # c\n", "", true},
		{"quote halves", "[remote \"origin\"]\n\turl = a\" b \"c\n", "", true},
		{"old dotted header", "[remote.Origin]\n\turl = d:d\n", "", true},
		{"case of the key", "[Remote \"origin\"]\n\tUrl = c:c\n", "", true},
		{"CRLF", "[remote \"origin\"]\r\n\turl = crlf:c\r\n", "", true},
		{"remote without URL", "[remote \"origin\"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n", "", false},
		{"escapes", "[remote \"origin\"]\n\turl = a\\tb\\\\c\\\"d\n", "", true},
		{"continued line", "[remote \"origin\"]\n\turl = a\\\nb\n", "", true},
		{"key after the header", "[remote \"origin\"] url = h:h\n", "", true},
		{"escaped subsection", "[remote \"o\\\"q\"]\n\turl = e:e\n", "", true},
		{"unknown escape", "[remote \"origin\"]\n\turl = a\\qb\n", "", false},
		{"dotted name beside a subsection", "[remote.x \"y\"]\n\turl = a:b\n", "", false},
		{"empty URL", "[remote \"origin\"]\n\turl =\n", "", false},
	}
	for _, c := range cases {
		if err := os.WriteFile(config, append(append([]byte(nil), base...), c.local...), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(global, []byte(c.global), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := checkQuickRemote(t, repo, c.name); got != c.quick {
			t.Errorf("%s: the quick read answered %v, want %v", c.name, got, c.quick)
		}
	}
}

// TestQuickRemoteLeavesOldRemotesToGit: a remote defined by a file in
// .git/remotes or .git/branches is git's to read.
func TestQuickRemoteLeavesOldRemotesToGit(t *testing.T) {
	repo, _ := quickRepo(t)
	for _, dir := range []string{"remotes", "branches"} {
		d := filepath.Join(repo, ".git", dir)
		mkdirs(t, d)
		writeFile(t, filepath.Join(d, "old"), "URL: https://old.example/x\n")
		u, _, ok := Runner{Dir: repo}.UntrustedQuick()
		if !ok {
			t.Fatal("the quick read gave up on the repository")
		}
		if url, ok := u.QuickRemote(); ok {
			t.Errorf("with .git/%s/old: QuickRemote answered %q", dir, url)
		}
		if err := os.RemoveAll(d); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := (Runner{Dir: repo}).QuickRemote(); ok {
		t.Error("a Runner not made by UntrustedQuick answered")
	}
}

// TestQuickRemoteRandomConfigs writes configurations made of pieces that
// matter to a remote's URL, and some that git refuses, and checks that
// whenever the quick read answers, git answers the same.
func TestQuickRemoteRandomConfigs(t *testing.T) {
	repo, global := quickRepo(t)
	config := filepath.Join(repo, ".git", "config")
	base, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	pieces := []string{
		"[remote \"origin\"]\n", "[remote \"b\"]\n", "[remote \"A\"]\n", "[remote.c]\n", "[url \"x:\"]\n", "[url \"y://\"]\n",
		"[core]\n", "[remote \"o\" ]\n", "[remote\"o\"]\n", "[url]\n", "[remote]\n",
		"\turl = p:q\n", "\turl = \"s t\"\n", "\turl=x:y#c\n", "url = p:r ; c\n", "\tinsteadOf = p:\n", "\tinsteadof = y://a\n",
		"\tfetch = +refs/heads/*:refs/remotes/o/*\n", "\turl\n", "\turl = \"open\n", "# comment\n", "\n", "\tbare = false\n",
		"\tURL = y://a/b\n", "\tpushurl = x:z\n", "\tinsteadOf = \"p\"\n",
		"\turl = a\\\n", "b:c\n", "\turl = \"q\\\"r\"\n", "[remote \"origin\"] url = s:t\n", "\turl = x\\ty\n", "\talias = \"!f() { x; \\\n y; }\"\n",
	}
	rng := rand.New(rand.NewPCG(49, 2))
	answered := 0
	for range 300 {
		var local, glob strings.Builder
		for range rng.IntN(8) {
			local.WriteString(pieces[rng.IntN(len(pieces))])
		}
		for range rng.IntN(4) {
			glob.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if err := os.WriteFile(config, append(append([]byte(nil), base...), local.String()...), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(global, []byte(glob.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		if checkQuickRemote(t, repo, "local config:\n"+local.String()+"\nglobal:\n"+glob.String()) {
			answered++
		}
	}
	t.Logf("answered %d", answered)
	if answered < 60 {
		t.Errorf("the quick read answered only %d of 300", answered)
	}
}

package git

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// fakeGit puts a git made of script first on the PATH for the test.
func fakeGit(t *testing.T, script string) {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestStripCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:s3cret@github.com/o/r.git": "https://github.com/o/r.git",
		"https://ghp_token@github.com/o/r.git":   "https://github.com/o/r.git",
		"ssh://git@host.example/o/r.git":         "ssh://git@host.example/o/r.git",
		"git@github.com:o/r.git":                 "git@github.com:o/r.git",
		"/srv/git/r.git":                         "/srv/git/r.git",
		"https://github.com/o/r.git":             "https://github.com/o/r.git",
		"ssh://git:hunter2@host.example/o/r.git": "ssh://host.example/o/r.git",
	} {
		if got := StripCredentials(in); got != want {
			t.Errorf("StripCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGitErrorsNeverCarryCredentials(t *testing.T) {
	// Some git versions and transports echo the URL as given; a fake git
	// that does so stands in for them.
	fakeGit(t, "#!/bin/sh\necho \"fatal: unable to access 'https://alice:s3cr3t-token@git.example/repo.git/': timeout\" >&2\nexit 128\n")
	_, err := Runner{Dir: t.TempDir()}.Run(context.Background(), "push", "origin", "main")
	if err == nil {
		t.Fatal("a failing git succeeded")
	}
	if strings.Contains(err.Error(), "s3cr3t-token") || strings.Contains(err.Error(), "alice") {
		t.Fatalf("credentials in the error: %v", err)
	}
	if !strings.Contains(err.Error(), "https://git.example/repo.git/") {
		t.Fatalf("the rest of git's message was lost: %v", err)
	}
}

func TestGitOutputIsBounded(t *testing.T) {
	fakeGit(t, fmt.Sprintf("#!/bin/sh\nhead -c %d /dev/zero\n", OutputLimit+1))
	// Moving 8 MiB through the pipe takes a second here, but more than
	// DefaultTimeout (15 s) on a loaded machine under -race: the time limit
	// is TestGitTimeout's business, not this test's.
	out, err := Runner{Dir: t.TempDir(), Timeout: 10 * time.Minute}.Run(context.Background(), "diff")
	if err == nil || !strings.Contains(err.Error(), "output over") {
		t.Fatalf("%d bytes of output accepted: %v", len(out), err)
	}
	// A Runner's own bound is the one applied.
	fakeGit(t, "#!/bin/sh\nprintf 0123456789\n")
	out, err = Runner{Dir: t.TempDir(), Limit: 9}.Run(context.Background(), "diff")
	if err == nil || err.Error() != "git diff: output over 9 bytes" {
		t.Fatalf("10 bytes under a limit of 9: %q, %v", out, err)
	}
	out, err = Runner{Dir: t.TempDir(), Limit: 10}.Run(context.Background(), "diff")
	if err != nil || string(out) != "0123456789" {
		t.Fatalf("10 bytes under a limit of 10: %q, %v", out, err)
	}
}

// TestGitTimeout: a call ends at its Runner's own time limit, and says
// which one; without one it runs under DefaultTimeout.
func TestGitTimeout(t *testing.T) {
	// A git that never finishes on its own (exec: the shell's child is the
	// one the context kills).
	fakeGit(t, "#!/bin/sh\nexec tail -f /dev/null\n")
	_, err := Runner{Dir: t.TempDir(), Timeout: time.Millisecond}.Run(context.Background(), "fetch")
	if err == nil || err.Error() != "git fetch: timed out after 1ms" {
		t.Fatalf("Run = %v, want the 1ms time limit", err)
	}
}

// TestRunAllKeepsOrderAndEnv: RunAll answers in the order asked, each
// call sees Runner.Env, and one failure stays with its own command.
func TestRunAllKeepsOrderAndEnv(t *testing.T) {
	fakeGit(t, "#!/bin/sh\nfor a; do last=$a; done\n[ \"$last\" = fail ] && { echo \"fatal: no\" >&2; exit 1; }\nprintf '%s %s' \"$last\" \"$EXTRA\"\n")
	res := Runner{Dir: t.TempDir(), Env: []string{"EXTRA=x"}}.RunAll(context.Background(),
		[]string{"one"}, []string{"fail"}, []string{"three"})
	if string(res[0].Out) != "one x" || res[0].Err != nil || string(res[2].Out) != "three x" || res[2].Err != nil {
		t.Fatalf("results: %q %v / %q %v", res[0].Out, res[0].Err, res[2].Out, res[2].Err)
	}
	if res[1].Err == nil || res[1].Err.Error() != "git fail: fatal: no" {
		t.Fatalf("failure: %v", res[1].Err)
	}
}

func TestNoGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := (Runner{Dir: t.TempDir()}).Run(context.Background(), "status"); err != ErrNoGit {
		t.Fatalf("Run without git = %v, want ErrNoGit", err)
	}
}

// TestEnvironmentPointsNowhereElse: GIT_DIR and configuration passed in
// the environment (as a git hook or `git -c` would) do not reach git.
func TestEnvironmentPointsNowhereElse(t *testing.T) {
	fakeGit(t, "#!/bin/sh\nenv | grep -E '^(GIT_DIR|GIT_INDEX_FILE|GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_0|GIT_EXTERNAL_DIFF|GIT_PAGER)=' | sort\n")
	for _, kv := range []string{"GIT_DIR=/elsewhere", "GIT_INDEX_FILE=/elsewhere/index", "GIT_CONFIG_PARAMETERS='core.fsmonitor'='x'",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager", "GIT_EXTERNAL_DIFF=x", "GIT_PAGER=x"} {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
	out, err := Runner{Dir: t.TempDir()}.Run(context.Background(), "status")
	if err != nil || len(out) != 0 {
		t.Fatalf("git saw %q (%v)", out, err)
	}
}

// TestUntrustedStartsNoTransport: a Runner for a worktree we did not
// create lets no transport start, whatever the repository allows.
func TestUntrustedStartsNoTransport(t *testing.T) {
	testsys.LookPath(t, "git")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	bare := filepath.Join(dir, "r.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if out, err := exec.Command("git", "-C", bare, "config", "protocol.file.allow", "always").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	trusted := Runner{Dir: bare}
	if _, err := trusted.Run(context.Background(), "ls-remote", "file://"+bare); err != nil {
		t.Fatalf("a trusted Runner cannot reach the repository: %v", err)
	}
	g, err := trusted.Untrusted(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Run(context.Background(), "ls-remote", "file://"+bare); err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Fatalf("an untrusted Runner ran a transport: %v", err)
	}
}

// A token in a URL's query is a credential like one in its user part.
func TestCredentialsInQueries(t *testing.T) {
	for in, want := range map[string]string{
		"https://git.example/r.git?access_token=s3cr3t":               "https://git.example/r.git?access_token=REDACTED",
		"https://git.example/r.git?ref=main&private_token=s3cr3t&x=1": "https://git.example/r.git?ref=main&private_token=REDACTED&x=1",
		"https://u:p@git.example/r.git?X-Amz-Signature=s3cr3t&page=2": "https://git.example/r.git?X-Amz-Signature=REDACTED&page=2",
		"https://git.example/r.git?ref=main":                          "https://git.example/r.git?ref=main",
		"https://git.example/r.git#token=s3cr3t":                      "https://git.example/r.git#token=REDACTED",
		"https://git.example/r.git?ref=a#x=1&auth=s3cr3t":             "https://git.example/r.git?ref=a#x=1&auth=REDACTED",
		"https://git.example/r.git#readme":                            "https://git.example/r.git#readme",
		"ssh://git@git.example/r.git":                                 "ssh://git@git.example/r.git",
	} {
		if got := StripCredentials(in); got != want {
			t.Errorf("StripCredentials(%q) = %q, want %q", in, got, want)
		}
	}
	if got := StripMessage("fatal: 'https://git.example/r.git#token=s3cr3t' not found"); strings.Contains(got, "s3cr3t") {
		t.Errorf("StripMessage left a token in a fragment: %q", got)
	}
	msg := "fatal: unable to access 'https://bob:pw@git.example/r.git/?api_key=s3cr3t&ref=x': 403"
	got := StripMessage(msg)
	if strings.Contains(got, "s3cr3t") || strings.Contains(got, "pw@") || !strings.Contains(got, "api_key=REDACTED&ref=x") {
		t.Fatalf("StripMessage: %q", got)
	}
}

// TestUntrustedBesideRunsOnlyRevParse: the command run beside the driver
// listing gets the fixed guard alone, which is safe only for a command
// that hashes no worktree file.
func TestUntrustedBesideRunsOnlyRevParse(t *testing.T) {
	for _, args := range [][]string{nil, {"status"}, {"diff", "HEAD"}, {"log"}} {
		if _, _, _, err := (Runner{Dir: t.TempDir()}).UntrustedBeside(context.Background(), args...); err == nil {
			t.Errorf("%q was run", args)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/remote"
)

// testEnv is an environment whose data and configuration live in a
// temporary directory.
func testEnv(t *testing.T) map[string]string {
	t.Helper()
	home := t.TempDir()
	return map[string]string{"SESSION_HANDOFF_HOME": filepath.Join(home, "sh"), "HOME": home}
}

// runCase runs one command's run function on a fresh test app with env,
// and returns stdout, stderr and the exit code a.report gives.
func runCase(t *testing.T, env map[string]string, stdin, name string, run func(a *app) error) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := newTestApp(context.Background(), strings.NewReader(stdin), &stdout, &stderr, env)
	code := a.report(name, run(a))
	return stdout.String(), stderr.String(), code
}

func TestRemoteAddList(t *testing.T) {
	env := testEnv(t)
	add := func(o remoteAddOptions) func(*app) error { return func(a *app) error { return runRemoteAdd(a, o) } }
	for _, tc := range []struct {
		name       string
		opts       remoteAddOptions
		code       int
		out, err   string // substrings of stdout and stderr
		wantStored bool
	}{
		{"adds", remoteAddOptions{name: "team", url: "git@host:team/handoffs.git", branch: remote.DefaultBranch}, 0,
			"added remote team: git@host:team/handoffs.git, branch handoffs\n", "", true},
		{"hides credentials", remoteAddOptions{name: "ci", url: "https://bot:s3cret@example.com/x.git", branch: "inbox"}, 0,
			"added remote ci: https://example.com/x.git, branch inbox\n", "", true},
		{"refuses a taken name", remoteAddOptions{name: "team", url: "/elsewhere", branch: remote.DefaultBranch}, 1,
			"", "session-handoff: remote add: team: remote already exists\nhint: 'session-handoff remote rm team' first to change it\n", true},
		{"refuses a bad name", remoteAddOptions{name: "../x", url: "/srv/x", branch: remote.DefaultBranch}, 2,
			"", "session-handoff: remote add: ", false},
		{"refuses a bad branch", remoteAddOptions{name: "lab", url: "/srv/x", branch: "-x"}, 2,
			"", "session-handoff: remote add: ", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCase(t, env, "", "remote add", add(tc.opts))
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.err) || (tc.out == "" && out != "") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr %q", code, out, errOut, tc.code, tc.out, tc.err)
			}
			if strings.Contains(out+errOut, "s3cret") {
				t.Fatalf("credentials printed: %q %q", out, errOut)
			}
			kr, _ := newTestApp(context.Background(), nil, nil, nil, env).keyring()
			c, err := remote.LoadConfig(kr.Dir)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := c.Lookup(tc.opts.name)
			if ok != tc.wantStored || ok && tc.code == 0 && r.URL != tc.opts.url {
				t.Fatalf("stored %+v %v, want stored %v", r, ok, tc.wantStored)
			}
		})
	}

	list := func(o remoteListOptions) func(*app) error { return func(a *app) error { return runRemoteList(a, o) } }
	out, errOut, code := runCase(t, env, "", "remote list", list(remoteListOptions{}))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || errOut != "" || len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") ||
		!strings.HasPrefix(lines[1], "ci ") || !strings.Contains(lines[1], "https://example.com/x.git") || !strings.HasPrefix(lines[2], "team ") {
		t.Fatalf("list: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, _, code = runCase(t, env, "", "remote list", list(remoteListOptions{json: true}))
	var rows []remoteRow
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil || len(rows) != 2 || rows[0].Name != "ci" || rows[0].Branch != "inbox" || rows[1].Unsent == nil {
		t.Fatalf("list --json: exit %d, %v, %q", code, err, out)
	}
	if strings.Contains(out, "s3cret") {
		t.Fatalf("list --json printed credentials: %s", out)
	}

	// No remotes: nothing on stdout (an empty JSON list), a word on stderr.
	empty := testEnv(t)
	out, errOut, code = runCase(t, empty, "", "remote list", list(remoteListOptions{}))
	if code != 0 || out != "" || !strings.Contains(errOut, "no remotes yet") {
		t.Fatalf("empty list: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, _, code = runCase(t, empty, "", "remote list", list(remoteListOptions{json: true}))
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("empty list --json: exit %d, stdout %q", code, out)
	}
}

func TestCompleteRemotes(t *testing.T) {
	env := testEnv(t)
	for _, name := range []string{"team", "lab"} {
		if _, errOut, code := runCase(t, env, "", "remote add", func(a *app) error {
			return runRemoteAdd(a, remoteAddOptions{name: name, url: "https://u:pw@example.com/" + name + ".git", branch: remote.DefaultBranch})
		}); code != 0 {
			t.Fatal(errOut)
		}
	}
	a := newTestApp(context.Background(), nil, nil, nil, env)
	got, _ := a.completeRemotes(nil, nil, "")
	if len(got) != 2 || !strings.HasPrefix(got[0], "lab\t") || !strings.HasPrefix(got[1], "team\t") || strings.Contains(strings.Join(got, " "), "pw@") {
		t.Fatalf("completion: %q", got)
	}
	if got, _ := a.completeRemoteArg(nil, []string{"team"}, ""); len(got) != 0 {
		t.Fatalf("completion of a second argument: %q", got)
	}
}

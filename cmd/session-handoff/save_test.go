package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
	"github.com/session-handoff/session-handoff/store"
)

// cmdRun is what a command did: its output and exit code.
type cmdRun struct {
	stdout, stderr string
	code           int
}

// tempEnv is an environment whose store and keys live in a directory of
// the test's own.
func tempEnv(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	return map[string]string{"SESSION_HANDOFF_HOME": filepath.Join(dir, "sh"), "HOME": filepath.Join(dir, "home")}
}

// runIn runs a command's run function in process with fake streams and
// reports it as the program would, under the command's name.
func runIn(t *testing.T, env map[string]string, stdin io.Reader, name string, run func(a *app) error) cmdRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := newTestApp(context.Background(), stdin, &stdout, &stderr, env)
	code := a.report(name, run(a))
	return cmdRun{stdout.String(), stderr.String(), code}
}

// stored lists what the store of env holds, newest first.
func stored(t *testing.T, env map[string]string) []*handoff.Record {
	t.Helper()
	a := newTestApp(context.Background(), nil, io.Discard, io.Discard, env)
	s, err := a.openStore()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := s.List(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*handoff.Record
	for _, e := range entries {
		rec, err := s.Get(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// gitRepo makes a git worktree with one commit on branch main.
func gitRepo(t *testing.T) string {
	t.Helper()
	testsys.LookPath(t, "git")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func TestRunSave(t *testing.T) {
	repo := gitRepo(t)
	plain := t.TempDir()
	note := func(title string) noteOptions { return noteOptions{title: title} }
	cases := []struct {
		name   string
		opts   saveOptions
		stdin  string
		code   int
		stdout string // a substring; "" for none
		stderr string // a substring; "" for none
		check  func(t *testing.T, rec *handoff.Record)
	}{
		{name: "in a git worktree", code: 0, stdout: "saved ",
			opts: saveOptions{tool: "codex", project: repo, notes: noteOptions{title: "Fix the parser", summary: "half done", next: []string{"Run the race tests"}, tagValues: []string{"auth"}}},
			check: func(t *testing.T, rec *handoff.Record) {
				if rec.Tool != "codex" || rec.Summary != "half done" || len(rec.NextSteps) != 1 || rec.Tags[0] != "auth" {
					t.Errorf("record %+v", rec)
				}
				if rec.Git == nil || rec.Git.Branch != "main" {
					t.Errorf("git state %+v, want branch main", rec.Git)
				}
			}},
		{name: "summary from stdin, no git", code: 0, stdin: "from the pipe\n",
			opts: saveOptions{tool: "generic", project: plain, noGit: true, notes: noteOptions{title: "Release prep", summaryFile: "-"}},
			check: func(t *testing.T, rec *handoff.Record) {
				if rec.Git != nil || !strings.HasPrefix(rec.Summary, "from the pipe") || rec.Project.Path != plain {
					t.Errorf("record git %v summary %q path %q", rec.Git, rec.Summary, rec.Project.Path)
				}
			}},
		{name: "json prints the record", code: 0, stdout: `"title": "As JSON"`,
			opts: saveOptions{tool: "generic", project: plain, noGit: true, json: true, notes: note("As JSON")}},
		{name: "no title", code: 2, stderr: "session-handoff: save: --title is required",
			opts: saveOptions{tool: "generic", project: plain, noGit: true}},
		{name: "bad tool", code: 2, stderr: `--tool "Vim!"`,
			opts: saveOptions{tool: "Vim!", project: plain, noGit: true, notes: note("t")}},
		{name: "bad tag", code: 2, stderr: `--tag "-x"`,
			opts: saveOptions{tool: "generic", project: plain, noGit: true, notes: noteOptions{title: "t", tagValues: []string{"-x"}}}},
		{name: "summary twice", code: 2, stderr: "cannot be used together",
			opts: saveOptions{tool: "generic", project: plain, noGit: true, notes: noteOptions{title: "t", summary: "a", summaryFile: "-"}}},
		{name: "empty next step", code: 2, stderr: "session-handoff: save: ",
			opts: saveOptions{tool: "generic", project: plain, noGit: true, notes: noteOptions{title: "t", next: []string{"  "}}}},
		{name: "not a git worktree", code: 1, stderr: "is not a git worktree\nhint: pass --no-git",
			opts: saveOptions{tool: "generic", project: plain, notes: note("t")}},
		{name: "missing project", code: 1, stderr: "missing does not exist",
			opts: saveOptions{tool: "generic", project: filepath.Join(plain, "missing"), noGit: true, notes: note("t")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := tempEnv(t)
			r := runIn(t, env, strings.NewReader(tc.stdin), "save", func(a *app) error { return runSave(a, &tc.opts) })
			if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q", r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
			}
			recs := stored(t, env)
			if tc.code != 0 {
				if len(recs) != 0 {
					t.Fatalf("a failed save stored %d records", len(recs))
				}
				return
			}
			if len(recs) != 1 || recs[0].Title != tc.opts.notes.title {
				t.Fatalf("stored %d records, want one titled %q", len(recs), tc.opts.notes.title)
			}
			if !tc.opts.json && r.stdout != "saved "+string(recs[0].ID)+"  "+recs[0].Title+"\n" {
				t.Errorf("stdout %q does not name the stored id %s", r.stdout, recs[0].ID)
			}
			if tc.check != nil {
				tc.check(t, recs[0])
			}
		})
	}
}

// On a terminal, save says "saved …" first and its advice after, and the
// advice does not ask for a summary that was given (a short one is asked
// to say more).
func TestSaveAdviceAfterSaved(t *testing.T) {
	env := tempEnv(t)
	var out bytes.Buffer
	a := newTestApp(context.Background(), nil, &out, &out, env)
	a.stderrTTY = true
	opts := saveOptions{tool: "generic", project: t.TempDir(), noGit: true, notes: noteOptions{title: "Fix the parser", summary: "half done"}}
	if err := runSave(a, &opts); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	saved, note := strings.Index(text, "saved "), strings.Index(text, "note: score")
	if saved < 0 || note < 0 || note < saved {
		t.Fatalf("want 'saved' and then the advice:\n%s", text)
	}
	if strings.Contains(text, "add a summary") || !strings.Contains(text, "a longer summary") {
		t.Fatalf("advice asks for a summary that was given:\n%s", text)
	}
}

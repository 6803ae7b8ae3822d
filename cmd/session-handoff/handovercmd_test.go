package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/handover"
)

func TestHandoverCheck(t *testing.T) {
	finished := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		checkpoint string // checkpoint.json's content; "" for none
		project    string // "" for the test's project
		code       int
		out, err   string
	}{
		{name: "no run", code: 0, out: "no handover run has started for this project\n"},
		{name: "interrupted", checkpoint: checkpointJSON(t, handover.RunRunning, nil), code: 1,
			out: "handover run 01KRUN was interrupted: steps left: [note]\nresume it with 'session-handoff handover run'\n"},
		{name: "completed", checkpoint: checkpointJSON(t, handover.RunCompleted, &finished), code: 2,
			out: "the last handover run (01KRUN) completed at " + finished.Local().Format(time.RFC3339) + "\n"},
		{name: "damaged checkpoint", checkpoint: "{", code: 1,
			err: "session-handoff: handover check: read "},
		{name: "missing project", project: "nope", code: 1, err: "session-handoff: handover check: project: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			project := t.TempDir()
			if tc.checkpoint != "" {
				a := newTestApp(context.Background(), nil, nil, nil, env)
				stateDir, err := a.handoverStateDir(project)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(stateDir, 0o700); err != nil {
					t.Fatal(err)
				}
				if tc.checkpoint == "{" {
					// A checkpoint that cannot be read: a directory in its place.
					err = os.Mkdir(filepath.Join(stateDir, "checkpoint.json"), 0o700)
				} else {
					err = os.WriteFile(filepath.Join(stateDir, "checkpoint.json"), []byte(tc.checkpoint), 0o600)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			opts := handoverStateOptions{project: project}
			if tc.project != "" {
				opts.project = filepath.Join(project, tc.project)
			}
			out, errOut, code := runCase(t, env, "", "handover check", func(a *app) error { return runHandoverCheck(a, opts) })
			if code != tc.code || out != tc.out || !strings.HasPrefix(errOut, tc.err) || tc.err == "" && errOut != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr %q…", code, out, errOut, tc.code, tc.out, tc.err)
			}
		})
	}
}

// checkpointJSON is a checkpoint of run 01KRUN with one step done and one
// pending, in state.
func checkpointJSON(t *testing.T, state string, finished *time.Time) string {
	t.Helper()
	cp := handover.Checkpoint{Version: handover.CheckpointVersion, RunID: "01KRUN", State: state,
		StartedAt: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), FinishedAt: finished, HandoffID: "01KHANDOFF",
		Steps: []handover.StepState{{Name: "save", Kind: "save", State: handover.StepDone}, {Name: "note", Kind: "memory", State: handover.StepPending}}}
	data, err := json.Marshal(cp)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestPauseUnpause(t *testing.T) {
	env := testEnv(t)
	project := t.TempDir()
	a := newTestApp(context.Background(), nil, nil, nil, env)
	kr, _ := a.keyring()
	for _, tc := range []struct {
		name  string
		pause bool
		opts  pauseOptions
		out   string
		file  string // the PAUSE file that must exist afterwards ("" none)
	}{
		{"pause the project", true, pauseOptions{project: project, reason: "review"}, "paused: " + filepath.Join(project, "PAUSE") + "\n", filepath.Join(project, "PAUSE")},
		{"pause it again", true, pauseOptions{project: project}, "already paused: " + filepath.Join(project, "PAUSE") + "\n", filepath.Join(project, "PAUSE")},
		{"unpause it", false, pauseOptions{project: project}, "unpaused: removed " + filepath.Join(project, "PAUSE") + "\n", ""},
		{"pause globally, whatever the project", true, pauseOptions{project: filepath.Join(project, "nope"), global: true}, "paused: " + filepath.Join(kr.Dir, "PAUSE") + "\n", filepath.Join(kr.Dir, "PAUSE")},
		{"unpause globally", false, pauseOptions{global: true}, "unpaused: removed " + filepath.Join(kr.Dir, "PAUSE") + "\n", ""},
		{"unpause when not paused", false, pauseOptions{project: project}, "not paused: no " + filepath.Join(project, "PAUSE") + "\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(a *app) error { return runUnpause(a, tc.opts) }
			name := "unpause"
			if tc.pause {
				run, name = func(a *app) error { return runPause(a, tc.opts) }, "pause"
			}
			out, errOut, code := runCase(t, env, "", name, run)
			if code != 0 || out != tc.out || errOut != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, tc.out)
			}
			for _, f := range []string{filepath.Join(project, "PAUSE"), filepath.Join(kr.Dir, "PAUSE")} {
				_, err := os.Stat(f)
				if exists := err == nil; exists != (f == tc.file) {
					t.Fatalf("%s exists: %v", f, exists)
				}
			}
		})
	}
}

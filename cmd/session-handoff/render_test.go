package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// TestRender runs render's run function in process with fake streams.
func TestRender(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	env := map[string]string{"SESSION_HANDOFF_HOME": home, "HOME": home}
	seed := newTestApp(context.Background(), nil, &bytes.Buffer{}, &bytes.Buffer{}, env)
	s, err := seed.openStore()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := handoff.New(time.Now(), "codex", "Refactor auth middleware")
	if err != nil {
		t.Fatal(err)
	}
	rec.Project.Path = project
	rec.NextSteps = []string{"Fix refresh test matrix"}
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	claudeMD := filepath.Join(project, "CLAUDE.md")
	claudeLocal := filepath.Join(project, "CLAUDE.local.md")

	for _, tc := range []struct {
		name       string
		opts       renderOptions
		code       int
		stdout     string // a line stdout contains
		stderr     string // a line stderr contains
		wantClaude bool   // CLAUDE.md holds the block afterwards
	}{
		{name: "latest as a prompt", opts: renderOptions{target: "claude-code", as: "prompt"}, stdout: "Fix refresh test matrix"},
		{name: "by id", opts: renderOptions{ref: string(rec.ID), target: "codex", as: "prompt"}, stdout: "Refactor auth middleware"},
		{name: "unknown target", opts: renderOptions{target: "vim", as: "prompt"}, code: 2, stderr: "render: unknown target"},
		{name: "bad --as", opts: renderOptions{target: "generic", as: "poem"}, code: 2, stderr: `render: --as "poem": want prompt or instructions`},
		{name: "unknown section", opts: renderOptions{target: "generic", as: "prompt", sections: []string{"gossip"}}, code: 2, stderr: `unknown section "gossip"`},
		{name: "bad budget", opts: renderOptions{target: "generic", as: "prompt", budget: "lots"}, code: 2, stderr: "render: "},
		{name: "unknown id", opts: renderOptions{ref: "01ZZZZZZZZ", target: "generic", as: "prompt"}, code: 1, stderr: "render: "},
		{name: "--write with --as prompt", opts: renderOptions{target: "claude-code", as: "prompt", asSet: true, write: true, project: project}, code: 2, stderr: "use --as instructions"},
		{name: "--write and -o", opts: renderOptions{target: "claude-code", as: "instructions", write: true, outSet: true, output: "x", project: project}, code: 2, stderr: "exclusive"},
		{name: "--remove with an id", opts: renderOptions{ref: "latest", target: "claude-code", as: "prompt", remove: true, project: project}, code: 2, stderr: "--remove takes no id"},
		{name: "--write --shared into CLAUDE.md", opts: renderOptions{target: "claude-code", as: "prompt", write: true, shared: true, project: project}, stdout: "wrote handoff " + string(rec.ID) + " into " + claudeMD, wantClaude: true},
		{name: "--write again changes nothing", opts: renderOptions{target: "claude-code", as: "instructions", write: true, shared: true, project: project}, stdout: claudeMD + " already holds this handoff", wantClaude: true},
		{name: "--remove --shared", opts: renderOptions{target: "claude-code", as: "prompt", remove: true, shared: true, project: project}, stdout: "removed the handoff block from " + claudeMD},
		{name: "--remove again", opts: renderOptions{target: "claude-code", as: "prompt", remove: true, project: project}, stdout: "no handoff block in " + claudeLocal + " or " + claudeMD},
		{name: "--write into the personal CLAUDE.local.md", opts: renderOptions{target: "claude-code", as: "instructions", write: true, project: project}, stdout: "wrote handoff " + string(rec.ID) + " into " + claudeLocal},
		{name: "--shared without --write", opts: renderOptions{target: "claude-code", as: "instructions", shared: true, project: project}, code: 2, stderr: "--shared goes with --write or --remove"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			a := newTestApp(context.Background(), nil, &stdout, &stderr, env)
			opts := tc.opts
			if opts.output == "" {
				opts.output = "-"
			}
			code := a.report("render", runRender(a, &opts))
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr.String())
			}
			if tc.code != 0 && stdout.Len() != 0 {
				t.Errorf("a refused render wrote %q", stdout.String())
			}
			data, _ := os.ReadFile(claudeMD)
			if got := strings.Contains(string(data), "Refactor auth middleware"); got != tc.wantClaude {
				t.Errorf("CLAUDE.md holds the handoff: %v, want %v\n%s", got, tc.wantClaude, data)
			}
		})
	}
}

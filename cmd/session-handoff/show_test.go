package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
)

func TestRunShow(t *testing.T) {
	env := tempEnv(t)
	ids := seed(t, env,
		handoff.Record{Tool: "codex", Title: "Newest \x1b[31mred\x1b[0m", Summary: "where things stand", Project: handoff.Project{Path: "/src/api"}},
		handoff.Record{Tool: "codex", Title: "Older", Project: handoff.Project{Path: "/src/api"}},
	)
	empty := tempEnv(t)
	cases := []struct {
		name   string
		env    map[string]string
		opts   showOptions
		code   int
		stdout []string // substrings
		stderr string
	}{
		{name: "latest", opts: showOptions{ref: "latest"}, stdout: []string{"id:       " + string(ids[0]), "Summary\n  where things stand"}},
		{name: "unique prefix", opts: showOptions{ref: string(ids[1])[:20]}, stdout: []string{"Older\n", "id:       " + string(ids[1])}},
		{name: "not found", opts: showOptions{ref: "ZZZZZZZZZZ"}, code: 1, stderr: "session-handoff: show: id prefix \"ZZZZZZZZZZ\": not found\nhint: run 'session-handoff list'"},
		{name: "ambiguous", opts: showOptions{ref: string(ids[0])[:1]}, code: 1, stderr: "hint: use a longer prefix: "},
		{name: "empty store", env: empty, opts: showOptions{ref: "latest"}, code: 1, stderr: "hint: save one with"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := env
			if tc.env != nil {
				e = tc.env
			}
			r := runIn(t, e, nil, "show", func(a *app) error { return runShow(a, tc.opts) })
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d, stderr with %q", r.code, r.stderr, tc.code, tc.stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout %q lacks %q", r.stdout, s)
				}
			}
			if strings.ContainsRune(r.stdout, 0x1b) {
				t.Errorf("stdout carries an escape sequence from the record: %q", r.stdout)
			}
			if tc.code != 0 && r.stdout != "" {
				t.Errorf("stdout %q on failure", r.stdout)
			}
		})
	}
	t.Run("json is the stored record", func(t *testing.T) {
		r := runIn(t, env, nil, "show", func(a *app) error { return runShow(a, showOptions{ref: "latest", json: true}) })
		var rec handoff.Record
		if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || rec.ID != ids[0] || rec.Title != "Newest \x1b[31mred\x1b[0m" {
			t.Fatalf("JSON %q (%v): want the newest record exactly as stored", r.stdout, err)
		}
	})
}

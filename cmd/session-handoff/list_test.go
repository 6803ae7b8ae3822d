package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// seed stores one record per title, each an hour older than the one
// before, and returns their ids in the same order.
func seed(t *testing.T, env map[string]string, recs ...handoff.Record) []handoff.ID {
	t.Helper()
	a := newTestApp(context.Background(), nil, io.Discard, io.Discard, env)
	s, err := a.openStore()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ids := make([]handoff.ID, len(recs))
	// recs are newest first; they are saved oldest first, as they would
	// have been made, so that the one that entered the store last (what
	// "latest" means) is also the newest.
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		rec, err := handoff.New(now.Add(-time.Duration(i)*time.Hour), r.Tool, r.Title)
		if err != nil {
			t.Fatal(err)
		}
		rec.Project, rec.Summary, rec.Tags = r.Project, r.Summary, r.Tags
		if err := rec.Normalize(); err != nil {
			t.Fatal(err)
		}
		if err := s.Save(rec); err != nil {
			t.Fatal(err)
		}
		ids[i] = rec.ID
	}
	return ids
}

func TestRunList(t *testing.T) {
	env := tempEnv(t)
	ids := seed(t, env,
		handoff.Record{Tool: "codex", Title: "Rate limiter", Project: handoff.Project{Path: "/src/api"}, Tags: []string{"perf"}},
		handoff.Record{Tool: "claude-code", Title: "Auth middleware", Project: handoff.Project{Path: "/src/api"}},
		handoff.Record{Tool: "codex", Title: "Landing page", Project: handoff.Project{Path: "/src/site"}},
	)
	short := func(i int) string { return ids[i].Short() }
	all := listOptions{filter: store.Filter{Limit: defaultListLimit}}
	with := func(f func(o *listOptions)) listOptions { o := all; f(&o); return o }
	cases := []struct {
		name   string
		opts   listOptions
		code   int
		want   []int  // the records listed, in order
		stderr string // a substring
	}{
		{name: "everything, newest first", opts: all, want: []int{0, 1, 2}},
		{name: "tool", opts: with(func(o *listOptions) { o.filter.Tool = "codex" }), want: []int{0, 2}},
		{name: "project name", opts: with(func(o *listOptions) { o.project = "api" }), want: []int{0, 1}},
		{name: "project directory", opts: with(func(o *listOptions) { o.project = "/src/site" }), want: []int{2}},
		{name: "query in a tag", opts: with(func(o *listOptions) { o.filter.Query = "PERF" }), want: []int{0}},
		{name: "since", opts: with(func(o *listOptions) { o.since = "90m" }), want: []int{0, 1}},
		{name: "latest", opts: with(func(o *listOptions) { o.filter.Latest = true; o.filter.Tool = "codex" }), want: []int{0}},
		{name: "limit", opts: with(func(o *listOptions) { o.filter.Limit = 1 }), want: []int{0}},
		{name: "nothing matches", opts: with(func(o *listOptions) { o.filter.Tool = "gemini" }), stderr: "no handoffs match"},
		{name: "negative limit", opts: with(func(o *listOptions) { o.filter.Limit = -1 }), code: 2, stderr: "session-handoff: list: --limit must be 0 or more\nhint: run 'session-handoff list --help'"},
		{name: "bad since", opts: with(func(o *listOptions) { o.since = "yesterday" }), code: 2, stderr: `session-handoff: list: --since "yesterday": want a duration`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runIn(t, env, nil, "list", func(a *app) error { return runList(a, &tc.opts) })
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d, stderr with %q", r.code, r.stderr, tc.code, tc.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			if len(tc.want) == 0 {
				if r.stdout != "" {
					t.Fatalf("stdout %q, want nothing", r.stdout)
				}
				return
			}
			if len(lines) != len(tc.want)+1 || !strings.HasPrefix(lines[0], "ID ") {
				t.Fatalf("stdout %q: want a header and %d rows", r.stdout, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(lines[i+1], short(w)+" ") {
					t.Errorf("row %d is %q, want record %d (%s)", i, lines[i+1], w, short(w))
				}
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		opts := with(func(o *listOptions) { o.json = true; o.filter.Tool = "gemini" })
		r := runIn(t, env, nil, "list", func(a *app) error { return runList(a, &opts) })
		if r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
			t.Fatalf("no match as JSON: exit %d, stdout %q, want []", r.code, r.stdout)
		}
		opts = with(func(o *listOptions) { o.json = true })
		r = runIn(t, env, nil, "list", func(a *app) error { return runList(a, &opts) })
		var got []store.Entry
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got) != 3 || got[2].ID != ids[2] {
			t.Fatalf("JSON %q (%v): want the three entries, newest first", r.stdout, err)
		}
	})
}

package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/search"
)

// The search picker without a terminal: keys go in, the screen's lines
// come out; each key typed runs the query again, enter gives the chosen
// result's open command, esc cancels.
func TestSearchPicker(t *testing.T) {
	docs := []search.Doc{
		{Type: "session", Agent: "codex", ID: "s1", Path: "/h/rollout-1.jsonl", Title: "rotate the tokens", CWD: "/w/app", Time: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)},
		{Type: "handoff", Agent: "claude-code", ID: "01JABCDEFGHJKMNPQRSTVWXYZ0", Title: "token refresh", CWD: "/w/app", Time: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)},
	}
	var queries []string
	p := &searchPicker{limit: 10, open: openCommand, find: func(q search.Query, limit int) (search.Results, error) {
		queries = append(queries, q.String())
		var res search.Results
		for _, d := range docs {
			if strings.Contains(q.String(), "tok") {
				res.Hits = append(res.Hits, search.Hit{Doc: d, Kind: search.KindRequest, Snippet: "the «" + q.String() + "» here"})
			}
		}
		return res, nil
	}}
	screen := func() string { return strings.Join(p.lines(24), "\n") }
	if s := screen(); !strings.Contains(s, "type to search") {
		t.Errorf("empty picker:\n%s", s)
	}
	// Typed in two reads (a paste is one): the query runs once a read.
	for _, k := range []string{"to", "k"} {
		if _, done, _ := p.keys([]byte(k)); done {
			t.Fatal("done while typing")
		}
	}
	if len(queries) != 2 {
		t.Errorf("queries run: %q, want one a read", queries)
	}
	s := screen()
	for _, want := range []string{"search> tok", "2 found", "> 2026-11-02", "codex", "rotate the tokens", "    request: the «tok» here", "  2026-11-01"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	// Down, enter: the second result's command.
	cmd, done, err := p.keys([]byte("\x1b[B\r"))
	if !done || err != nil || cmd != "session-handoff show 01JABCDEFGHJKMNPQRSTVWXYZ0" {
		t.Errorf("enter on the second: %q %v %v", cmd, done, err)
	}
	// A query that cannot be parsed says why, and finds nothing.
	p.keys([]byte("\x15tok OR"))
	if s := screen(); !strings.Contains(s, "search> tok OR") || !strings.Contains(s, "OR needs a word on each side") || strings.Contains(s, "found") {
		t.Errorf("unparsable query:\n%s", s)
	}
	if _, done, _ := p.keys([]byte("\r")); done {
		t.Error("enter with nothing found chose something")
	}
	// Backspace, then esc cancels.
	p.keys([]byte{0x7f})
	if _, done, err := p.keys([]byte{0x1b}); !done || !errors.Is(err, errCancelled) {
		t.Errorf("esc: %v %v", done, err)
	}
}

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
)

// selectEntries opens the store and finds the handoffs select offers:
// the filters, and with withQuery the --query text searched in every text
// field (the terminal picker searches as the user types instead).
func selectEntries(a *app, opts selectOptions, withQuery bool) (*store.Store, []store.Entry, error) {
	t, err := parseSince(opts.since, time.Now())
	if err != nil {
		return nil, nil, err
	}
	s, err := a.openStore()
	if err != nil {
		return nil, nil, err
	}
	f := store.Filter{IDPrefix: opts.idPrefix, Since: t, Tool: opts.tool, Project: store.ProjectFilter(opts.project), Limit: opts.limit}
	if f.Limit == 0 || f.Limit > maxPickerEntries {
		f.Limit = maxPickerEntries
	}
	if withQuery {
		f.Query = opts.query
	}
	entries, err := listEntries(s, f)
	if err != nil {
		return nil, nil, err
	}
	if len(entries) == 0 {
		return nil, nil, withHint(errors.New("no handoffs match"), "'session-handoff list' shows what is stored; save one with 'session-handoff save --title …'")
	}
	return s, entries, nil
}

// runSelectScript is select without a terminal, as session-handoff
// v0.7.5's select worked: --print-id prints the newest match's id;
// otherwise the matches are listed, numbered, on stderr, and a number read
// from standard input chooses the id printed.
func runSelectScript(a *app, opts selectOptions) error {
	_, entries, err := selectEntries(a, opts, true)
	if err != nil {
		return err
	}
	if opts.printID {
		fmt.Fprintln(a.stdout, entries[0].ID)
		return nil
	}
	now := time.Now()
	for i, e := range entries {
		fmt.Fprintf(a.stderr, "%d) %s  %-9s %-12s %s\n", i+1, e.ID, render.Ago(e.CreatedAt, now), cell(e.Tool, 12), cell(e.Title, 60))
	}
	fmt.Fprint(a.stderr, "Select number: ")
	line, err := bufio.NewReader(io.LimitReader(a.stdin, 64)).ReadString('\n')
	fmt.Fprintln(a.stderr)
	if strings.TrimSpace(line) == "" && err != nil {
		return withHint(errors.New("no number on standard input"), "pipe one in (echo 1 | session-handoff select), pass --print-id for the newest match, or use 'session-handoff list' in scripts")
	}
	n, cerr := strconv.Atoi(strings.TrimSpace(line))
	if cerr != nil || n < 1 || n > len(entries) {
		return usagef("choose a number from 1 to %d", len(entries))
	}
	fmt.Fprintln(a.stdout, entries[n-1].ID)
	return nil
}

// recordText returns a function giving entry i's searchable text, read
// from its record on first use and kept; a record that cannot be read has
// none.
func recordText(s *store.Store, entries []store.Entry) func(int) string {
	cache := make(map[int]string)
	return func(i int) string {
		if t, ok := cache[i]; ok {
			return t
		}
		t := ""
		if rec, err := s.Get(entries[i].ID); err == nil {
			t = rec.SearchText()
		}
		cache[i] = t
		return t
	}
}

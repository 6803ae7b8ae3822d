package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/style"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
)

// defaultListLimit is how many handoffs list shows unless told otherwise.
const defaultListLimit = 20

// listOptions are list's flags: the store filter, and the flags that need
// reading before they become part of it.
type listOptions struct {
	filter  store.Filter
	project string // a project name or directory
	since   string // a duration back from now or a date
	json    bool
	full    bool // with json: whole records
}

func newListCmd(a *app) *cobra.Command {
	var opts listOptions
	cmd := &cobra.Command{
		Use:   "list [--tool T] [--project P] [--query TEXT] [--id PREFIX] [--since D] [--latest] [--limit N] [--json]",
		Short: "list stored handoffs, newest first",
		Long: `Lists handoffs from the store's index, newest first: the last to enter
this store (saved, captured or imported) first, whatever date or id a
handoff claims. Filters combine:
--project matches a project name or a directory (and everything under it);
--query looks for TEXT, ignoring case, in every text field: title, the
whole summary, decisions, next steps, questions, tags, files, project;
--id also takes the id an earlier version gave a handoff (20260312, kept
by import --legacy); --since takes a duration back from now (90m, 6h, 2d, 1w) or
a date. --limit 0 lists everything; --latest takes no --limit.

The ORIGIN column (origin in --json) says how far to trust each: mine
(saved or captured here), verified: NAME or pinned: NAME (signed by a key
your trust store names), untrusted, unsigned, or legacy. --json prints the
index's entries, without the summary and next steps; --json --full prints
the whole records, with them, as v0.7.5's list --json did (README's table
maps its fields).`,
		Example: `  session-handoff list --since 2d --tool codex
  session-handoff list --project . --latest --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.filter.Latest && cmd.Flags().Changed("limit") {
				return usagef("--latest and --limit together: --latest is the one newest match; drop --limit, or drop --latest to list N")
			}
			return runList(a, &opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.filter.Tool, "tool", "", "only handoffs from this agent")
	f.StringVar(&opts.project, "project", "", "only handoffs for this project name or directory")
	f.StringVar(&opts.filter.Query, "query", "", "only handoffs whose text contains this")
	f.StringVar(&opts.filter.IDPrefix, "id", "", "only ids starting with this prefix")
	f.StringVar(&opts.since, "since", "", "only handoffs newer than this (6h, 2d, 2026-11-20)")
	f.BoolVar(&opts.filter.Latest, "latest", false, "only the newest match")
	f.IntVar(&opts.filter.Limit, "limit", defaultListLimit, "at most this many (0 for all)")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	f.BoolVar(&opts.full, "full", false, "with --json: print whole records (summary, next steps: v0.7.5's list --json fields)")
	return cmd
}

func runList(a *app, opts *listOptions) error {
	f := opts.filter
	if f.Limit < 0 {
		return usagef("--limit must be 0 or more")
	}
	now := time.Now()
	t, err := parseSince(opts.since, now)
	if err != nil {
		return err
	}
	f.Since = t
	f.Project = store.ProjectFilter(opts.project)
	if opts.full && !opts.json {
		return usagef("--full goes with --json")
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	a.noticeLegacyStore()
	// One more than asked tells whether there are more to say so.
	limit := f.Limit
	if limit > 0 && !f.Latest {
		f.Limit++
	}
	entries, err := listEntries(s, f)
	if err != nil {
		return err
	}
	more := limit > 0 && len(entries) > limit
	if more {
		entries = entries[:limit]
	}
	s.FillOrigins(entries)
	if opts.full {
		return a.writeFullRecords(s, entries)
	}
	if opts.json {
		if entries == nil {
			entries = []store.Entry{}
		}
		return a.writeJSON(entries)
	}
	if len(entries) == 0 {
		if all, err := s.List(store.Filter{Limit: 1}); err == nil && len(all) == 0 {
			fmt.Fprintln(a.stderr, "no handoffs yet: save one with 'session-handoff save --title …', or capture an agent's session with 'session-handoff capture'")
			return nil
		}
		fmt.Fprintln(a.stderr, "no handoffs match")
		return nil
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCREATED\tTOOL\tORIGIN\tPROJECT\tTITLE")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ID.Short(), render.Ago(e.CreatedAt, now), e.Tool, cell(e.Origin, 32), cell(e.ProjectName, 24), cell(e.Title, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err = io.WriteString(a.stdout, paintTable(a.style(), b.String(), "ORIGIN", paintOrigin)); err != nil {
		return err
	}
	if more {
		fmt.Fprintf(a.stderr, "the newest %d shown; there are more: --limit 0 lists them all\n", limit)
	}
	return nil
}

// paintTable paints a table tabwriter laid out: its header line bold, and
// each cell of the column headed column by paint. Painting comes after
// the layout, so the columns stay where they were.
func paintTable(st style.Style, table, column string, paint func(style.Style, string) string) string {
	if !st.On {
		return table
	}
	lines := strings.SplitAfter(table, "\n")
	from, to, ok := style.Column(lines[0], column)
	for i, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		switch {
		case i == 0:
			body = st.Bold(strings.TrimRight(body, " "))
		case ok:
			body = style.Span(body, from, to, func(t string) string { return paint(st, t) })
		}
		lines[i] = body
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}

// paintOrigin colours an origin by how far it is vouched for: mine and a
// trusted signer green, untrusted and unsigned yellow, legacy dim.
func paintOrigin(st style.Style, origin string) string {
	switch {
	case origin == "mine" || strings.HasPrefix(origin, "verified") || strings.HasPrefix(origin, "pinned"):
		return st.Good(origin)
	case origin == "legacy":
		return st.Dim(origin)
	case origin == "":
		return origin
	}
	return st.Warn(origin)
}

// cell makes a value safe and short enough for one table cell: control
// characters (including escape sequences a hostile record might carry)
// become spaces.
func cell(s string, n int) string {
	s = strings.NewReplacer("\n", " ", "\t", " ").Replace(clean(s))
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

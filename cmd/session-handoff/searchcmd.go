package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/proc"
	"github.com/session-handoff/session-handoff/internal/search"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/store"
	"github.com/session-handoff/session-handoff/targets"
)

// searchOptions are search's flags.
type searchOptions struct {
	agent, project, machine, kind string
	since, until                  string
	json, reindex, noUpdate       bool
	update                        bool // catch up only, answer nothing
	limit                         int
}

func newSearchCmd(a *app) *cobra.Command {
	var opts searchOptions
	cmd := &cobra.Command{
		Use:   "search QUERY... [--agent A] [--project DIR] [--since D] [--until D] [--machine M] [--kind K] [--limit N] [--json] | search | search --reindex",
		Short: "search every past session and handoff",
		Long: `Searches the sessions of every agent this machine can read and every stored
handoff (saved, imported, received and synced from your other devices), newest
first: the requests, the agent's messages and summaries, the commands run with
their output's first lines, the files touched, the decisions, plans and todos.

Words are ANDed; OR between two words takes either; "a quoted phrase" matches
its words in order; a word ending in * is a prefix (refact*); -word leaves out
what has it. Case is ignored, and words are runs of letters and digits, so
foo-bar is the phrase "foo bar".

The index lives in the data directory (search-index/ beside the store) and holds the
text redacted as capture redacts it; search first catches up on the sessions
and handoffs that changed since it last ran (--no-update skips that), and
--reindex builds it again from nothing, and --update catches it up without a
query: the hooks run that in the background after each capture, once the index
exists. Deleting the directory is safe.

Without a query, on a terminal, search opens a picker over the index: type
to search (each key runs the query again), up/down to move, enter prints the
command that opens the chosen result (show ID, capture --session PATH), esc
cancels; the filters apply. Elsewhere a query is required.

--project keeps what ran in that directory or under it, and handoffs of the
same repository made elsewhere (same root commit or remote), as latest finds
them. --kind is one of request, message, command, file, decision. --json
prints {"results": [...], "more": bool}, each result with type, agent, id,
path, title, project, machine, time, kind, snippet (the hit between « and »)
and open (the command that opens it).`,
		Example: `  session-handoff search flaky test
  session-handoff search '"connection refused"' --agent codex --since 2w
  session-handoff search 'refact* -revert' --project . --kind request --json
  session-handoff search --reindex
  session-handoff search --agent codex       # on a terminal: type, pick, enter`,
		RunE: func(_ *cobra.Command, args []string) error { return runSearch(a, opts, args) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.agent, "agent", "", "only this agent's: "+agents.OrList(capture.AgentNames()...))
	f.StringVar(&opts.project, "project", "", "only what ran in this directory or under it, or in the same repository")
	f.StringVar(&opts.since, "since", "", "only what is newer than this (6h, 2d, 2026-11-20)")
	f.StringVar(&opts.until, "until", "", "only what is older than this (6h, 2d, 2026-11-20)")
	f.StringVar(&opts.machine, "machine", "", "only what was done on this machine")
	f.StringVar(&opts.kind, "kind", "", "only hits in request, message, command, file or decision")
	f.IntVar(&opts.limit, "limit", 20, "show at most this many")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	f.BoolVar(&opts.reindex, "reindex", false, "build the index again from nothing")
	f.BoolVar(&opts.noUpdate, "no-update", false, "answer from the index as it is, without catching up")
	f.BoolVar(&opts.update, "update", false, "catch the index up, with no query (what the hooks run in the background)")
	cmd.RegisterFlagCompletionFunc("agent", fixedCompletion(capture.AgentNames()...))
	cmd.RegisterFlagCompletionFunc("kind", fixedCompletion("request", "message", "command", "file", "decision"))
	return cmd
}

func runSearch(a *app, opts searchOptions, args []string) error {
	if opts.limit < 1 {
		return usagef("--limit must be 1 or more")
	}
	if len(args) == 0 && !opts.reindex && !opts.update {
		if in, tty, ok := a.searchTerminal(); ok {
			defer tty.Close()
			return a.searchInteractive(opts, in, tty)
		}
	}
	var q search.Query
	if len(args) > 0 || !opts.reindex && !opts.update {
		var err error
		if q, err = search.ParseQuery(strings.Join(args, " ")); err != nil {
			return usagef("search: %w", err)
		}
	}
	ix, f, err := a.openSearch(opts)
	if err != nil {
		return err
	}
	if len(q.Groups) == 0 {
		return nil
	}
	res, err := ix.Search(q, f, opts.limit)
	if errors.Is(err, search.ErrNoIndex) {
		res, err = search.Results{}, nil
	}
	if err != nil {
		return fmt.Errorf("search: %w (search --reindex rebuilds the index)", err)
	}
	if opts.json {
		return a.writeJSON(searchJSON(res))
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(a.stderr, "nothing found")
		return nil
	}
	for _, h := range res.Hits {
		d := h.Doc
		fmt.Fprintf(a.stdout, "%s  %s  %s  %s  %s\n", d.Time.Local().Format("2006-01-02 15:04"), d.Agent,
			untrusted.OneLine(displayPath(a, d.CWD), 60), untrusted.OneLine(d.Machine, 40), untrusted.OneLine(d.Title, 100))
		fmt.Fprintf(a.stdout, "  %s: %s\n", h.Kind, h.Snippet)
		fmt.Fprintf(a.stdout, "  %s\n", openCommand(d))
	}
	if res.More {
		fmt.Fprintf(a.stderr, "more found: --limit %d shows more\n", opts.limit*2)
	}
	return nil
}

// searchInteractive is search without a query on a terminal: the index
// caught up (unless --no-update), the picker over it, and the chosen
// result's open command printed.
func (a *app) searchInteractive(opts searchOptions, in *os.File, tty *os.File) error {
	ix, f, err := a.openSearch(opts)
	if err != nil {
		return err
	}
	p := &searchPicker{style: a.ttyStyle(), open: openCommand, find: func(q search.Query, limit int) (search.Results, error) {
		res, err := ix.Search(q, f, limit)
		if errors.Is(err, search.ErrNoIndex) {
			return search.Results{}, nil
		}
		return res, err
	}}
	cmd, err := pickSearch(a, in, tty, p)
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, cmd)
	return nil
}

// openSearch is the store's index, caught up as opts say (a quick
// catch-up unless --no-update; --update the full one, --reindex a
// rebuild), and the filter opts ask for.
func (a *app) openSearch(opts searchOptions) (*search.Index, search.Filter, error) {
	f, err := a.searchFilter(opts)
	if err != nil {
		return nil, f, err
	}
	s, err := a.openStore()
	if err != nil {
		return nil, f, err
	}
	ix := search.Open(filepath.Join(s.Dir(), search.DirName))
	if opts.noUpdate && !opts.reindex && !opts.update {
		return ix, f, nil
	}
	mode := search.Quick
	if opts.reindex {
		mode = search.Rebuild
	} else if opts.update {
		mode = search.Full
	}
	return ix, f, a.updateIndex(ix, s, mode)
}

// searchFilter is the filter opts ask for.
func (a *app) searchFilter(opts searchOptions) (search.Filter, error) {
	var f search.Filter
	now := time.Now()
	if opts.agent != "" {
		ag, err := capture.ParseAgent(opts.agent)
		if err != nil {
			return f, usagef("--agent %q: want %s", handoff.Shorten(opts.agent, 40), agents.OrList(capture.AgentNames()...))
		}
		f.Agent = string(ag)
	}
	var err error
	if f.Since, err = parseSince(opts.since, now); err != nil {
		return f, err
	}
	if opts.until != "" {
		if f.Until, err = store.ParseSince(opts.until, now); err != nil {
			return f, usagef("--until %w", err)
		}
	}
	f.Machine = opts.machine
	if opts.kind != "" {
		k, ok := search.ParseKind(opts.kind)
		if !ok || k == search.KindTitle || k == search.KindTodo {
			return f, usagef("--kind %q: want request, message, command, file or decision", handoff.Shorten(opts.kind, 40))
		}
		f.Kinds = []search.Kind{k}
		if k == search.KindMessage {
			f.Kinds = append(f.Kinds, search.KindTodo)
		}
	}
	if opts.project != "" {
		dir, err := filepath.Abs(opts.project)
		if err != nil {
			return f, err
		}
		if root, err := capture.ProjectRoot(a.ctx, dir); err == nil && root != "" {
			dir = root
		}
		f.Project = search.ProjectFilter(dir, capture.IdentityFunc(a.ctx, dir))
	}
	return f, nil
}

// updateIndex catches the index up with the sessions and handoffs there
// are now, as mode says; a rebuild, with progress on a terminal.
func (a *app) updateIndex(ix *search.Index, s *store.Store, mode search.Mode) error {
	if mode != search.Rebuild && ix.Outdated() {
		fmt.Fprintf(a.stderr, "the search index %s is of another version or damaged: rebuilding it\n", ix.Dir())
		mode = search.Rebuild
	}
	rebuild := mode == search.Rebuild
	var progress func(search.Progress)
	if rebuild && a.stderrTTY {
		start := time.Now()
		progress = func(p search.Progress) {
			if p.Done%16 != 0 && p.Done != p.Total {
				return
			}
			el := time.Since(start).Seconds()
			mbs := float64(p.Bytes) / (1 << 20) / max(el, 0.001)
			eta := time.Duration(float64(time.Second) * el / float64(p.Done) * float64(p.Total-p.Done)).Round(time.Second)
			fmt.Fprintf(a.stderr, "\rindexing %d/%d  %.1f MB/s  %s left   ", p.Done, p.Total, mbs, eta)
		}
	}
	st, err := search.CatchUp(ix, s, a.getenv, a.redactor, paths.Hostname(), mode, func(err error) { a.warn("%v", err) }, progress)
	if progress != nil {
		fmt.Fprintln(a.stderr)
	}
	if err != nil {
		return fmt.Errorf("update the search index %s: %w", ix.Dir(), err)
	}
	if rebuild {
		fmt.Fprintf(a.stderr, "indexed %d sessions and handoffs (%d could not be read) in %s\n", st.Added, st.Failed, ix.Dir())
	}
	return nil
}

// searchResult is one result as search --json prints it.
type searchResult struct {
	Type    string    `json:"type"`
	Agent   string    `json:"agent"`
	ID      string    `json:"id,omitempty"`
	Path    string    `json:"path,omitempty"`
	Title   string    `json:"title,omitempty"`
	Project string    `json:"project,omitempty"`
	Machine string    `json:"machine,omitempty"`
	Time    time.Time `json:"time"`
	Kind    string    `json:"kind"`
	Snippet string    `json:"snippet"`
	Open    string    `json:"open"`
}

func searchJSON(res search.Results) any {
	out := struct {
		Results []searchResult `json:"results"`
		More    bool           `json:"more"`
	}{Results: []searchResult{}, More: res.More}
	for _, h := range res.Hits {
		d := h.Doc
		out.Results = append(out.Results, searchResult{Type: d.Type, Agent: d.Agent, ID: d.ID, Path: d.Path, Title: d.Title,
			Project: d.CWD, Machine: d.Machine, Time: d.Time.UTC(), Kind: h.Kind.String(), Snippet: h.Snippet, Open: openCommand(d)})
	}
	return out
}

// openCommand is the command that opens what d is.
func openCommand(d search.Doc) string {
	if d.Type == "handoff" {
		return targets.ShellJoin([]string{"session-handoff", "show", d.ID})
	}
	ref := d.Path
	if strings.HasSuffix(ref, ".db") && d.ID != "" {
		// A database holds many sessions: its id names one.
		ref = d.ID
	}
	return targets.ShellJoin([]string{"session-handoff", "capture", "--from", d.Agent, "--session", ref, "--dry-run"})
}

// displayPath is p with the home directory as ~.
func displayPath(a *app, p string) string {
	if home, err := paths.Home(a.getenv); err == nil && home != "" {
		if p == home {
			return "~"
		}
		if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
			return "~/" + rest
		}
	}
	return p
}

// searchWaitEnv, set to 1, makes the hooks wait for the index's catch-up
// they start (tests).
const searchWaitEnv = "SESSION_HANDOFF_SEARCH_WAIT"

// startIndex starts 'session-handoff search --update' in a process of its
// own, at the lowest priority, and returns without waiting; nothing when
// no index has been built (no one searches here yet).
func (a *app) startIndex() error {
	s, err := a.openStore()
	if err != nil {
		return err
	}
	if !search.Open(filepath.Join(s.Dir(), search.DirName)).Built() {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start the index's update: %w", err)
	}
	args, err := a.childArgs("search", "--update")
	if err != nil {
		return fmt.Errorf("start the index's update: %w", err)
	}
	cmd := proc.Detached(exe, args...)
	// Named as the program is, whatever the file: the test binary
	// dispatches on it.
	cmd.Args[0] = "session-handoff"
	if a.getenv(searchWaitEnv) == "1" {
		return cmd.Run()
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the index's update: %w", err)
	}
	yieldCPU(cmd.Process.Pid)
	return cmd.Process.Release()
}

package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/search"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/store"
)

func newStoreCmd(a *app) *cobra.Command {
	return newParentCmd("store COMMAND", "look after the local store (store check)", "", "  session-handoff store check",
		newStoreCheckCmd(a))
}

// storeCheckOptions are store check's flags.
type storeCheckOptions struct {
	json bool
	fix  bool // also remove the blobs no record attaches
}

func newStoreCheckCmd(a *app) *cobra.Command {
	var opts storeCheckOptions
	cmd := &cobra.Command{
		Use:   "check [--json]",
		Short: "validate every record, clean up after crashed writers, rebuild the index",
		Long: `store check reads and validates every record, names each one that is
corrupt, removes what a crashed writer left behind and the sidecars (a
patch's file headers, kept beside it) whose blob is gone, and rebuilds the
index if it is missing, stale or damaged. It checks the search index too
(search --reindex rebuilds a damaged one). It reports the blobs no record
attaches (left by a removed record, or brought by a bundle of an earlier
version); --fix removes them (blobs younger than an hour are kept: an
import may be storing its record). It exits 0 when every record is sound
and 1 when any is not.`,
		Example: "  session-handoff store check\n  session-handoff store check --fix",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runStoreCheck(a, opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&opts.fix, "fix", false, "remove the blobs no record attaches")
	return cmd
}

func runStoreCheck(a *app, opts storeCheckOptions) error {
	s, err := a.openStore()
	if err != nil {
		return err
	}
	rep, err := s.Check(true)
	if err != nil {
		return err
	}
	health := search.Open(filepath.Join(s.Dir(), search.DirName)).Check()
	var gc *store.GCReport
	if opts.fix && len(rep.Unreferenced) > 0 {
		if gc, err = s.GC(time.Hour); err != nil {
			return err
		}
	}
	if opts.json {
		out := checkJSON(s.Dir(), rep, gc)
		out.SearchIndex = searchHealthJSON(health)
		err = a.writeJSON(out)
	} else {
		printCheck(a, s.Dir(), rep, gc)
		printSearchHealth(a, health)
	}
	if err != nil {
		return err
	}
	if len(rep.Bad) > 0 {
		return exitError{code: exitFailure, err: fmt.Errorf("%d corrupt record(s)", len(rep.Bad))}
	}
	if len(health.Problems) > 0 {
		return exitError{code: exitFailure, err: errors.New("the search index is damaged: 'session-handoff search --reindex' rebuilds it")}
	}
	return nil
}

// searchHealth is the search index's health as store check --json
// prints it.
type searchHealth struct {
	Built      bool     `json:"built"`
	Segments   int      `json:"segments"`
	Documents  int      `json:"documents"`
	Unreadable int      `json:"unreadable"`
	Bytes      int64    `json:"bytes"`
	Problems   []string `json:"problems"`
}

func searchHealthJSON(h search.Health) searchHealth {
	return searchHealth{Built: h.Exists, Segments: h.Segments, Documents: h.Docs, Unreadable: h.Unreadable, Bytes: h.Bytes,
		Problems: append([]string{}, h.Problems...)}
}

// printSearchHealth says how the search index is.
func printSearchHealth(a *app, h search.Health) {
	switch {
	case !h.Exists:
		fmt.Fprintln(a.stdout, "search index: not built yet (search builds it)")
	case len(h.Problems) > 0:
		for _, p := range h.Problems {
			fmt.Fprintf(a.stdout, "search index: %s\n", untrusted.OneLine(p, maxLine))
		}
		fmt.Fprintln(a.stdout, "search index: damaged: 'session-handoff search --reindex' rebuilds it")
	default:
		fmt.Fprintf(a.stdout, "search index: ok (%d documents in %d segments, %d bytes; %d unreadable sources left out)\n",
			h.Docs, h.Segments, h.Bytes, h.Unreadable)
	}
}

type checkBad struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

type checkReport struct {
	Store             string     `json:"store"`
	Records           int        `json:"records"`
	Bad               []checkBad `json:"bad"`
	IndexRebuilt      bool       `json:"index_rebuilt"`
	TempRemoved       int        `json:"temp_removed"`
	Unreferenced      []string   `json:"unreferenced_blobs"`
	UnreferencedBytes int64      `json:"unreferenced_bytes"`
	BlobsRemoved      []string   `json:"blobs_removed,omitempty"`
	// SidecarsRemoved are the sidecars (blobs/sidecars/) whose blob is
	// gone, removed.
	SidecarsRemoved []string `json:"sidecars_removed,omitempty"`
	// SearchIndex is the search index's health.
	SearchIndex searchHealth `json:"search_index"`
}

// checkJSON is store check's report as --json prints it.
func checkJSON(dir string, rep *store.CheckReport, gc *store.GCReport) checkReport {
	out := checkReport{Store: dir, Records: rep.Records, Bad: []checkBad{}, IndexRebuilt: rep.IndexRebuilt, TempRemoved: rep.TempRemoved,
		Unreferenced: append([]string{}, rep.Unreferenced...), UnreferencedBytes: rep.UnreferencedBytes}
	for _, b := range rep.Bad {
		out.Bad = append(out.Bad, checkBad{b.File, b.Err.Error()})
	}
	if rep.StaleSidecarsRemoved {
		out.SidecarsRemoved = rep.StaleSidecars
	}
	if gc != nil {
		out.BlobsRemoved = gc.Removed
	}
	return out
}

func printCheck(a *app, dir string, rep *store.CheckReport, gc *store.GCReport) {
	fmt.Fprintf(a.stdout, "store %s: %d records\n", dir, rep.Records)
	if rep.IndexRebuilt {
		fmt.Fprintln(a.stdout, "index was stale or damaged: rebuilt")
	}
	if rep.TempRemoved > 0 {
		fmt.Fprintf(a.stdout, "removed %d leftover temporary files\n", rep.TempRemoved)
	}
	if rep.StaleSidecarsRemoved {
		fmt.Fprintf(a.stdout, "removed %d sidecar file(s) whose blob is gone\n", len(rep.StaleSidecars))
	}
	for _, b := range rep.Bad {
		fmt.Fprintf(a.stdout, "bad: %s: %s\n", b.File, untrusted.OneLine(b.Err.Error(), maxLine))
	}
	switch {
	case gc != nil:
		fmt.Fprintf(a.stdout, "removed %d blob(s) no record attaches (%d bytes)\n", len(gc.Removed), gc.Bytes)
	case len(rep.Unreferenced) > 0:
		fmt.Fprintf(a.stdout, "%d blob(s) no record attaches (%d bytes): 'session-handoff store check --fix' removes them\n",
			len(rep.Unreferenced), rep.UnreferencedBytes)
	}
}

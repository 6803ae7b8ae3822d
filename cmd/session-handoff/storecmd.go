package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/store"
)

func newStoreCmd(a *app) *cobra.Command {
	return newParentCmd("store COMMAND", "look after the local store (store check)", "", "  session-handoff store check",
		newStoreCheckCmd(a))
}

// storeCheckOptions are store check's flags.
type storeCheckOptions struct {
	json bool
}

func newStoreCheckCmd(a *app) *cobra.Command {
	var opts storeCheckOptions
	cmd := &cobra.Command{
		Use:   "check [--json]",
		Short: "validate every record, clean up after crashed writers, rebuild the index",
		Long: `store check reads and validates every record, names each one that is
corrupt, removes what a crashed writer left behind, and rebuilds the index
if it is missing, stale or damaged. It exits 0 when every record is sound
and 1 when any is not.`,
		Example: "  session-handoff store check",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runStoreCheck(a, opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
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
	if opts.json {
		err = a.writeJSON(checkJSON(s.Dir(), rep))
	} else {
		printCheck(a, s.Dir(), rep)
	}
	if err != nil {
		return err
	}
	if len(rep.Bad) > 0 {
		return exitError{code: exitFailure, err: fmt.Errorf("%d corrupt record(s)", len(rep.Bad))}
	}
	return nil
}

type checkBad struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

type checkReport struct {
	Store        string     `json:"store"`
	Records      int        `json:"records"`
	Bad          []checkBad `json:"bad"`
	IndexRebuilt bool       `json:"index_rebuilt"`
	TempRemoved  int        `json:"temp_removed"`
}

// checkJSON is store check's report as --json prints it.
func checkJSON(dir string, rep *store.CheckReport) checkReport {
	out := checkReport{Store: dir, Records: rep.Records, Bad: []checkBad{}, IndexRebuilt: rep.IndexRebuilt, TempRemoved: rep.TempRemoved}
	for _, b := range rep.Bad {
		out.Bad = append(out.Bad, checkBad{b.File, b.Err.Error()})
	}
	return out
}

func printCheck(a *app, dir string, rep *store.CheckReport) {
	fmt.Fprintf(a.stdout, "store %s: %d records\n", dir, rep.Records)
	if rep.IndexRebuilt {
		fmt.Fprintln(a.stdout, "index was stale or damaged: rebuilt")
	}
	if rep.TempRemoved > 0 {
		fmt.Fprintf(a.stdout, "removed %d leftover temporary files\n", rep.TempRemoved)
	}
	for _, b := range rep.Bad {
		fmt.Fprintf(a.stdout, "bad: %s: %s\n", b.File, oneLine(b.Err.Error()))
	}
}

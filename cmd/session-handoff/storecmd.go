package main

import (
	"fmt"

	"github.com/spf13/pflag"
)

func init() {
	register(&command{
		name:    "store",
		summary: "look after the local store (store check)",
		usage:   "store check [--json]",
		help: `store check reads and validates every record, names each one that is
corrupt, removes what a crashed writer left behind, and rebuilds the index
if it is missing, stale or damaged. It exits 0 when every record is sound
and 1 when any is not.`,
		example: "  session-handoff store check",
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeFlag(fs, a)
			asJSON := fs.Bool("json", false, "print the report as JSON")
			return func(args []string) error {
				if len(args) != 1 || args[0] != "check" {
					return usagef("want 'store check'")
				}
				s, err := a.openStore()
				if err != nil {
					return err
				}
				rep, err := s.Check(true)
				if err != nil {
					return err
				}
				if *asJSON {
					type bad struct {
						File  string `json:"file"`
						Error string `json:"error"`
					}
					out := struct {
						Store        string `json:"store"`
						Records      int    `json:"records"`
						Bad          []bad  `json:"bad"`
						IndexRebuilt bool   `json:"index_rebuilt"`
						TempRemoved  int    `json:"temp_removed"`
					}{Store: s.Dir(), Records: rep.Records, Bad: []bad{}, IndexRebuilt: rep.IndexRebuilt, TempRemoved: rep.TempRemoved}
					for _, b := range rep.Bad {
						out.Bad = append(out.Bad, bad{b.File, b.Err.Error()})
					}
					if err := a.writeJSON(out); err != nil {
						return err
					}
				} else {
					fmt.Fprintf(a.stdout, "store %s: %d records\n", s.Dir(), rep.Records)
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
				if len(rep.Bad) > 0 {
					return exitError{code: exitFailure, err: fmt.Errorf("%d corrupt record(s)", len(rep.Bad))}
				}
				return nil
			}
		},
	})
}

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
)

func init() {
	register(&command{
		name:    "score",
		summary: "rate how complete a handoff is, and say what to add",
		usage:   "score [ID|latest] [--json]",
		help: `Rates a handoff against this rubric (weights of the criteria that apply;
the score is the share met):

  title      5  a title that says what the work is (8+ characters, not "wip")
  summary   15  a summary of where things stand (40+ characters)
  next      25  at least one next step
  concrete   5  every next step has three or more words
  decisions 10  at least one settled decision
  git       10  the git state was recorded
  current   10  HEAD and branch now match the handoff (when the project is on this machine)
  files     10  the files touched are named
  failure    5  the last failed command is kept with its output (when one failed)
  checks     5  how to build or test the project is known

save and capture print what is missing after they store a handoff.`,
		example: `  session-handoff score
  session-handoff score 01JDZ3K4XQ2 --json | jq .percent`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeDir := storeFlag(fs, a)
			asJSON := fs.Bool("json", false, "print the score and every criterion as JSON")
			return func(args []string) error {
				if len(args) > 1 {
					return usagef("takes at most one id")
				}
				ref := "latest"
				if len(args) == 1 {
					ref = args[0]
				}
				rec, err := a.loadRecord(*storeDir, ref)
				if err != nil {
					return err
				}
				sc := handoff.Assess(rec, a.gitNow(rec))
				if *asJSON {
					return a.writeJSON(struct {
						ID handoff.ID `json:"id"`
						handoff.Score
					}{rec.ID, sc})
				}
				fmt.Fprintf(a.stdout, "score %d/100 for %s  %s\n", sc.Percent, rec.ID, cell(rec.Title, 80))
				printMissing(a.stdout, sc)
				return nil
			}
		},
	})
}

// gitNow reads the state of the handoff's worktree when it was made on
// this machine, for the "current" criterion; nil otherwise. An imported
// record's root is a path someone else chose: it is not visited.
func (a *app) gitNow(rec *handoff.Record) *handoff.GitState {
	if rec.Git == nil || rec.Git.Root == "" || rec.Source.Kind == handoff.SourceImport || rec.Source.Kind == handoff.SourceLegacy {
		return nil
	}
	if info, err := os.Stat(rec.Git.Root); err != nil || !info.IsDir() {
		return nil
	}
	st, err := capture.State(a.ctx, rec.Git.Root)
	if err != nil {
		return nil
	}
	return st
}

// printMissing lists what a handoff lacks, heaviest first.
func printMissing(w io.Writer, sc handoff.Score) {
	for _, c := range sc.Missing() {
		fmt.Fprintf(w, "  missing (%d): %s\n", c.Weight, c.Missing)
	}
}

// warnIncomplete prints, after save or capture, what the handoff lacks.
func (a *app) warnIncomplete(rec *handoff.Record) {
	sc := handoff.Assess(rec, nil)
	if len(sc.Missing()) == 0 {
		return
	}
	fmt.Fprintf(a.stderr, "session-handoff: note: handoff scores %d/100 ('session-handoff score' explains):\n", sc.Percent)
	printMissing(a.stderr, sc)
}

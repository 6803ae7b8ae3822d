package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
)

// scoreOptions are score's argument and flags.
type scoreOptions struct {
	ref         string // an id, unique prefix or "latest"
	allProjects bool   // "latest" is the store's newest, not this project's
	json        bool
}

func newScoreCmd(a *app) *cobra.Command {
	opts := scoreOptions{ref: "latest"}
	cmd := &cobra.Command{
		Use:   "score [ID|latest] [--json]",
		Short: "rate how complete a handoff is, and say what to add",
		Long: `Rates a handoff against this rubric (weights of the criteria that apply;
the score is the share met):

  title      5  a title that says what the work is (8+ characters, not "wip")
  summary   15  a summary of where things stand (40+ characters)
  next      25  at least one next step
  concrete   5  every next step has three or more words
  decisions 10  at least one settled decision
  git       10  the git state was recorded (not counted after --no-git)
  current   10  HEAD and branch now match the handoff (when the project is on this machine)
  files     10  the files touched are named
  failure    5  the last failed command is kept with its output (when one failed)
  checks     5  how to build or test the project is known

On a terminal, save and capture print the score and what to add in one
line after they store a handoff (not with --quiet).`,
		Example: `  session-handoff score
  session-handoff score 01JDZ3K4XQ2 --json | jq .percent`,
		Args:              rangeArgs(0, 1, "at most one id"),
		ValidArgsFunction: a.completeIDs,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ref = args[0]
			}
			return runScore(a, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.allProjects, "all-projects", false, allProjectsUsage)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the score and every criterion as JSON")
	return cmd
}

func runScore(a *app, opts scoreOptions) error {
	_, rec, err := a.openRecord(opts.ref, opts.allProjects)
	if err != nil {
		return err
	}
	sc := handoff.Assess(rec, capture.CurrentState(a.ctx, rec))
	if opts.json {
		return a.writeJSON(struct {
			ID handoff.ID `json:"id"`
			handoff.Score
		}{rec.ID, sc})
	}
	fmt.Fprintf(a.stdout, "score %d/100 for %s  %s\n", sc.Percent, rec.ID, cell(rec.Title, 80))
	printMissing(a.stdout, sc)
	return nil
}

// printMissing lists what a handoff lacks, heaviest first.
func printMissing(w io.Writer, sc handoff.Score) {
	for _, c := range sc.Missing() {
		fmt.Fprintf(w, "  missing (%d): %s\n", c.Weight, c.Missing)
	}
}

// warnIncomplete prints, after save or capture, the score and what the
// handoff lacks in one line: only on a terminal, and not when quiet.
func (a *app) warnIncomplete(rec *handoff.Record, quiet bool) {
	if quiet || !a.stderrTTY {
		return
	}
	if line := handoff.Assess(rec, nil).Advice(); line != "" {
		fmt.Fprintf(a.stderr, "session-handoff: note: %s\n", line)
	}
}

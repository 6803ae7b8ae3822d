package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/doctor"
)

// doctorOptions are doctor's flags.
type doctorOptions struct {
	project    string
	projectSet bool // --project was given
	json       bool
}

func newDoctorCmd(a *app) *cobra.Command {
	var opts doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor [--project DIR] [--json]",
		Short: "check the setup (git, store, keys, trust, agents, hooks, PAUSE, sync, handover) and say what to fix",
		Long: `Checks the whole setup, one line each, ok, warn or fail, with the command
that fixes what is wrong: git and its version; the store (read and checked
without repairing); the signing key and age identity (present, readable by
you alone); the trust store (parses; its principals); where Claude Code,
Codex CLI and Gemini CLI keep sessions, and how many are this project's;
session-handoff hooks in the agents' project, personal and user settings
(missing: a warning only for an agent used on this machine; installed with
a command that does not resolve to an executable: a failure; Codex hooks
not trusted in its /hooks screen, which Codex skips without a word, and
Gemini CLI hooks in a project whose folder Gemini does not trust: a
warning); each registration of the MCP server (a bare name, which only
an agent with it on PATH can start: a warning; a path that is gone: a
failure); PAUSE files; sync with my other devices, once set up (on with
no device paired, or sends waiting to be pushed: a warning; its remote
not configured: a failure); an interrupted handover run; a project handover.toml not yet approved.

doctor only reads: it changes nothing. It exits 0 when no check failed and
1 when any did; warnings alone exit 0. --json prints the checks as a list
of {name, status, detail, fix}.`,
		Example: `  session-handoff doctor
  session-handoff doctor --json | jq -r '.[] | select(.status != "ok") | .fix'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.projectSet = cmd.Flags().Changed("project")
			return runDoctor(a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.project, "project", ".", "the project to check ('' for none)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the checks as JSON")
	return cmd
}

func runDoctor(a *app, opts doctorOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	s, err := doctor.NewSetup(a.ctx, a.global.storeDir, kr.Dir, opts.project, opts.projectSet, a.getenv)
	if err != nil {
		return err
	}
	checks := doctor.Run(a.ctx, s)
	if opts.json {
		if err := a.writeJSON(checks); err != nil {
			return err
		}
	} else {
		a.printChecks(checks)
	}
	if err := doctor.Failed(checks); err != nil {
		return exitError{code: exitFailure, err: err}
	}
	return nil
}

// printChecks prints one line a check: status, name, what was found and
// the fix.
func (a *app) printChecks(checks []doctor.Check) {
	count := map[doctor.Status]int{}
	st := a.style()
	for _, c := range checks {
		count[c.Status]++
		status := string(c.Status)
		switch c.Status {
		case doctor.OK:
			status = st.Good(status)
		case doctor.Warn:
			status = st.Warn(status)
		case doctor.Fail:
			status = st.Bad(status)
		}
		// Painted after padding, so the columns stay where they were.
		line := fmt.Sprintf("%s%s  %-22s %s", status, strings.Repeat(" ", max(0, 4-len(c.Status))), c.Name, c.Detail)
		if c.Fix != "" {
			line += "; fix: " + c.Fix
		}
		fmt.Fprintln(a.stdout, line)
	}
	fmt.Fprintf(a.stdout, "%d checks: %d ok, %d warn, %d fail\n", len(checks), count[doctor.OK], count[doctor.Warn], count[doctor.Fail])
}

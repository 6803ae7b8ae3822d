package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/internal/doctor"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/targets"
)

func init() {
	register(&command{
		name:    "doctor",
		summary: "check the setup (git, store, keys, trust, agents, hooks, PAUSE, handover) and say what to fix",
		usage:   "doctor [--project DIR] [--json]",
		help: `Checks the whole setup, one line each, ok, warn or fail, with the command
that fixes what is wrong: git and its version; the store (read and checked
without repairing); the signing key and age identity (present, readable by
you alone); the trust store (parses; its principals); where Claude Code,
Codex CLI and Gemini CLI keep sessions, and how many are this project's;
session-handoff hooks in the agents' project and user settings (a warning
only for an agent used on this machine); PAUSE files; an interrupted
handover run; a project handover.toml not yet approved.

doctor only reads: it changes nothing. It exits 0 when no check failed and
1 when any did; warnings alone exit 0. --json prints the checks as a list
of {name, status, detail, fix}.`,
		example: `  session-handoff doctor
  session-handoff doctor --json | jq -r '.[] | select(.status != "ok") | .fix'`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeDir := storeFlag(fs, a)
			keysFlag(fs, a)
			project := fs.String("project", ".", "the project to check ('' for none)")
			asJSON := fs.Bool("json", false, "print the checks as JSON")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments")
				}
				s := doctor.Setup{DataDir: *storeDir, Env: a.getenv}
				if s.DataDir == "" {
					d, err := paths.Data(a.getenv)
					if err != nil {
						return err
					}
					s.DataDir = d
				}
				kr, err := a.keyring()
				if err != nil {
					return err
				}
				s.ConfigDir = kr.Dir
				if *project != "" {
					if s.Project, err = a.projectRoot(*project); err != nil {
						return err
					}
					if fs.Changed("project") {
						s.ProjectFlag = " --project " + targets.ShellJoin([]string{s.Project})
					}
				}
				checks := doctor.Run(a.ctx, s)
				if *asJSON {
					if err := a.writeJSON(checks); err != nil {
						return err
					}
				} else {
					a.printChecks(checks)
				}
				failed := 0
				for _, c := range checks {
					if c.Status == doctor.Fail {
						failed++
					}
				}
				if failed > 0 {
					return exitError{code: exitFailure, err: fmt.Errorf("%d of %d checks failed", failed, len(checks))}
				}
				return nil
			}
		},
	})
}

// printChecks prints one line a check: status, name, what was found and
// the fix.
func (a *app) printChecks(checks []doctor.Check) {
	count := map[doctor.Status]int{}
	for _, c := range checks {
		count[c.Status]++
		line := fmt.Sprintf("%-4s  %-22s %s", c.Status, c.Name, c.Detail)
		if c.Fix != "" {
			line += "; fix: " + c.Fix
		}
		fmt.Fprintln(a.stdout, line)
	}
	fmt.Fprintf(a.stdout, "%d checks: %d ok, %d warn, %d fail\n", len(checks), count[doctor.OK], count[doctor.Warn], count[doctor.Fail])
}

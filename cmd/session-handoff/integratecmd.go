package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/internal/paths"
)

func init() {
	register(&command{
		name:    "integrate",
		summary: "install hooks in an agent's settings: brief at session start, capture at the end",
		usage:   "integrate claude-code|gemini|codex [--project | --user] [--dry-run] [--remove] [--program PATH]",
		help: `Adds session-handoff's hooks to the agent's own settings file: for Claude
Code .claude/settings.json in the project (or ~/.claude/settings.json with
--user), for Gemini CLI .gemini/settings.json (or ~/.gemini/settings.json):
SessionStart runs 'session-handoff hook AGENT session-start' (the resume
briefing goes into the session's context), PreCompact/PreCompress and
SessionEnd capture the session.

The file is edited by inserting text only: your other settings, their
order, your comments and your own hooks stay as they are. The file is
written atomically and the original is kept. --remove restores the file
byte for byte when it is as integrate left it, or else takes out exactly
what was inserted and keeps your later edits. --dry-run prints the change.

Codex CLI has no session hooks: integrate codex says what to do instead.`,
		example: `  session-handoff integrate claude-code --dry-run
  session-handoff integrate claude-code
  session-handoff integrate gemini --user
  session-handoff integrate claude-code --remove`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeFlag(fs, a)
			projectScope := fs.Bool("project", false, "the project's settings (the default)")
			user := fs.Bool("user", false, "the user's own settings, for every project")
			dir := fs.String("dir", ".", "the project directory")
			dryRun := fs.Bool("dry-run", false, "print the change and write nothing")
			remove := fs.Bool("remove", false, "take the hooks out again")
			program := fs.String("program", "session-handoff", "how the hooks call session-handoff (a name on PATH or a full path)")
			return func(args []string) error {
				if len(args) != 1 {
					return usagef("want one agent: claude-code, gemini or codex")
				}
				if *projectScope && *user {
					return usagef("choose --project or --user")
				}
				agent, err := integrate.LookupAgent(args[0])
				if err != nil {
					return usageError{err}
				}
				if agent.NoHooks != "" {
					return withHint(fmt.Errorf("%s: no hooks to install", agent.Name), agent.NoHooks)
				}
				root := ""
				if !*user {
					if root, err = a.projectRoot(*dir); err != nil {
						return err
					}
				}
				home, err := paths.Home(a.getenv)
				if *user && err != nil {
					return err
				}
				path := agent.SettingsPath(root, home, *user, a.getenv)
				s, err := a.openStore()
				if err != nil {
					return err
				}
				stateDir := filepath.Join(s.Dir(), "integrations")
				var c *integrate.Change
				if *remove {
					c, err = integrate.PlanRemove(path, stateDir)
				} else {
					c, err = integrate.PlanInstall(path, agent.Hooks(*program), agent.Name)
				}
				if err != nil {
					return err
				}
				if c.Nothing {
					if *remove {
						fmt.Fprintf(a.stdout, "no session-handoff hooks installed in %s\n", path)
					} else {
						fmt.Fprintf(a.stdout, "%s already has the session-handoff hooks\n", path)
					}
					return nil
				}
				if *dryRun {
					if c.After == nil {
						fmt.Fprintf(a.stdout, "would remove %s (integrate created it)\n", path)
						return nil
					}
					fmt.Fprint(a.stdout, integrate.Diff(c))
					return nil
				}
				if *remove {
					if err := integrate.ApplyRemove(c, stateDir); err != nil {
						return err
					}
					switch {
					case c.After == nil:
						fmt.Fprintf(a.stdout, "removed %s, which integrate had created\n", path)
					case c.Exact:
						fmt.Fprintf(a.stdout, "restored %s as it was before integrate\n", path)
					default:
						fmt.Fprintf(a.stdout, "took the session-handoff hooks out of %s; your later edits are kept\n", path)
					}
					return nil
				}
				if err := integrate.ApplyInstall(c, stateDir); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "installed the session-handoff hooks in %s\n", path)
				if _, err := os.Stat(path); err == nil && *program == "session-handoff" {
					fmt.Fprintln(a.stdout, "the hooks run 'session-handoff' from PATH; pass --program to use another path")
				}
				return nil
			}
		},
	})
}

package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/internal/paths"
)

// integrateOptions are integrate's flags and argument.
type integrateOptions struct {
	agent        string
	projectScope bool // --project: the project's settings (the default)
	user         bool
	dir          string
	dryRun       bool
	remove       bool
	program      string
	mcp          bool   // register the MCP server instead of the hooks
	plugin       string // write a Claude Code plugin into this directory
	extension    string // write a Gemini CLI extension into this directory
}

func newIntegrateCmd(a *app) *cobra.Command {
	var opts integrateOptions
	cmd := &cobra.Command{
		Use: "integrate claude-code|gemini|codex [--mcp] [--project | --user] [--dry-run] [--remove] [--program PATH]\n" +
			"  integrate claude-code --plugin DIR | gemini --extension DIR",
		Short: "install hooks in an agent's settings: brief at session start, capture at the end",
		Long: `Adds session-handoff's hooks to the agent's own settings file: for Claude
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

Codex CLI has no session hooks: integrate codex says what to do instead.

--mcp registers the MCP server ('session-handoff mcp --agent AGENT')
instead, by the same insertion-only edit: in .mcp.json for Claude Code,
.codex/config.toml ([mcp_servers.session-handoff]) for Codex, and
.gemini/settings.json (mcpServers) for Gemini CLI; with --user in
~/.codex/config.toml or ~/.gemini/settings.json. Claude Code keeps
user-wide servers in ~/.claude.json, which it rewrites itself: for that
one, integrate prints the 'claude mcp add --scope user' command to run.

--plugin DIR (Claude Code) writes a plugin that brings the hooks and the
MCP server: .claude-plugin/plugin.json, hooks/hooks.json, .mcp.json.
--extension DIR (Gemini CLI) writes an extension with the MCP server and
a context file: gemini-extension.json, GEMINI.md (in DIR/session-handoff
unless DIR is named so). Existing files with other content are not
overwritten.`,
		Example: `  session-handoff integrate claude-code --dry-run
  session-handoff integrate claude-code
  session-handoff integrate gemini --user
  session-handoff integrate claude-code --remove
  session-handoff integrate codex --mcp --user
  session-handoff integrate claude-code --plugin ~/plugins/session-handoff`,
		Args: exactArgs(1, "one agent: claude-code, gemini or codex"),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return integrateAgentNames(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			opts.agent = args[0]
			return runIntegrate(a, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.projectScope, "project", false, "the project's settings (the default)")
	f.BoolVar(&opts.user, "user", false, "the user's own settings, for every project")
	f.StringVar(&opts.dir, "dir", ".", "the project directory")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print the change and write nothing")
	f.BoolVar(&opts.remove, "remove", false, "take the hooks out again")
	f.StringVar(&opts.program, "program", "session-handoff", "how the hooks call session-handoff (a name on PATH or a full path)")
	f.BoolVar(&opts.mcp, "mcp", false, "register the MCP server (session-handoff mcp) instead of the hooks")
	f.StringVar(&opts.plugin, "plugin", "", "write a Claude Code plugin (hooks and MCP server) into this directory")
	f.StringVar(&opts.extension, "extension", "", "write a Gemini CLI extension (MCP server and context file) into this directory")
	return cmd
}

func runIntegrate(a *app, opts integrateOptions) error {
	if opts.projectScope && opts.user {
		return usagef("choose --project or --user")
	}
	if opts.plugin != "" || opts.extension != "" {
		return runIntegratePackage(a, opts)
	}
	if opts.mcp {
		return runIntegrateMCP(a, opts)
	}
	agent, err := integrate.LookupAgent(opts.agent)
	if err != nil {
		return usageError{err}
	}
	if agent.NoHooks != "" {
		return withHint(fmt.Errorf("%s: no hooks to install", agent.Name), agent.NoHooks)
	}
	root := ""
	if !opts.user {
		if root, err = a.projectRoot(opts.dir); err != nil {
			return err
		}
	}
	home, err := paths.Home(a.getenv)
	if opts.user && err != nil {
		return err
	}
	path := agent.SettingsPath(root, home, opts.user, a.getenv)
	s, err := a.openStore()
	if err != nil {
		return err
	}
	stateDir := filepath.Join(s.Dir(), "integrations")
	var c *integrate.Change
	if opts.remove {
		c, err = integrate.PlanRemove(path, stateDir)
	} else {
		c, err = integrate.PlanInstall(path, agent.Hooks(opts.program), agent.Name)
	}
	if err != nil {
		return err
	}
	return a.applyIntegration(opts, path, stateDir, c)
}

// applyIntegration writes the planned change c to the settings file at
// path (or prints it, for --dry-run) and says what it did.
func (a *app) applyIntegration(opts integrateOptions, path, stateDir string, c *integrate.Change) error {
	switch {
	case c.Nothing && opts.remove:
		fmt.Fprintf(a.stdout, "no session-handoff hooks installed in %s\n", path)
	case c.Nothing:
		fmt.Fprintf(a.stdout, "%s already has the session-handoff hooks\n", path)
	case opts.dryRun && c.After == nil:
		fmt.Fprintf(a.stdout, "would remove %s (integrate created it)\n", path)
	case opts.dryRun:
		fmt.Fprint(a.stdout, integrate.Diff(c))
	case opts.remove:
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
	default:
		if err := integrate.ApplyInstall(c, stateDir); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "installed the session-handoff hooks in %s\n", path)
		if _, err := os.Stat(path); err == nil && opts.program == "session-handoff" {
			fmt.Fprintln(a.stdout, "the hooks run 'session-handoff' from PATH; pass --program to use another path")
		}
	}
	return nil
}

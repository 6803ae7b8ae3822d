package main

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/style"
	"github.com/session-handoff/session-handoff/targets"
)

// integrateOptions are integrate's flags and argument.
type integrateOptions struct {
	agent        string
	projectScope bool // --project: the project's shared settings
	local        bool // --local: the project's personal settings
	user         bool
	dir          string
	dryRun       bool
	remove       bool
	program      string // "" is this binary's absolute path
	mcp          bool   // register the MCP server instead of the hooks
	plugin       string // write a Claude Code plugin into this directory
	extension    string // write a Gemini CLI extension into this directory
}

// integrateLong is integrate's help: where each agent of the table gets
// the hooks and the MCP server comes from the agents' folders.
func integrateLong() string {
	var hooks, mcp, trust strings.Builder
	for _, ag := range integrate.Agents {
		info, _ := agents.Find(ag.Name)
		fmt.Fprintf(&hooks, "  %-20s %s (--user: ~/%s)\n", info.Display, ag.ProjectSettings, ag.UserSettings)
		if ag.Trust != "" {
			trust.WriteString(strings.Join(style.Wrap(ag.Trust, 74), "\n") + "\n")
		}
	}
	for _, p := range targets.All() {
		if r := p.MCP; r != nil {
			user := r.UserFile
			if r.RegisterUser != "" {
				user = "run '" + r.RegisterUser + "'"
			}
			fmt.Fprintf(&mcp, "  %-20s %s (--user: %s)\n", p.Agent, r.ProjectFile, user)
		}
	}
	return `Adds session-handoff's hooks to the agent's own settings, in the project
(or for every project with --user):

` + hooks.String() + `
At session start the hook runs 'session-handoff hook AGENT session-start'
and the resume briefing goes into the session's context; before a
compaction and at session end the session is captured (Gemini CLI fires
PreCompress before every model call: the hook captures only when the last
prompt has reached the compression threshold, model.compressionThreshold
of its settings). The end-of-session hooks declare the time they may take
(Claude Code gives SessionEnd hooks 1.5 s unless they declare more; Codex
allows them 3 s); an approved handover.toml runs in the background at
session end. An agent that runs no hook commands gets a plugin or an
extension of its own that runs them, written whole and removed whole.

` + trust.String() + `
The hooks, the MCP server's registration and the plugin or extension run
this binary by its absolute path, so they do not depend on the agent's
PATH; a temporary build ('go run') uses the session-handoff on PATH, and
integrate refuses when there is none. --program names another: pass
--program session-handoff for a file or package you share with people
whose session-handoff lives elsewhere.

Claude Code: when .claude/settings.json is tracked by git, the hooks go
into .claude/settings.local.json (yours, not committed) unless you pass
--project, so that teammates without session-handoff get no failing
hooks. --local chooses that file anyway.

A settings file is edited by inserting text only: your other settings,
their order, your comments and your own hooks stay as they are. The file
is written atomically and the original is kept. --remove restores the
file byte for byte when it is as integrate left it, or else takes out
exactly what was inserted and keeps your later edits. --dry-run prints
the change.

--mcp registers the MCP server ('session-handoff mcp --agent AGENT')
instead, by the same insertion-only edit:

` + mcp.String() + `
--plugin DIR (Claude Code) writes a plugin that brings the hooks and the
MCP server: .claude-plugin/plugin.json, hooks/hooks.json, .mcp.json.
--extension DIR (Gemini CLI) writes an extension with the hooks, the MCP
server and a context file: gemini-extension.json, hooks/hooks.json,
GEMINI.md (in DIR/session-handoff unless DIR is named so). Existing files
with other content are not overwritten.`
}

func newIntegrateCmd(a *app) *cobra.Command {
	var opts integrateOptions
	cmd := &cobra.Command{
		Use: "integrate " + agents.Choices(integrateAgentNames()) + " [--mcp] [--project | --local | --user] [--dry-run] [--remove] [--program PATH]\n" +
			"  integrate claude-code --plugin DIR | gemini --extension DIR",
		Short: "install hooks in an agent's settings: brief at session start, capture at the end",
		Long:  integrateLong(),
		Example: `  session-handoff integrate claude-code --dry-run
  session-handoff integrate claude-code
  session-handoff integrate codex --user
  session-handoff integrate gemini --user
  session-handoff integrate claude-code --remove
  session-handoff integrate codex --mcp --user
  session-handoff integrate claude-code --plugin ~/plugins/session-handoff`,
		Args: exactArgs(1, "one agent: "+agents.OrList(integrateAgentNames()...)),
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
	f.BoolVar(&opts.projectScope, "project", false, "the project's shared settings (the default unless they are tracked by git)")
	f.BoolVar(&opts.local, "local", false, "the project's personal settings (Claude Code: .claude/settings.local.json)")
	f.BoolVar(&opts.user, "user", false, "the user's own settings, for every project")
	f.StringVar(&opts.dir, "dir", ".", "the project directory")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print the change and write nothing")
	f.BoolVar(&opts.remove, "remove", false, "take the hooks out again")
	f.StringVar(&opts.program, "program", "", "how the hooks call session-handoff: an absolute path or a name on PATH (default: this binary's path)")
	f.BoolVar(&opts.mcp, "mcp", false, "register the MCP server (session-handoff mcp) instead of the hooks")
	f.StringVar(&opts.plugin, "plugin", "", "write a Claude Code plugin (hooks and MCP server) into this directory")
	f.StringVar(&opts.extension, "extension", "", "write a Gemini CLI extension (hooks, MCP server and context file) into this directory")
	return cmd
}

func runIntegrate(a *app, opts integrateOptions) error {
	if n := btoi(opts.projectScope) + btoi(opts.local) + btoi(opts.user); n > 1 {
		return usagef("choose one of --project, --local and --user")
	}
	if opts.plugin != "" || opts.extension != "" || opts.mcp {
		if opts.local {
			return usagef("--local is for hooks; the MCP server and packages take --project or --user")
		}
		if !opts.remove {
			program, err := resolveIntegrateProgram(opts.program)
			if err != nil {
				return err
			}
			opts.program = program
		}
		if opts.mcp && opts.plugin == "" && opts.extension == "" {
			return runIntegrateMCP(a, opts)
		}
		return runIntegratePackage(a, opts)
	}
	agent, err := integrate.LookupAgent(opts.agent)
	if err != nil {
		return usageError{err}
	}
	paths, stateDir, err := a.integrationTargets(agent, opts)
	if err != nil {
		return err
	}
	if opts.remove {
		return a.removeIntegration(opts, paths, stateDir)
	}
	program, err := resolveIntegrateProgram(opts.program)
	if err != nil {
		return err
	}
	c, err := integrate.PlanHooks(agent, paths[0], program)
	if err != nil {
		return err
	}
	if err := a.applyIntegration(opts, paths[0], stateDir, c, hookWords); err != nil || opts.dryRun || c.Nothing {
		return err
	}
	fmt.Fprintf(a.stdout, "the hooks run %s\n", program)
	if agent.Trust != "" {
		fmt.Fprintln(a.stdout, agent.Trust)
	}
	return nil
}

// resolveIntegrateProgram is the program installed hooks, MCP
// registrations and packages run: the one given, or this binary's
// absolute path (integrate.ResolveProgram).
func resolveIntegrateProgram(given string) (string, error) {
	program, err := integrate.ResolveProgram(given, integrate.DefaultLookup(exec.LookPath))
	if errors.Is(err, integrate.ErrProgramNotFound) {
		return "", withHint(err, "install session-handoff (a release, or 'go install ./cmd/session-handoff') and run integrate with it, or pass --program /absolute/path/to/session-handoff")
	}
	if err != nil {
		return "", usageError{err}
	}
	return program, nil
}

// integrationTargets are the settings files integrate edits for agent
// (for a removal with no scope named, each one it may have installed
// in), and the state directory that records installs.
func (a *app) integrationTargets(agent integrate.Agent, opts integrateOptions) ([]string, string, error) {
	root := ""
	var err error
	if !opts.user {
		if root, err = a.projectRoot(opts.dir); err != nil {
			return nil, "", err
		}
	}
	home, err := paths.Home(a.getenv)
	if opts.user && err != nil {
		return nil, "", err
	}
	var scopes []integrate.Scope
	switch {
	case opts.user:
		scopes = []integrate.Scope{integrate.ScopeUser}
	case opts.local:
		scopes = []integrate.Scope{integrate.ScopeLocal}
	case opts.projectScope:
		scopes = []integrate.Scope{integrate.ScopeProject}
	case opts.remove:
		scopes = []integrate.Scope{integrate.ScopeProject, integrate.ScopeLocal}
	default:
		s, tracked, err := agent.DefaultScope(a.ctx, root)
		if err != nil {
			return nil, "", err
		}
		if tracked {
			fmt.Fprintf(a.stdout, "%s is tracked by git: the hooks go into %s, which is yours alone (--project shares them with everyone who clones the repository)\n",
				agent.ProjectSettings, agent.LocalSettings)
		}
		scopes = []integrate.Scope{s}
	}
	var out []string
	for _, s := range scopes {
		p, err := agent.InstallPath(s, root, home, a.getenv)
		if errors.Is(err, safefile.ErrOutside) {
			return nil, "", err
		}
		if err != nil {
			if len(scopes) > 1 {
				continue
			}
			return nil, "", usageError{err}
		}
		out = append(out, p)
	}
	s, err := a.openStore()
	if err != nil {
		return nil, "", err
	}
	return out, filepath.Join(s.Dir(), "integrations"), nil
}

// removeIntegration takes the hooks out of each of paths that has them.
func (a *app) removeIntegration(opts integrateOptions, paths []string, stateDir string) error {
	var changes []*integrate.Change
	for _, p := range paths {
		c, err := integrate.PlanRemove(p, stateDir)
		if err != nil {
			return err
		}
		if !c.Nothing {
			changes = append(changes, c)
		}
	}
	if len(changes) == 0 {
		return a.applyIntegration(opts, paths[0], stateDir, &integrate.Change{Path: paths[0], Nothing: true}, hookWords)
	}
	for _, c := range changes {
		if err := a.applyIntegration(opts, c.Path, stateDir, c, hookWords); err != nil {
			return err
		}
	}
	return nil
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// integrationWords is how applyIntegration names what it installs: the
// hooks, or the MCP server.
type integrationWords struct {
	none, already, what, installed string
}

var (
	hookWords = integrationWords{
		none:      "no session-handoff hooks installed in %s",
		already:   "%s already has the session-handoff hooks",
		what:      "the session-handoff hooks",
		installed: "installed the session-handoff hooks in %s",
	}
	mcpWords = integrationWords{
		none:      "no session-handoff MCP server registered in %s",
		already:   "%s already registers an MCP server named session-handoff",
		what:      "the session-handoff MCP server",
		installed: "registered the session-handoff MCP server in %s",
	}
)

// applyIntegration writes the planned change c to the settings file at
// path (or prints it, for --dry-run) and says what it did, in words.
func (a *app) applyIntegration(opts integrateOptions, path, stateDir string, c *integrate.Change, words integrationWords) error {
	switch {
	case c.Nothing && opts.remove:
		fmt.Fprintf(a.stdout, words.none+"\n", path)
	case c.Nothing:
		fmt.Fprintf(a.stdout, words.already+"\n", path)
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
			fmt.Fprintf(a.stdout, "took %s out of %s; your later edits are kept\n", words.what, path)
		}
	default:
		if err := integrate.ApplyInstall(c, stateDir); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, words.installed+"\n", path)
	}
	return nil
}

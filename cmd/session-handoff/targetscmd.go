package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/targets"
)

// targetsOptions are targets' flags.
type targetsOptions struct {
	json bool
}

func newTargetsCmd(a *app) *cobra.Command {
	var opts targetsOptions
	cmd := &cobra.Command{
		Use:   "targets [--json]",
		Short: "list the agents a handoff can be rendered for",
		Long: `For each target agent: the instruction files it reads by itself, the files
'render --as instructions --write' puts the handoff in (personal_file,
yours; instruction_file, the team's, with --shared), the size limits it
has (max_file_size, instruction_budget, hook_context_limit: what a
session-start hook's briefing may take), the hooks 'integrate' installs
(hooks in --json: the settings files, the agent's events, their declared
timeouts), how to start it with a rendered prompt without passing a long
text as one command-line argument, and where it registers MCP servers
(mcp in --json: the files, their format, the command that registers ours).`,
		Example: `  session-handoff targets
  session-handoff targets --json | jq -r '.[] | select(.name=="codex") | .launch[0].command'`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runTargets(a, opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the profiles as JSON")
	return cmd
}

// targetHooks is what 'targets --json' says of an agent's hooks.
type targetHooks struct {
	ProjectFile string        `json:"project_file"`
	LocalFile   string        `json:"local_file,omitempty"`
	UserFile    string        `json:"user_file"`
	Events      []targetEvent `json:"events"`
	Trust       string        `json:"trust,omitempty"`
	Docs        string        `json:"docs"`
}

// targetEvent is one hook: our name, the agent's, the declared timeout in
// the agent's unit.
type targetEvent struct {
	Hook    string `json:"hook"`
	Event   string `json:"event"`
	Timeout int    `json:"timeout,omitempty"`
}

// targetView is a profile as 'targets --json' prints it.
type targetView struct {
	targets.Profile
	HookContextLimit int          `json:"hook_context_limit,omitempty"`
	Hooks            *targetHooks `json:"hooks,omitempty"`
}

// targetViews are the profiles with what the agents table and integrate
// know of each agent.
func targetViews() []targetView {
	var out []targetView
	for _, p := range targets.All() {
		v := targetView{Profile: p}
		if info, ok := agents.Find(p.Name); ok && info.Name == p.Name {
			v.HookContextLimit = info.HookContextLimit
		}
		if ia, err := integrate.LookupAgent(p.Name); err == nil && ia.Name == p.Name {
			h := &targetHooks{ProjectFile: ia.ProjectSettings, LocalFile: ia.LocalSettings, UserFile: "~/" + ia.UserSettings, Trust: ia.Trust, Docs: ia.Docs}
			for _, e := range ia.Events {
				h.Events = append(h.Events, targetEvent{e.Ours, e.Theirs, e.Timeout})
			}
			v.Hooks = h
		}
		out = append(out, v)
	}
	return out
}

func runTargets(a *app, opts targetsOptions) error {
	all := targetViews()
	if opts.json {
		return a.writeJSON(all)
	}
	for i, p := range all {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		name := p.Name
		if len(p.Aliases) > 0 {
			name += " (also " + strings.Join(p.Aliases, ", ") + ")"
		}
		fmt.Fprintf(a.stdout, "%s: %s\n", name, p.Agent)
		fmt.Fprintf(a.stdout, "  reads:   %s\n", strings.Join(p.Reads, "\n           "))
		if p.PersonalFile != "" {
			fmt.Fprintf(a.stdout, "  writes:  %s, yours (a marked block, %s by default); --shared: %s\n", p.PersonalFile, kib(p.InstructionBudget), p.InstructionFile)
		} else {
			fmt.Fprintf(a.stdout, "  writes:  %s (a marked block, %s by default)\n", p.InstructionFile, kib(p.InstructionBudget))
		}
		if p.MaxFileSize > 0 {
			fmt.Fprintf(a.stdout, "  limit:   the agent reads at most %s\n", kib(p.MaxFileSize))
		}
		for _, l := range p.Launch {
			fmt.Fprintf(a.stdout, "  launch:  %s\n           %s\n", l.How, l.Command)
		}
		if h := p.Hooks; h != nil {
			fmt.Fprintf(a.stdout, "  hooks:   %s in %s; %s\n", strings.Join(hookEvents(h), ", "), h.ProjectFile, "session-handoff integrate "+p.Name)
		}
		if m := p.MCP; m != nil {
			if m.ProjectFile == "" {
				fmt.Fprintf(a.stdout, "  mcp:     %s, for every project\n           %s\n", m.UserFile, m.Register)
			} else {
				fmt.Fprintf(a.stdout, "  mcp:     %s in the project, %s for every project\n           %s\n", m.ProjectFile, m.UserFile, m.Register)
			}
		}
		for _, n := range p.Notes {
			fmt.Fprintf(a.stdout, "  note:    %s\n", n)
		}
	}
	return nil
}

// kib prints a byte count in KiB when it is a whole number of them.
func kib(n int) string {
	if n%1024 == 0 {
		return fmt.Sprintf("%d KiB", n/1024)
	}
	return fmt.Sprintf("%d bytes", n)
}

// hookEvents lists the agent's events with their declared timeouts.
func hookEvents(h *targetHooks) []string {
	var out []string
	for _, e := range h.Events {
		ev := e.Event
		if e.Timeout > 0 {
			ev += fmt.Sprintf(" (timeout %d)", e.Timeout)
		}
		out = append(out, ev)
	}
	return out
}

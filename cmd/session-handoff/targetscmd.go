package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

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
		Long: `For each target agent: the instruction files it reads by itself, the file
'render --as instructions --write' puts the handoff in, the size limits it
has, how to start it with a rendered prompt without passing a long text
as one command-line argument, and where it registers MCP servers (mcp in
--json: the files, their format, the command that registers ours).`,
		Example: `  session-handoff targets
  session-handoff targets --json | jq -r '.[] | select(.name=="codex") | .launch[0].command'`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runTargets(a, opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the profiles as JSON")
	return cmd
}

func runTargets(a *app, opts targetsOptions) error {
	all := targets.All()
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
		fmt.Fprintf(a.stdout, "  writes:  %s (a marked block, %s by default)\n", p.InstructionFile, kib(p.InstructionBudget))
		if p.MaxFileSize > 0 {
			fmt.Fprintf(a.stdout, "  limit:   the agent reads at most %s\n", kib(p.MaxFileSize))
		}
		for _, l := range p.Launch {
			fmt.Fprintf(a.stdout, "  launch:  %s\n           %s\n", l.How, l.Command)
		}
		if m := p.MCP; m != nil {
			fmt.Fprintf(a.stdout, "  mcp:     %s in the project, %s for every project\n           %s\n", m.ProjectFile, m.UserFile, m.Register)
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

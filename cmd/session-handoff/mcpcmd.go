package main

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/buildinfo"
	"github.com/session-handoff/session-handoff/internal/mcpserver"
	"github.com/session-handoff/session-handoff/internal/paths"
)

// mcpOptions are mcp's flags.
type mcpOptions struct {
	agent   string
	project string
	memDir  string
}

func newMCPCmd(a *app) *cobra.Command {
	var opts mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp [--agent " + agents.Choices(agents.Names()) + "] [--project DIR] [--memory-dir DIR]",
		Short: "serve handoffs to an agent over the Model Context Protocol (stdio)",
		Long: `Serves the Model Context Protocol on standard input and output, one
JSON-RPC message per line, for the agent that starts it ('integrate AGENT
--mcp' registers it). Tools: handoff_list, handoff_search, handoff_show,
handoff_save (with the git state, as save records it), handoff_capture
(from the agent's own transcript, redacted), handoff_resume (the
start-of-session briefing), handoff_render (target, budget) and
handoff_score. Resources: the latest handoff of the project
(session-handoff://handoff/latest) and its memory files
(session-handoff://memory/SOUL.md, MEMORY.md, HANDOFF.md,
layer2/current-state.md), read as resume reads them: regular files inside
the project, bounded, secrets redacted.

No tool imports a bundle, changes the trust store, exports to recipients,
writes an instruction file or runs handover steps: those stay your
decisions, on the command line. No key is read. Text from handoffs and
memory files is fenced and labelled as data, as render does.

A line that is not JSON, not a JSON-RPC message, or longer than 4 MiB is
answered with a JSON-RPC error and the server reads on. Messages go to
standard output only; warnings go to standard error.`,
		Example: `  session-handoff mcp --agent claude-code
  claude mcp add --scope user session-handoff -- session-handoff mcp --agent claude-code`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runMCP(a, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.agent, "agent", "", "the agent that runs the server ("+strings.Join(agents.Names(), ", ")+"): capture's and render's default")
	f.StringVar(&opts.project, "project", ".", "the project directory")
	f.StringVar(&opts.memDir, "memory-dir", "memory", "the memory directory, relative to the project root")
	cmd.RegisterFlagCompletionFunc("agent", fixedCompletion(agents.Names()...))
	return cmd
}

func runMCP(a *app, opts mcpOptions) error {
	agent := ""
	if opts.agent != "" {
		info, err := agents.Lookup(opts.agent)
		if err != nil {
			return usageError{err}
		}
		agent = info.Name
	}
	root, err := a.projectRoot(opts.project)
	if err != nil {
		return err
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	srv := mcpserver.New(mcpserver.Options{Store: s, Project: root, MemoryDir: opts.memDir, ConfigDir: kr.Dir, Agent: agent,
		Env: a.getenv, Version: buildinfo.Version(), Machine: paths.Hostname()})
	err = srv.Run(a.ctx, &mcpserver.LineTransport{Reader: a.stdin, Writer: a.stdout})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/render"
)

// sessionsOptions are sessions' flags.
type sessionsOptions struct {
	from    string // an agent, or all
	project string // '' for every directory
	json    bool
}

func newSessionsCmd(a *app) *cobra.Command {
	var opts sessionsOptions
	cmd := &cobra.Command{
		Use:   "sessions [--from " + agents.Choices(capture.AgentNames(), "all") + "] [--project DIR] [--json]",
		Short: "list the agent sessions capture can see",
		Long: `Lists the transcripts of ` + sessionPlaces() + `, newest first, with the working directory each
session ran in, and its title (or first request), its secrets redacted as
capture redacts them. --project keeps the sessions that ran in that directory or
under it; --project '' shows all. A Claude Code subagent's transcript is part of
its session, never listed as one; --json gives each session's agent version
and nests its subagents' transcripts under it.`,
		Example: `  session-handoff sessions
  session-handoff sessions --from codex --project ~/src/app --json`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runSessions(a, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.from, "from", "all", "the agent: "+agents.OrList(append(capture.AgentNames(), "all")...))
	f.StringVar(&opts.project, "project", ".", "only sessions that ran in this directory or under it ('' for all)")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	cmd.RegisterFlagCompletionFunc("from", fixedCompletion(append([]string{"all"}, capture.AgentNames()...)...))
	return cmd
}

// sessionPlaces names each agent capture reads and where it keeps its
// transcripts, from the agents table: "Claude Code (~/.claude/projects,
// …) and Codex CLI (…)".
func sessionPlaces() string {
	var out []string
	for _, name := range capture.AgentNames() {
		a, _ := agents.Find(name)
		out = append(out, a.Display+" ("+a.SessionsHelp+")")
	}
	return agents.OrList(out...)
}

// sessionRow is one session as sessions --json prints it.
type sessionRow struct {
	Agent        capture.Agent `json:"agent"`
	ID           string        `json:"id"`
	Path         string        `json:"path"`
	CWD          string        `json:"cwd,omitempty"`
	Title        string        `json:"title,omitempty"`
	Started      *time.Time    `json:"started,omitempty"`
	LastActivity *time.Time    `json:"last_activity,omitempty"`
	AgentVersion string        `json:"agent_version,omitempty"`
	// Subagents are the session's subagent transcripts (Claude Code):
	// part of the session, never sessions of their own.
	Subagents []subagentRow `json:"subagents,omitempty"`
}

// subagentRow is one subagent transcript of a session.
type subagentRow struct {
	ID           string `json:"id"`
	Path         string `json:"path"`
	AgentVersion string `json:"agent_version,omitempty"`
}

func runSessions(a *app, opts sessionsOptions) error {
	agents, err := parseAgents(opts.from)
	if err != nil {
		return err
	}
	found, err := capture.ListSessions(agents, a.getenv, opts.project)
	if err != nil {
		return err
	}
	r, err := a.redactor()
	if err != nil {
		return err
	}
	capture.RedactSessions(found, r)
	if opts.json {
		out := []sessionRow{}
		for _, s := range found {
			r := sessionRow{Agent: s.Agent, ID: s.ID, Path: s.Path, CWD: s.CWD, Title: s.Title, AgentVersion: s.AgentVersion}
			for _, sub := range s.Subagents {
				r.Subagents = append(r.Subagents, subagentRow{ID: sub.ID, Path: sub.Path, AgentVersion: sub.AgentVersion})
			}
			if !s.Started.IsZero() {
				r.Started = &s.Started
			}
			if !s.LastActivity.IsZero() {
				r.LastActivity = &s.LastActivity
			}
			out = append(out, r)
		}
		return a.writeJSON(out)
	}
	if len(found) == 0 {
		fmt.Fprintln(a.stderr, "no agent sessions found")
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tID\tLAST ACTIVITY\tDIRECTORY\tTITLE")
	for _, s := range found {
		last := "?"
		if !s.LastActivity.IsZero() {
			last = render.Ago(s.LastActivity, now)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Agent, cell(s.ID, 36), last, cell(s.CWD, 40), cell(s.Title, 50))
	}
	return tw.Flush()
}

// parseAgents reads sessions' --from: one agent, or all of them (nil) for
// "all" or "auto".
func parseAgents(from string) ([]capture.Agent, error) {
	if from == "all" || from == "auto" {
		return nil, nil
	}
	ag, err := capture.ParseAgent(from)
	if err != nil {
		return nil, usagef("--from %q: want %s", handoff.Shorten(from, 40), agents.OrList(append(capture.AgentNames(), "all")...))
	}
	return []capture.Agent{ag}, nil
}

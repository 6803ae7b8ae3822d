package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
)

func init() {
	register(&command{
		name:    "sessions",
		summary: "list the agent sessions capture can see",
		usage:   "sessions [--from claude-code|codex|gemini|all] [--project DIR] [--json]",
		help: `Lists the transcripts of Claude Code (~/.claude/projects, or
$CLAUDE_CONFIG_DIR), Codex CLI ($CODEX_HOME/sessions, default ~/.codex) and
Gemini CLI (~/.gemini/tmp), newest first, with the working directory each
session ran in. --project keeps the sessions that ran in that directory or
under it; --project '' shows all.`,
		example: `  session-handoff sessions
  session-handoff sessions --from codex --project ~/src/app --json`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			from := fs.String("from", "all", "the agent: claude-code, codex, gemini or all")
			project := fs.String("project", ".", "only sessions that ran in this directory or under it ('' for all)")
			asJSON := fs.Bool("json", false, "print as JSON")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", handoff.Shorten(args[0], 40))
				}
				found, err := a.findSessions(*from, *project)
				if err != nil {
					return err
				}
				if *asJSON {
					type row struct {
						Agent        capture.Agent `json:"agent"`
						ID           string        `json:"id"`
						Path         string        `json:"path"`
						CWD          string        `json:"cwd,omitempty"`
						Title        string        `json:"title,omitempty"`
						Started      *time.Time    `json:"started,omitempty"`
						LastActivity *time.Time    `json:"last_activity,omitempty"`
					}
					out := []row{}
					for _, s := range found {
						r := row{Agent: s.Agent, ID: s.ID, Path: s.Path, CWD: s.CWD, Title: s.Title}
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
						last = ago(s.LastActivity, now)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Agent, cell(s.ID, 36), last, cell(s.CWD, 40), cell(s.Title, 50))
				}
				return tw.Flush()
			}
		},
	})
}

// findSessions lists the sessions of one agent or all, newest first,
// limited to a project directory unless project is empty.
func (a *app) findSessions(from, project string) ([]capture.SessionInfo, error) {
	agents := capture.Agents
	if from != "all" && from != "auto" {
		ag, err := capture.ParseAgent(from)
		if err != nil {
			return nil, usagef("--from %q: want claude-code, codex, gemini or all", handoff.Shorten(from, 40))
		}
		agents = []capture.Agent{ag}
	}
	var all []capture.SessionInfo
	for _, ag := range agents {
		found, err := capture.FindSessions(ag, a.getenv)
		if err != nil {
			return nil, fmt.Errorf("find %s sessions: %w", ag, err)
		}
		all = append(all, found...)
	}
	if project != "" {
		abs, err := filepath.Abs(project)
		if err != nil {
			return nil, err
		}
		all = capture.MatchProject(all, abs)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].LastActivity.After(all[j].LastActivity) })
	return all, nil
}

package main

import (
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/briefing"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/targets"
)

func init() {
	register(&command{
		name:    "resume",
		summary: "brief an agent at the start of a session: memory, the latest handoff, what changed since",
		usage:   "resume [--target T] [--project DIR] [--memory-dir DIR] [--budget N] [--json]",
		help: `Prints the start-of-session briefing for the project: its identity and
memory files (SOUL.md, MEMORY.md in the memory directory or the project
root) when it has them, the latest handoff for the project, and how the git
worktree moved since that handoff (new commits, branch switched, files
changed since). The handoff is found by the project's path, or else by its
name (a handoff made on another machine).

Memory files are read only when they are regular files inside the project
(a symlink pointing out of it is refused), at most 16 KiB each, with
secrets redacted. With no memory and no handoff the briefing says so and
the exit status is still 0, so it can run from a session-start hook.

--budget covers the whole briefing. The handoff gives way first, by the
plan render --help describes; then the memory files are shortened, and at
last left out and only named. What gave way is said on stderr.`,
		example: `  session-handoff resume --target claude-code
  session-handoff resume --json | jq .drift.relation`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeFlag(fs, a)
			target := fs.String("target", "generic", "the agent: "+strings.Join(targets.Names(), ", "))
			project := fs.String("project", ".", "the project directory")
			memDir := fs.String("memory-dir", "memory", "the memory directory, relative to the project root")
			budget := fs.String("budget", "", "size limit: tokens (8000) or bytes (32KiB)")
			asJSON := fs.Bool("json", false, "print the briefing and its parts as JSON")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments")
				}
				p, err := targets.Lookup(*target)
				if err != nil {
					return usageError{err}
				}
				b, err := render.ParseBudget(*budget)
				if err != nil {
					return usageError{err}
				}
				root, err := a.projectRoot(*project)
				if err != nil {
					return err
				}
				s, err := a.openStore()
				if err != nil {
					return err
				}
				br, res, err := briefing.Build(a.ctx, s, briefing.Options{Project: root, MemoryDir: *memDir,
					Render: render.Options{Style: p.Style, Budget: b}, Warn: a.warn})
				if err != nil {
					return err
				}
				if *asJSON {
					return a.writeJSON(resumeJSON{Project: root, Memory: br.Memory, Handoff: br.Record,
						MatchedByName: br.MatchedByName, Drift: br.Drift, Omitted: res.Omitted, Shortened: res.Shortened, Briefing: res.Text})
				}
				if _, err := io.WriteString(a.stdout, res.Text); err != nil {
					return err
				}
				a.noteLeftOut(res, b)
				return nil
			}
		},
	})
}

// resumeJSON is resume's --json output.
type resumeJSON struct {
	Project       string              `json:"project"`
	Memory        []render.MemoryFile `json:"memory"`
	Handoff       *handoff.Record     `json:"handoff"`
	MatchedByName bool                `json:"matched_by_name,omitempty"`
	Drift         *handoff.Drift      `json:"drift"`
	Omitted       []string            `json:"omitted,omitempty"`
	Shortened     []string            `json:"shortened,omitempty"`
	Briefing      string              `json:"briefing"`
}

package main

import (
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/briefing"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/targets"
)

// resumeOptions are resume's flags.
type resumeOptions struct {
	target  string
	project string
	memDir  string
	budget  string
	json    bool
}

func newResumeCmd(a *app) *cobra.Command {
	var opts resumeOptions
	cmd := &cobra.Command{
		Use:   "resume [DIR] [--target T] [--project DIR] [--memory-dir DIR] [--budget N] [--json]",
		Short: "brief an agent at the start of a session: memory, the latest handoff, what changed since",
		Long: `Prints the start-of-session briefing for the project: its identity and
memory files (SOUL.md, MEMORY.md in the memory directory or the project
root) when it has them, the latest handoff for the project, and how the git
worktree moved since that handoff (new commits, branch switched, files
changed since). DIR, as agent-handoff's resume took it, is --project DIR.
The handoff is found by the project's path, or else by its
name (a handoff made on another machine).

Memory files are read only when they are regular files inside the project
(a symlink pointing out of it is refused), at most 16 KiB each, with
secrets redacted. With no memory and no handoff the briefing says so and
the exit status is still 0, so it can run from a session-start hook.

--budget covers the whole briefing. The handoff gives way first, by the
plan render --help describes; then the memory files are shortened, and at
last left out and only named. What gave way is said on stderr.`,
		Example: `  session-handoff resume --target claude-code
  session-handoff resume --json | jq .drift.relation`,
		Args: rangeArgs(0, 1, "at most one argument, the project directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if err := projectArg(cmd, args[0], &opts.project); err != nil {
					return err
				}
			}
			return runResume(a, &opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.target, "target", "generic", "the agent: "+strings.Join(targets.Names(), ", "))
	f.StringVar(&opts.project, "project", ".", "the project directory")
	f.StringVar(&opts.memDir, "memory-dir", "memory", "the memory directory, relative to the project root")
	f.StringVar(&opts.budget, "budget", "", "size limit: tokens (8000) or bytes (32KiB)")
	f.BoolVar(&opts.json, "json", false, "print the briefing and its parts as JSON")
	completeTargets(cmd, targets.Names)
	return cmd
}

// projectArg takes a positional DIR (agent-handoff's form) for --project
// DIR: it must be an existing directory, and --project not given too.
func projectArg(cmd *cobra.Command, dir string, project *string) error {
	if cmd.Flags().Changed("project") {
		return usagef("the project is named twice (an argument and --project)")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return withHint(usagef("%q is not a directory", handoff.Shorten(dir, 80)),
			"the project is named with --project DIR: session-handoff "+commandName(cmd)+" --project DIR")
	}
	*project = dir
	return nil
}

func runResume(a *app, opts *resumeOptions) error {
	p, err := targets.Lookup(opts.target)
	if err != nil {
		return usageError{err}
	}
	b, err := render.ParseBudget(opts.budget)
	if err != nil {
		return usageError{err}
	}
	root, err := a.projectRoot(opts.project)
	if err != nil {
		return err
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	br, res, err := briefing.Build(a.ctx, s, briefing.Options{Project: root, MemoryDir: opts.memDir,
		Render: render.Options{Style: p.Style, Budget: b}, Warn: a.warn})
	if err != nil {
		return err
	}
	if opts.json {
		return a.writeJSON(resumeJSON{Project: root, Memory: br.Memory, Handoff: br.Record,
			MatchedByName: br.MatchedByName, MatchedElsewhere: br.MatchedElsewhere, Drift: br.Drift, Changes: br.Changes, Omitted: res.Omitted, Shortened: res.Shortened, Briefing: res.Text})
	}
	if _, err := io.WriteString(a.stdout, res.Text); err != nil {
		return err
	}
	a.noteLeftOut(res, b)
	return nil
}

// resumeJSON is resume's --json output.
type resumeJSON struct {
	Project       string              `json:"project"`
	Memory        []render.MemoryFile `json:"memory"`
	Handoff       *handoff.Record     `json:"handoff"`
	MatchedByName bool                `json:"matched_by_name,omitempty"`
	// MatchedElsewhere: made on another machine for the same repository.
	MatchedElsewhere bool                   `json:"matched_elsewhere,omitempty"`
	Drift            *handoff.Drift         `json:"drift"`
	Changes          *render.CarriedChanges `json:"changes,omitempty"`
	Omitted          []string               `json:"omitted,omitempty"`
	Shortened        []string               `json:"shortened,omitempty"`
	Briefing         string                 `json:"briefing"`
}

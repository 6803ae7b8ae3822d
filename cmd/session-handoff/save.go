package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/changes"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/store"
	"github.com/session-handoff/session-handoff/targets"
)

// saveOptions are save's flags.
type saveOptions struct {
	tool    string
	project string
	notes   noteOptions
	noGit   bool
	json    bool
	quiet   bool // no score advice
	changes changesFlags
}

func newSaveCmd(a *app) *cobra.Command {
	var opts saveOptions
	cmd := &cobra.Command{
		Use:   "save --title TEXT [--summary TEXT | --summary-file F|-] [--next TEXT]… [flags]",
		Short: "record a handoff: what was done, decided, and comes next, with the git state",
		Long: `Saves a handoff in the local store and prints its id. The git state of
--project (default: the current directory) is recorded: repository root,
branch, HEAD, upstream and ahead/behind, staged, unstaged and untracked
files, and the last commits. A directory that is not a git worktree is an
error unless --no-git is given. --next, --decision, --question and --tag
may be repeated; empty items are rejected.

--with-changes attaches the worktree's uncommitted changes (staged,
unstaged, and untracked files that are not ignored) as changes.patch, a
git patch against HEAD that 'session-handoff apply' applies on the other
machine. A secret found in them refuses the attachment unless
--allow-secrets-in-changes is given: code is never altered to hide it.
Without it, save says how many uncommitted files stay on this machine.`,
		Example: `  session-handoff save --tool codex --project ~/src/app --title "Refactor auth middleware" \
      --summary "Extracted token parser; refresh tests still failing" \
      --next "Fix refresh test matrix" --next "Run race tests" \
      --decision "Keep JWT, drop sessions table" --tag auth
  git log -1 --format=%B | session-handoff save --title "Release prep" --summary-file -`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runSave(a, &opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.tool, "tool", "generic", "the agent that produced the session ("+strings.Join(targets.Names()[1:], ", ")+", generic…)")
	f.StringVar(&opts.project, "project", ".", "project directory")
	opts.notes.bind(f, "one-line title (required)")
	f.BoolVar(&opts.noGit, "no-git", false, "save without git state (for a directory that is not a git worktree)")
	f.BoolVar(&opts.quiet, "quiet", false, "do not print the score and what to add")
	f.BoolVar(&opts.json, "json", false, "print the saved record as JSON")
	opts.changes.bind(f, a)
	return cmd
}

func runSave(a *app, opts *saveOptions) error {
	if opts.notes.title == "" {
		return usagef("--title is required")
	}
	if err := opts.notes.check(); err != nil {
		return err
	}
	if !handoff.ValidTool(opts.tool) {
		return usagef("--tool %q: want a lower-case name such as %s", handoff.Shorten(opts.tool, 40), agents.OrList(agents.Names()...))
	}
	rec, err := handoff.New(time.Now(), opts.tool, opts.notes.title)
	if err != nil {
		return err
	}
	rec.Source.Machine = paths.Hostname()
	s, err := a.openStore()
	if err != nil {
		return err
	}
	if err := capture.FromWorktreeAfter(a.ctx, rec, opts.project, opts.noGit, previous(s)); err != nil {
		if errors.Is(err, capture.ErrNotGitRepo) {
			return withHint(err, "pass --no-git to save without git state")
		}
		return err
	}
	if err := opts.notes.apply(a, rec); err != nil {
		return err
	}
	var m *changes.Made
	if opts.changes.with && rec.Git != nil {
		if m, err = a.makeChanges(rec.Git.Root, opts.changes); err != nil {
			return err
		}
		defer m.Close()
	}
	if m != nil {
		if err := attachChanges(s, rec, m); err != nil {
			return err
		}
	}
	if err := s.Save(rec); err != nil {
		return err
	}
	a.sayChanges(rec, m)
	if opts.json {
		if err := a.writeJSON(rec); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "saved %s  %s\n", rec.ID, rec.Title)
	}
	// The advice comes after what was done.
	a.warnIncomplete(rec, opts.quiet)
	return nil
}

// previous is the newest handoff of s made at a project's own path, from
// which a save at the same commit takes the history (capture.Worktree).
func previous(s *store.Store) capture.Previous {
	return func(top string) *handoff.Record {
		rec, match, err := s.LatestForProject(top, nil)
		if err != nil || match != store.MatchPath {
			return nil
		}
		return rec
	}
}

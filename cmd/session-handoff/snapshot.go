package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/handover"
	"github.com/session-handoff/session-handoff/internal/memory"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/render"
)

// snapshotOptions are snapshot's argument and flags.
type snapshotOptions struct {
	dir    string
	mode   string
	title  string
	tool   string
	stdout bool
}

func newSnapshotCmd(a *app) *cobra.Command {
	var opts snapshotOptions
	cmd := &cobra.Command{
		Use:   "snapshot [DIR] [--mode LABEL] [--title T] [--stdout]",
		Short: "save a handoff from git alone and write it to memory/HANDOFF.md, in one step",
		Long: `The one-shot snapshot agent-handoff users know: saves a handoff of the
project's git worktree (branch, recent commits, uncommitted changes, the
project's kind and its build and test commands; without git, the kind
and commands only) and writes it, rendered, to HANDOFF.md in the project's
memory directory, with a pointer to SOUL.md and MEMORY.md beside it; in
agent-handoff's layout (HANDOFF.md at the project's root, none in the
memory directory) the root's HANDOFF.md is the one written.
--mode records the session's mode as the tag mode:LABEL. For a full
end-of-session run (the agent's transcript, notes, compaction) use
'session-handoff handover run'.`,
		Example: `  session-handoff snapshot --mode build
  session-handoff snapshot ~/agent --mode heartbeat --stdout`,
		Args: rangeArgs(0, 1, "at most one directory"),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.dir = "."
			if len(args) == 1 {
				opts.dir = args[0]
			}
			return runSnapshot(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.mode, "mode", "", "the session's mode (build, engage, heartbeat…), kept as the tag mode:LABEL")
	f.StringVar(&opts.title, "title", "", "the handoff's title (default: Snapshot, with the mode)")
	f.StringVar(&opts.tool, "tool", "generic", "the agent that worked in the session")
	f.BoolVar(&opts.stdout, "stdout", false, "also print what was written to HANDOFF.md")
	return cmd
}

func runSnapshot(a *app, opts snapshotOptions) error {
	var tags []string
	if opts.mode != "" {
		t, err := handover.ModeTag(opts.mode)
		if err != nil {
			return usageError{err}
		}
		tags = append(tags, t)
	}
	if !handoff.ValidTool(opts.tool) {
		return usagef("--tool %q: want a lower-case name such as %s", handoff.Shorten(opts.tool, 40), agents.OrList(agents.Names()...))
	}
	title := opts.title
	if title == "" {
		title = "Snapshot"
		if opts.mode != "" {
			title += " (" + opts.mode + ")"
		}
	}
	rec, err := handoff.New(time.Now(), opts.tool, title)
	if err != nil {
		return usageError{err}
	}
	rec.Tags, rec.Source.Machine = tags, paths.Hostname()
	if err := capture.FromWorktree(a.ctx, rec, opts.dir, false); errors.Is(err, capture.ErrNotGitRepo) {
		fmt.Fprintf(a.stderr, "note: %s is not a git worktree: the snapshot has no git state\n", handoff.CleanText(opts.dir))
		err = capture.FromWorktree(a.ctx, rec, opts.dir, true)
		if err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	if err := s.Save(rec); err != nil {
		return err
	}
	res, err := render.Render(rec, render.Options{})
	if err != nil {
		return err
	}
	wd, _ := os.Getwd()
	dir := memory.DefaultDir(rec.Project.Path, wd)
	var text, path string
	if root := filepath.Dir(dir.Root); memory.KeepsRootHandoff(root, dir) {
		// agent-handoff's layout: HANDOFF.md (and SOUL.md, MEMORY.md)
		// at the project's root, where its agent reads them.
		text = handover.SnapshotText(rec, opts.mode, memory.Dir{Root: root}.HasIdentity(), res.Text)
		path, err = memory.WriteRootHandoff(root, string(rec.ID), text)
	} else {
		text = handover.SnapshotText(rec, opts.mode, dir.HasIdentity(), res.Text)
		path, err = dir.WriteHandoff(string(rec.ID), text)
	}
	if err != nil {
		return fmt.Errorf("handoff %s saved, but: %w", rec.ID, err)
	}
	if opts.stdout {
		fmt.Fprint(a.stdout, text)
	}
	fmt.Fprintf(a.stdout, "saved %s  %s\nwrote %s\n", rec.ID, cell(rec.Title, 60), path)
	return nil
}

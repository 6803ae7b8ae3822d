package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/changes"
)

// applyOptions are apply's argument and flags.
type applyOptions struct {
	ref         string
	allProjects bool
	dryRun      bool
	branch      string
	project     string
	force       bool
}

func newApplyCmd(a *app) *cobra.Command {
	opts := applyOptions{ref: "latest"}
	cmd := &cobra.Command{
		Use:   "apply [ID|latest] [--dry-run] [--branch NAME] [--project DIR] [--force]",
		Short: "apply the uncommitted changes a handoff carries to this worktree",
		Long: `--dry-run shows what apply would do and changes nothing: start there.

Applies changes.patch, the uncommitted changes a handoff made with
--with-changes carries, to the git worktree of --project (default: the
current directory). It first checks the patch (no path outside the
worktree or into .git, no link, no file made executable, no submodule,
bounded sizes), that its base commit is in this repository (and says how
to fetch it if not), that it applies to that commit, and the worktree's
state on disk (no merge in progress, no file, untracked or ignored, where
the patch creates one, no symbolic link on the way to any path it writes,
here or in the base commit). Git runs no program the repository names
(no hook, filter, merge or diff driver).

The changes go on top of the current branch with a three-way merge (git
apply --3way), or with --branch NAME on a new branch made at the base
commit. Local changes are never overwritten: they are first kept as a
stash entry (git stash list), and a file both sides changed is merged,
with git's conflict markers where the same lines changed; apply then
names those files and exits 1. An apply that was killed leaves a journal
in the git directory naming what it wrote: the next apply undoes what it
began from that journal alone, removing only files that hold what it
wrote (keeping the worktree as it found it in the stash too), and starts
again; a worktree that holds the changes already is left alone.

A handoff that is not verified and trusted (imported unsigned, from an
untrusted or pinned key, legacy) is code from outside: apply refuses it
unless --force is given. Read it first with
'session-handoff show ID --attachment changes.patch -o -'.`,
		Example: `  session-handoff apply --dry-run
  session-handoff apply 01KMBF --branch from-laptop
  session-handoff apply latest --project ~/src/app`,
		Args:              rangeArgs(0, 1, "at most one id"),
		ValidArgsFunction: a.completeIDs,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ref = args[0]
			}
			return runApply(a, &opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.dryRun, "dry-run", false, "show what apply would do; change nothing")
	f.StringVar(&opts.branch, "branch", "", "apply on a new branch of this name, made at the base commit")
	f.StringVar(&opts.project, "project", ".", "the project directory")
	f.BoolVar(&opts.force, "force", false, "apply the changes of a handoff that is not verified and trusted")
	f.BoolVar(&opts.allProjects, "all-projects", false, allProjectsUsage)
	return cmd
}

func runApply(a *app, opts *applyOptions) error {
	s, rec, err := a.openRecord(opts.ref, opts.allProjects)
	if err != nil {
		return err
	}
	if _, ok := rec.Changes(); !ok {
		err := fmt.Errorf("%s carries no changes", rec.ID)
		if n := rec.Git.Uncommitted(); n > 0 {
			return withHint(err, fmt.Sprintf("its %d uncommitted file(s) stayed on the machine it was made on: save or export there with --with-changes", n))
		}
		return err
	}
	if !rec.Source.Vouched() && !opts.force {
		return withHint(fmt.Errorf("refused: %s is not verified and trusted: its changes are code from outside", rec.ID),
			fmt.Sprintf("read them with 'session-handoff show %s --attachment %s -o -', then pass --force", rec.ID, changes.Name))
	}
	data, _, err := changes.Carried(s, rec)
	if err != nil {
		return fmt.Errorf("%s: %w", rec.ID, err)
	}
	root, err := a.projectRoot(opts.project)
	if err != nil {
		return err
	}
	pl, err := changes.Apply(a.ctx, root, data, changes.ApplyOptions{Branch: opts.branch, DryRun: opts.dryRun,
		StashMessage: "session-handoff apply " + string(rec.ID) + ": local changes before applying"})
	if err != nil {
		return err
	}
	printPlan(a, opts, pl)
	if len(pl.Conflicts) > 0 {
		return withHint(fmt.Errorf("%d file(s) with conflicts, marked in the files: %s", len(pl.Conflicts), cellList(pl.Conflicts)),
			"resolve them and 'git add' them; your local changes are also in 'git stash list'")
	}
	return nil
}

// printPlan says what apply did, or would do.
func printPlan(a *app, opts *applyOptions, pl *changes.Plan) {
	switch {
	case pl.AlreadyApplied:
		fmt.Fprintf(a.stdout, "the worktree holds the %d changed file(s) already: nothing to do\n", len(pl.Summary.Files))
		return
	case pl.Interrupted && opts.dryRun:
		fmt.Fprintln(a.stdout, "an earlier apply was interrupted: apply undoes what it began (the local changes are in the stash) and starts again")
		return
	case pl.Interrupted:
		fmt.Fprintln(a.stdout, "an earlier apply was interrupted: what it began was undone, the local changes restored from the stash")
	}
	verb := "applied"
	if opts.dryRun {
		verb = "would apply"
	}
	where := "on top of the current HEAD"
	switch {
	case opts.branch != "":
		where = "on the new branch " + cell(opts.branch, 80) + " at the base commit"
	case pl.BaseIsHead:
		where = "on the base commit (HEAD)"
	}
	fmt.Fprintf(a.stdout, "%s %d changed file(s) %s %s:\n", verb, len(pl.Summary.Files), where, pl.Summary.Base[:12])
	for _, f := range pl.Summary.Files {
		fmt.Fprintf(a.stdout, "  %s %s\n", f.Status, cell(f.Path, 200))
	}
	if len(pl.Local) > 0 {
		kept := "kept in the stash"
		if opts.dryRun {
			kept = "would be kept in the stash first"
		}
		fmt.Fprintf(a.stdout, "%d file(s) with local changes, %s; merged with the patch: %d\n", len(pl.Local), kept, len(pl.Touched))
	}
	if opts.dryRun {
		if pl.Clean {
			fmt.Fprintln(a.stdout, "it applies cleanly")
		} else {
			fmt.Fprintln(a.stdout, "it needs a three-way merge: conflicts are possible")
		}
	}
}

// cellList is paths, cleaned and joined for one line.
func cellList(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = cell(p, 200)
	}
	return strings.Join(out, ", ")
}

package main

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/memory"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// memoryMigrateOptions are the flags of 'memory migrate'.
type memoryMigrateOptions struct {
	dir    string
	dryRun bool
	json   bool
}

func newMemoryMigrateCmd(a *app) *cobra.Command {
	var opts memoryMigrateOptions
	cmd := &cobra.Command{
		Use:   "migrate [--dry-run] [--json]",
		Short: "rewrite an earlier tool's memory folder into the current form, keeping a backup",
		Long: `Rewrites the files agent-handover wrote (header "<!-- agent-handover |
layerN | DATE -->") into the current form, and puts a header on identity
files another tool wrote without one (agent-handoff's SOUL.md, MEMORY.md,
HANDOFF.md). Nothing is lost: a note becomes one entry of its date, the
state and identity files keep their text. Every file is first copied as it
was into .backup/migrate-TIME/ in the memory directory (ignored by git),
then replaced atomically, under the writers' lock; running it again, after
a crash or not, changes only what is left. --dry-run lists what would
change.`,
		Example: `  session-handoff memory migrate --dry-run
  session-handoff memory migrate`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runMemoryMigrate(a, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.dir, "dir", "", dirFlagUsage)
	f.BoolVar(&opts.dryRun, "dry-run", false, "list what would change, write nothing")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

func runMemoryMigrate(a *app, opts memoryMigrateOptions) error {
	d, err := a.memoryDir(opts.dir)
	if err != nil {
		return err
	}
	res, err := d.Migrate(opts.dryRun, time.Now())
	if errors.Is(err, iofs.ErrNotExist) {
		return withHint(err, "there is no memory directory here; --dir names another")
	}
	if err != nil {
		return err
	}
	for _, p := range res.Problems {
		fmt.Fprintf(a.stderr, "session-handoff: warning: left as it is: %s\n", untrusted.OneLine(p, maxLine))
	}
	if opts.json {
		return a.writeJSON(res)
	}
	verb := "migrated"
	if opts.dryRun {
		verb = "would migrate"
	}
	for _, p := range res.Migrated {
		fmt.Fprintf(a.stdout, "%s %s\n", verb, p)
	}
	switch {
	case len(res.Migrated) == 0:
		fmt.Fprintf(a.stdout, "%s is in the current form: nothing to migrate\n", d.Root)
	case opts.dryRun:
		fmt.Fprintf(a.stdout, "%d file(s) to migrate; nothing written\n", len(res.Migrated))
	default:
		fmt.Fprintf(a.stdout, "%d file(s) migrated; as they were in %s\n", len(res.Migrated), res.Backup)
	}
	return nil
}

// memoryShowLatest prints the newest layer-1 note (by its date, then its
// path), of tag when given.
func (a *app) memoryShowLatest(d memory.Dir, layer int, tag string, asJSON bool) error {
	best, err := d.Latest(layer, tag)
	if errors.Is(err, iofs.ErrNotExist) {
		return withHint(err, "make it with 'session-handoff memory init'")
	}
	if err != nil {
		return err
	}
	if best == nil {
		what := fmt.Sprintf("no layer-%d notes", layer)
		if tag != "" {
			what += fmt.Sprintf(" tagged %q", tag)
		}
		return withHint(errors.New(what), fmt.Sprintf("write one with 'session-handoff memory write --layer %d -'", layer))
	}
	return a.memoryShowFile(d, best.Path, asJSON)
}

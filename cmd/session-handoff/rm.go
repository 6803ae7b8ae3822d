package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
)

// rmOptions are rm's arguments.
type rmOptions struct {
	ref string // an id or unique prefix; never "latest"
}

func newRmCmd(a *app) *cobra.Command {
	var opts rmOptions
	return &cobra.Command{
		Use:               "rm ID|PREFIX",
		Short:             "remove a stored handoff",
		Long:              `Removes one handoff from the store, and the attachments no other record attaches. The id may be a unique prefix; "latest" is refused, so a slip cannot delete the wrong record.`,
		Example:           "  session-handoff rm 01JDZ3K4XQ2",
		Args:              exactArgs(1, "exactly one id"),
		ValidArgsFunction: a.completeStoredIDs,
		RunE: func(_ *cobra.Command, args []string) error {
			opts.ref = args[0]
			return runRm(a, opts)
		},
	}
}

func runRm(a *app, opts rmOptions) error {
	if opts.ref == "latest" || !handoff.ValidPrefix(opts.ref) {
		return usagef("%q is not an id or id prefix", handoff.Shorten(opts.ref, 40))
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	id, err := resolve(s, opts.ref)
	if err != nil {
		return err
	}
	rep, err := s.RemoveWithBlobs(handoff.ID(id))
	if rep == nil {
		return err
	}
	fmt.Fprintf(a.stdout, "removed %s\n", id)
	if len(rep.Removed) > 0 {
		fmt.Fprintf(a.stdout, "removed %d attachment(s) no other record attaches (%d bytes)\n", len(rep.Removed), rep.Bytes)
	}
	if err != nil {
		a.warn("%v", err)
	}
	return nil
}

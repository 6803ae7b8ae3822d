package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
)

func init() {
	register(&command{
		name:    "rm",
		summary: "remove a stored handoff",
		usage:   "rm ID|PREFIX",
		help:    `Removes one handoff from the store. The id may be a unique prefix; "latest" is refused, so a slip cannot delete the wrong record.`,
		example: "  session-handoff rm 01JDZ3K4XQ2",
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeDir := storeFlag(fs)
			return func(args []string) error {
				if len(args) != 1 {
					return usagef("takes exactly one id")
				}
				if args[0] == "latest" || !handoff.ValidPrefix(args[0]) {
					return usagef("%q is not an id or id prefix", handoff.Shorten(args[0], 40))
				}
				s, err := a.openStore(*storeDir)
				if err != nil {
					return err
				}
				id, err := resolve(s, args[0])
				if err != nil {
					return err
				}
				if err := s.Remove(handoff.ID(id)); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "removed %s\n", id)
				return nil
			}
		},
	})
}

package main

import "github.com/spf13/cobra"

// The overview (no command, --help, help) lists every top-level command
// with its group and summary. Making every command, with its flags, to
// read three strings was most of what --help cost at start (issue 49:
// 0.5 ms and 1,500 allocations of 1.2 ms in process); the overview is
// made from overviewCommands instead, a table written from the whole tree
// by `go test ./cmd/session-handoff -run TestOverviewTable -update`
// (TestOverviewTable fails when it is not what the tree says).

// overviewEntry is one top-level command as the overview shows it.
type overviewEntry struct{ name, group, short string }

// overviewOnly reports whether args ask for the overview alone: nothing,
// --help, -h or help, after the root's own flags.
func overviewOnly(args []string) bool {
	rest := afterGlobalFlags(args)
	return len(rest) == 0 || len(rest) == 1 && (rest[0] == "--help" || rest[0] == "-h" || rest[0] == "help")
}

// newOverviewRootCmd is the root with a stand-in for each command that
// carries only what the overview prints.
func newOverviewRootCmd(a *app) *cobra.Command {
	root := newBareRootCmd(a)
	for _, e := range overviewCommands {
		root.AddCommand(&cobra.Command{Use: e.name, Short: e.short, GroupID: e.group, Run: func(*cobra.Command, []string) {}})
	}
	addSetupCommands(root)
	return root
}

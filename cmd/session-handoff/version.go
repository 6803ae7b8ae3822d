package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/buildinfo"
)

// versionOptions are version's flags.
type versionOptions struct {
	json bool
}

func newVersionCmd(a *app) *cobra.Command {
	var opts versionOptions
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "print the version of session-handoff",
		Long: `Prints the version, the commit it was built from and when, and the Go
version and platform. Records and bundles carry the same version string.`,
		Example: "  session-handoff version\n  session-handoff version --json",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runVersion(a, opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

func runVersion(a *app, opts versionOptions) error {
	info := buildinfo.Get()
	if opts.json {
		return a.writeJSON(info)
	}
	fmt.Fprintln(a.stdout, info)
	return nil
}

// version is the version string records and bundles carry.
func version() string { return buildinfo.Version() }

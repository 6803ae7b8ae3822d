package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "print the version of session-handoff",
		Example: "  session-handoff version",
		Args:    noArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(a.stdout, "session-handoff %s\n", version())
			return nil
		},
	}
}

// version reports the module version from the build info, or the VCS
// revision for a development build.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}

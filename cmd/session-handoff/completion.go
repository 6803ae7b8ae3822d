package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// completeIDs completes a handoff id for the shell: "latest" and the ids
// of the newest stored handoffs that start with what was typed, each with
// its title as the description. It completes the first argument only.
func (a *app) completeIDs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return a.completeStored(args, toComplete, true)
}

// completeStoredIDs is completeIDs without "latest", for commands that
// refuse it (rm).
func (a *app) completeStoredIDs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return a.completeStored(args, toComplete, false)
}

func (a *app) completeStored(args []string, toComplete string, latest bool) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	if latest && strings.HasPrefix("latest", toComplete) {
		out = append(out, "latest\tthe newest handoff")
	}
	s, err := a.openStore()
	if err != nil {
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	s.SetWarn(func(error) {}) // completion prints nothing but candidates
	f := store.Filter{Limit: 100}
	if handoff.ValidPrefix(toComplete) {
		f.IDPrefix = toComplete
	}
	entries, err := s.List(f)
	if err != nil {
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	for _, e := range entries {
		out = append(out, string(e.ID)+"\t"+handoff.Shorten(handoff.CleanText(e.Title), 60))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// fixedCompletion completes a flag from a fixed list of values.
func fixedCompletion(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

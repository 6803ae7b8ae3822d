package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
)

// newRootCmd builds the command tree. Every command is made by a
// constructor of its own (newSaveCmd, …) that binds its flags to a named
// Options struct and calls a run function with the app.
func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "session-handoff",
		Short: "hand a coding session over to another agent, machine or person",
		Long: `Run 'session-handoff COMMAND --help' for a command's flags and an example.
Data lives in $XDG_DATA_HOME/session-handoff, keys and trust in $XDG_CONFIG_HOME/session-handoff;
SESSION_HANDOFF_HOME relocates both.`,
		Version: version(),
		// A typo within two edits of a command's name is suggested.
		SuggestionsMinimumDistance: 2,
		Args:                       cobra.ArbitraryArgs,
		SilenceErrors:              true,
		SilenceUsage:               true,
		// The root does nothing itself: no arguments is a usage error that
		// shows the overview, and any other word is an unknown command.
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				printOverview(cmd, a.stderr)
				return exitError{code: exitUsage}
			}
			return unknownCommand(cmd, args[0])
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetVersionTemplate("session-handoff {{.Version}}\n")
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) { printHelp(cmd, cmd.OutOrStdout()) })
	root.SetUsageFunc(func(cmd *cobra.Command) error { printHelp(cmd, cmd.ErrOrStderr()); return nil })
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })

	pf := root.PersistentFlags()
	pf.StringVar(&a.global.storeDir, "store", "", "store directory (default $SESSION_HANDOFF_HOME/data or $XDG_DATA_HOME/session-handoff)")
	pf.StringVar(&a.global.keysDir, "keys", "", "keys and configuration directory (default $SESSION_HANDOFF_HOME/config or $XDG_CONFIG_HOME/session-handoff)")

	// Each group of commands is added on a line of its own.
	root.AddCommand(newVersionCmd(a))
	// Records: save, capture, sessions, list, show, rm, select, score, store.
	root.AddCommand(newSaveCmd(a), newCaptureCmd(a), newSessionsCmd(a), newListCmd(a), newShowCmd(a), newRmCmd(a), newSelectCmd(a), newScoreCmd(a), newStoreCmd(a))
	// Bundles, keys and trust: export, import, verify, inspect, keygen, key, trust, people.
	root.AddCommand(newExportCmd(a), newImportCmd(a), newVerifyCmd(a), newInspectCmd(a), newKeygenCmd(a), newKeyCmd(a), newTrustCmd(a), newPeopleCmd(a))
	// Transfer, handover and memory: remote, send, receive, inbox, handover, pause, unpause, memory, hook.
	root.AddCommand(newRemoteCmd(a), newSendCmd(a), newReceiveCmd(a), newInboxCmd(a), newHandoverCmd(a), newPauseCmd(a), newUnpauseCmd(a), newMemoryCmd(a))
	// Agents: render, resume, launch, targets, integrate, hook, mcp, doctor, demo.
	root.AddCommand(newRenderCmd(a), newResumeCmd(a), newLaunchCmd(a), newTargetsCmd(a), newIntegrateCmd(a), newHookCmd(a), newMCPCmd(a), newDoctorCmd(a), newDemoCmd(a), newManCmd(a))
	root.AddCommand(newHelpTopics()...)
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.Short = "print a shell completion script (bash, zsh, fish, powershell)"
	}
	return root
}

// execute runs the command line args and returns the exit code: the one
// place where a command's error becomes output and an exit code.
func (a *app) execute(args []string) int {
	root := newRootCmd(a)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(a.ctx)
	return a.report(commandName(cmd), err)
}

// commandName is cmd's path without the program's name: "save",
// "trust add"; empty for the root.
func commandName(cmd *cobra.Command) string {
	if cmd == nil {
		return ""
	}
	_, name, _ := strings.Cut(cmd.CommandPath(), " ")
	return name
}

// unknownCommand is the error for a word that names no command, with the
// nearest command names as a hint.
func unknownCommand(root *cobra.Command, word string) error {
	err := usageError{fmt.Errorf("unknown command %q", handoff.Shorten(word, 40))}
	if s := root.SuggestionsFor(word); len(s) > 0 {
		return withHint(err, "did you mean '"+strings.Join(s, "' or '")+"'? 'session-handoff help' lists the commands")
	}
	return withHint(err, "run 'session-handoff help' for the list of commands")
}

// newParentCmd makes a command whose work is done by its subcommands
// ("trust add", "trust list"): alone, or with a word that names none of
// them, it is a usage error that lists them.
func newParentCmd(use, short, long, example string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long, Example: example,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var names []string
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() {
					names = append(names, "'"+commandName(c)+"'")
				}
			}
			want := "want " + strings.Join(names, ", ")
			if len(args) == 0 {
				return usagef("%s", want)
			}
			err := usagef("unknown command %q: %s", handoff.Shorten(args[0], 40), want)
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				return withHint(err, "did you mean '"+commandName(cmd)+" "+s[0]+"'?")
			}
			return err
		},
	}
	cmd.SuggestionsMinimumDistance = 2
	cmd.AddCommand(subs...)
	return cmd
}

// noArgs, exactArgs and rangeArgs check positional arguments; a wrong
// count is a usage error (exit 2).
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("takes no arguments: unexpected argument %q", handoff.Shorten(args[0], 40))
	}
	return nil
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("takes %s", what)
		}
		return nil
	}
}

func rangeArgs(lo, hi int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return usagef("takes %s", what)
		}
		return nil
	}
}

// printOverview lists the commands, for 'session-handoff help' and a bare
// 'session-handoff'.
func printOverview(root *cobra.Command, w io.Writer) {
	fmt.Fprintf(w, "session-handoff: %s\n\n", root.Short)
	fmt.Fprintln(w, "Usage: session-handoff COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	printSubcommands(root, w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, root.Long)
}

func printSubcommands(cmd *cobra.Command, w io.Writer) {
	subs := cmd.Commands()
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
	for _, c := range subs {
		if c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			fmt.Fprintf(w, "  %-10s %s\n", c.Name(), c.Short)
		}
	}
}

// printHelp is every command's --help: synopsis, summary, description,
// subcommands, flags, global flags, example.
func printHelp(cmd *cobra.Command, w io.Writer) {
	if !cmd.HasParent() {
		printOverview(cmd, w)
		return
	}
	if !cmd.Runnable() && !cmd.HasSubCommands() {
		// A help topic.
		fmt.Fprintf(w, "%s\n\n%s\n", cmd.Short, strings.TrimSpace(cmd.Long))
		return
	}
	use := cmd.Use
	if p := cmd.Parent(); p.HasParent() {
		use = commandName(p) + " " + use
	}
	fmt.Fprintf(w, "Usage: session-handoff %s\n\n%s\n", use, cmd.Short)
	if cmd.Long != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.Long))
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nCommands:\n")
		printSubcommands(cmd, w)
	}
	if cmd.HasAvailableLocalFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", cmd.LocalFlags().FlagUsages())
	}
	if cmd.HasAvailableInheritedFlags() {
		fmt.Fprintf(w, "\nGlobal flags:\n%s", cmd.InheritedFlags().FlagUsages())
	}
	if cmd.Example != "" {
		fmt.Fprintf(w, "\nExample:\n%s\n", strings.TrimRight(cmd.Example, "\n"))
	}
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/legacy"
)

// newRootCmd builds the command tree. Every command is made by a
// constructor of its own (newSaveCmd, …) that binds its flags to a named
// Options struct and calls a run function with the app.
func newRootCmd(a *app) *cobra.Command {
	root := newBareRootCmd(a)
	for _, c := range commandMakers() {
		root.AddCommand(c.command(a))
	}
	addSetupCommands(root)
	return root
}

// addSetupCommands adds what every whole tree has besides the commands:
// the help topics, and cobra's help and completion in the setup group.
func addSetupCommands(root *cobra.Command) {
	root.AddCommand(newHelpTopics()...)
	root.SetCompletionCommandGroupID("setup")
	root.SetHelpCommandGroupID("setup")
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.Short = "print a shell completion script (bash, zsh, fish, powershell)"
	}
}

// commandGroups are the jobs the overview lists the commands under, as
// gh does, in this order.
var commandGroups = []*cobra.Group{
	{ID: "record", Title: "Record and find handoffs:"},
	{ID: "bundle", Title: "Bundles, keys and trust:"},
	{ID: "transfer", Title: "Hand over to a machine, a person or the next session:"},
	{ID: "agents", Title: "Brief the agents:"},
	{ID: "setup", Title: "Set up and check:"},
}

// commandMakers make the top-level commands, each in its group (its job
// in the overview). Each name is the command's (TestCommandMakersNamed).
// (A function, not a variable: demo runs commands through execute, which
// would make the variable's initialization refer to itself.)
func commandMakers() []commandMaker {
	return []commandMaker{
		{"save", "record", newSaveCmd}, {"snapshot", "record", newSnapshotCmd}, {"capture", "record", newCaptureCmd}, {"sessions", "record", newSessionsCmd},
		{"list", "record", newListCmd}, {"search", "record", newSearchCmd}, {"show", "record", newShowCmd}, {"select", "record", newSelectCmd}, {"apply", "record", newApplyCmd},
		{"rm", "record", newRmCmd}, {"score", "record", newScoreCmd}, {"store", "record", newStoreCmd},
		{"export", "bundle", newExportCmd}, {"import", "bundle", newImportCmd}, {"verify", "bundle", newVerifyCmd}, {"inspect", "bundle", newInspectCmd},
		{"keygen", "bundle", newKeygenCmd}, {"key", "bundle", newKeyCmd}, {"trust", "bundle", newTrustCmd}, {"people", "bundle", newPeopleCmd}, {"devices", "bundle", newDevicesCmd},
		{"remote", "transfer", newRemoteCmd}, {"send", "transfer", newSendCmd}, {"receive", "transfer", newReceiveCmd}, {"inbox", "transfer", newInboxCmd}, {"sync", "transfer", newSyncCmd},
		{"handover", "transfer", newHandoverCmd}, {"pause", "transfer", newPauseCmd}, {"unpause", "transfer", newUnpauseCmd}, {"memory", "transfer", newMemoryCmd},
		{"resume", "agents", newResumeCmd}, {"render", "agents", newRenderCmd}, {"launch", "agents", newLaunchCmd}, {"targets", "agents", newTargetsCmd},
		{"integrate", "agents", newIntegrateCmd}, {"hook", "agents", newHookCmd}, {"mcp", "agents", newMCPCmd},
		{"doctor", "setup", newDoctorCmd}, {"demo", "setup", newDemoCmd}, {"version", "setup", newVersionCmd}, {"man", "setup", newManCmd},
	}
}

// commandMaker makes the top-level command name, listed under group.
type commandMaker struct {
	name  string
	group string
	make  func(*app) *cobra.Command
}

// command makes the command, in its group.
func (c commandMaker) command(a *app) *cobra.Command {
	cmd := c.make(a)
	cmd.GroupID = c.group
	return cmd
}

// newRootCmdFor is the command tree args need: when they name a
// top-level command (after the global flags), the root with that command
// alone, since making every command and binding its flags is most of what
// a short command costs at start; for the overview alone (nothing,
// --help, -h, help) the root with a stand-in for each command
// (overview.go); otherwise (help COMMAND, completion, a word that names
// none, a flag the root does not know) the whole tree, which lists,
// completes and suggests.
func newRootCmdFor(a *app, args []string) *cobra.Command {
	if overviewOnly(args) {
		return newOverviewRootCmd(a)
	}
	name := commandWord(args)
	for _, c := range commandMakers() {
		if c.name == name {
			root := newBareRootCmd(a)
			root.AddCommand(c.command(a))
			return root
		}
	}
	return newRootCmd(a)
}

// commandWord is the first word of args after the root's own flags
// (--store, --keys and --color, with their values), or "" when a flag the root does
// not take, or "--", comes first.
func commandWord(args []string) string {
	rest := afterGlobalFlags(args)
	if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
		return ""
	}
	return rest[0]
}

// afterGlobalFlags is args from the first that is not one of the root's
// own flags (--store, --keys and --color, with their values).
func afterGlobalFlags(args []string) []string {
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; {
		case arg == "--store" || arg == "--keys" || arg == "--color":
			i++
		case strings.HasPrefix(arg, "--store=") || strings.HasPrefix(arg, "--keys=") || strings.HasPrefix(arg, "--color="):
		default:
			return args[i:]
		}
	}
	return nil
}

// newBareRootCmd is the root command with its flags and no subcommands.
func newBareRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "session-handoff",
		Short: "hand a coding session over to another agent, machine or person",
		Long: `Run 'session-handoff COMMAND --help' for a command's flags and an example.
Data lives in $XDG_DATA_HOME/session-handoff, keys and trust in $XDG_CONFIG_HOME/session-handoff;
SESSION_HANDOFF_HOME relocates both.`,
		// A typo within two edits of a command's name is suggested.
		SuggestionsMinimumDistance: 2,
		Args:                       cobra.ArbitraryArgs,
		SilenceErrors:              true,
		SilenceUsage:               true,
		// The root does nothing itself: no arguments is a usage error that
		// shows the overview, and any other word is an unknown command.
		RunE: func(cmd *cobra.Command, args []string) error {
			if v, _ := cmd.Flags().GetBool("version"); v {
				fmt.Fprintf(cmd.OutOrStdout(), "session-handoff %s\n", version())
				return nil
			}
			if len(args) == 0 {
				printOverview(cmd, a.stderr)
				return exitError{code: exitUsage}
			}
			return unknownCommand(cmd, args[0])
		},
	}
	root.AddGroup(commandGroups...)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	// --version is the root's own flag, not cobra's: cobra prints its
	// version through a text/template, whose reflection keeps every
	// exported method of the program in the binary (the linker cannot
	// tell which a template might call): 4 MB and a slower start.
	root.Flags().BoolP("version", "v", false, "version for session-handoff")
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) { printHelpTo(cmd, cmd.OutOrStdout()) })
	root.SetUsageFunc(func(cmd *cobra.Command) error { printHelpTo(cmd, cmd.ErrOrStderr()); return nil })
	root.SetFlagErrorFunc(flagError)

	pf := root.PersistentFlags()
	pf.StringVar(&a.global.storeDir, "store", "", "store directory (default $SESSION_HANDOFF_HOME/data or $XDG_DATA_HOME/session-handoff)")
	pf.StringVar(&a.global.keysDir, "keys", "", "keys and configuration directory (default $SESSION_HANDOFF_HOME/config or $XDG_CONFIG_HOME/session-handoff)")
	pf.Var(&a.global.color, "color", "colour: auto (on a terminal, unless NO_COLOR is set), always or never")

	return root
}

// execute runs the command line args and returns the exit code: the one
// place where a command's error becomes output and an exit code.
func (a *app) execute(args []string) int {
	tr, err := legacy.TranslateArgs(args)
	if err != nil {
		var ae *legacy.ArgError
		if errors.As(err, &ae) && ae.Hint == "" {
			return a.report(ae.Command, usageError{ae})
		}
		if errors.As(err, &ae) {
			return a.report(ae.Command, withHint(usageError{ae}, ae.Hint))
		}
		return a.report("", err)
	}
	for _, n := range tr.Notes {
		fmt.Fprintf(a.stderr, "note: %s\n", n)
	}
	args = tr.Args
	root := newRootCmdFor(a, args)
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

// flagError makes a flag error a usage error; an unknown long flag close
// to one of the command's gets "did you mean", as an unknown command does.
func flagError(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return usageError{err}
	}
	var near []string
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if !f.Hidden && !seen[f.Name] && (editDistance(name, f.Name) <= 2 || len(name) >= 3 && strings.HasPrefix(f.Name, name)) {
			seen[f.Name] = true
			near = append(near, "--"+f.Name)
		}
	}
	cmd.LocalFlags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	if len(near) == 0 || len(near) > 3 {
		return usageError{err}
	}
	return withHint(usageError{err}, "did you mean "+strings.Join(near, " or ")+"? 'session-handoff "+commandName(cmd)+" --help' lists the flags")
}

// editDistance is the Levenshtein distance between two short words, in
// bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
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

// printOverview lists the commands by job, then the help topics, for
// 'session-handoff help' and a bare 'session-handoff'.
func printOverview(root *cobra.Command, w io.Writer) {
	fmt.Fprintf(w, "session-handoff: %s\n\n", root.Short)
	fmt.Fprintln(w, "Usage: session-handoff COMMAND [flags]")
	var cmds, topics []*cobra.Command
	width := 0
	for _, c := range root.Commands() {
		switch {
		case c.IsAvailableCommand():
			cmds = append(cmds, c)
		case c.IsAdditionalHelpTopicCommand():
			topics = append(topics, c)
		default:
			continue
		}
		width = max(width, len(c.Name()))
	}
	for _, g := range append(root.Groups(), &cobra.Group{Title: "Other commands:"}) {
		var in []*cobra.Command
		for _, c := range cmds {
			if c.GroupID == g.ID || g.ID == "" && !root.ContainsGroup(c.GroupID) {
				in = append(in, c)
			}
		}
		printCommandList(w, g.Title, in, width)
	}
	sort.Slice(topics, func(i, j int) bool { return topics[i].Name() < topics[j].Name() })
	printCommandList(w, "Help topics ('session-handoff help TOPIC'):", topics, width)
	fmt.Fprintln(w)
	fmt.Fprintln(w, root.Long)
}

// printCommandList prints a heading and one aligned line a command; nothing
// when cmds is empty.
func printCommandList(w io.Writer, heading string, cmds []*cobra.Command, width int) {
	if len(cmds) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", heading)
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name(), c.Short)
	}
}

// printSubcommands lists a command's subcommands, sorted, aligned.
func printSubcommands(cmd *cobra.Command, w io.Writer) {
	var subs []*cobra.Command
	width := 0
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			subs = append(subs, c)
			width = max(width, len(c.Name()))
		}
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
	for _, c := range subs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name(), c.Short)
	}
}

// printHelpTo prints cmd's help to w in one write, not one a line.
func printHelpTo(cmd *cobra.Command, w io.Writer) {
	var b bytes.Buffer
	printHelp(cmd, &b)
	w.Write(b.Bytes()) // help has nowhere to report a failed write
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
		fmt.Fprintf(w, "\nFlags:\n%s", flagUsages(cmd.LocalFlags()))
	}
	if cmd.HasAvailableInheritedFlags() {
		fmt.Fprintf(w, "\nGlobal flags:\n%s", flagUsages(cmd.InheritedFlags()))
	}
	if cmd.Example != "" {
		fmt.Fprintf(w, "\nExample:\n%s\n", strings.TrimRight(cmd.Example, "\n"))
	}
}

// Command session-handoff turns the state of a coding session into a
// handoff that another agent, machine or person can pick up.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes shared by every command. verify and check add their own,
// documented in their help.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// app carries what a command needs from the outside world, so that tests
// can run commands in-process with their own streams and environment.
type app struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// command is one subcommand: its words for --help and the function that
// runs it.
type command struct {
	name    string
	summary string
	usage   string // the synopsis after "session-handoff"
	help    string // longer description, may be empty
	example string
	// setup declares the flags and returns the function to run with the
	// positional arguments once they are parsed.
	setup func(fs *pflag.FlagSet, a *app) func(args []string) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// usageError marks errors in how the command was called (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitError carries a specific exit code, for commands whose codes mean
// something (verify, check). A nil err prints nothing.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e exitError) Unwrap() error { return e.err }

// hintError adds a second line, "hint: …", to an error.
type hintError struct {
	err  error
	hint string
}

func (e hintError) Error() string { return e.err.Error() }
func (e hintError) Unwrap() error { return e.err }

func withHint(err error, hint string) error { return hintError{err, hint} }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The first interrupt cancels ctx, so the command stops and cleans up
	// (long reads check it); from then on the signals have their default
	// effect again, so a second Ctrl-C ends the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	return a.run(args)
}

func (a *app) run(args []string) int {
	if len(args) == 0 {
		a.printOverview(a.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				a.printHelp(a.stdout, c)
				return exitOK
			}
			fmt.Fprintf(a.stderr, "session-handoff: help: unknown command %q\n", args[1])
			return exitUsage
		}
		a.printOverview(a.stdout)
		return exitOK
	case "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(a.stderr, "session-handoff: unknown command %q\nhint: run 'session-handoff help' for the list of commands\n", handoff.Shorten(name, 40))
		return exitUsage
	}
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SetInterspersed(true)
	exec := c.setup(fs, a)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			a.printHelp(a.stdout, c)
			return exitOK
		}
		fmt.Fprintf(a.stderr, "session-handoff: %s: %s\nhint: run 'session-handoff %s --help'\n", c.name, err, c.name)
		return exitUsage
	}
	return a.report(c.name, exec(fs.Args()))
}

// report prints err as DESIGN §6 says and returns the exit code.
func (a *app) report(name string, err error) int {
	if err == nil {
		return exitOK
	}
	code := exitFailure
	var ue usageError
	if errors.As(err, &ue) {
		code = exitUsage
	}
	var ee exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	if errors.Is(err, context.Canceled) && a.ctx != nil && a.ctx.Err() != nil {
		fmt.Fprintf(a.stderr, "session-handoff: %s: interrupted\n", name)
		return code
	}
	fmt.Fprintf(a.stderr, "session-handoff: %s: %s\n", name, oneLine(err.Error()))
	var he hintError
	if errors.As(err, &he) {
		fmt.Fprintf(a.stderr, "hint: %s\n", oneLine(he.hint))
	} else if code == exitUsage {
		fmt.Fprintf(a.stderr, "hint: run 'session-handoff %s --help'\n", name)
	}
	return code
}

// oneLine keeps an error on one line whatever text it quotes.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("\n", " ", "\r", " ").Replace(s)), " ")
}

func (a *app) printOverview(w io.Writer) {
	fmt.Fprintln(w, "session-handoff: hand a coding session over to another agent, machine or person")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: session-handoff COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'session-handoff COMMAND --help' for a command's flags and an example.")
	fmt.Fprintln(w, "Data lives in $XDG_DATA_HOME/session-handoff, keys and trust in $XDG_CONFIG_HOME/session-handoff;")
	fmt.Fprintln(w, "SESSION_HANDOFF_HOME relocates both.")
}

func (a *app) printHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "Usage: session-handoff %s\n\n%s\n", c.usage, c.summary)
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.help))
	}
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	c.setup(fs, a)
	if fs.HasFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsages())
	}
	if c.example != "" {
		fmt.Fprintf(w, "\nExample:\n%s\n", strings.TrimRight(c.example, "\n"))
	}
}

func init() {
	register(&command{
		name:    "version",
		summary: "print the version of session-handoff",
		usage:   "version",
		example: "  session-handoff version",
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments")
				}
				fmt.Fprintf(a.stdout, "session-handoff %s\n", version())
				return nil
			}
		},
	})
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

package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/session-handoff/session-handoff/internal/style"
	"io"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/term"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Exit codes shared by every command. verify and handover check add their
// own, documented in their help.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// app is the one way a command reaches the outside world: its context, its
// three streams, whether each is a terminal, the environment, and the
// global flags. Tests build one with newTestApp and run a command's run
// function in process with their own streams and terminal state.
type app struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string

	// stdinTTY, stdoutTTY and stderrTTY say whether each stream is a
	// terminal, decided once when the app is made.
	stdinTTY, stdoutTTY, stderrTTY bool

	global globalOptions

	// start starts a background process a hook does not wait for (the
	// sync); nil is exec.Cmd.Start. Benchmarks replace it.
	start func(*exec.Cmd) error
}

// globalOptions are the flags declared once, on the root command, that
// every command accepts.
type globalOptions struct {
	storeDir string    // --store: the store directory
	keysDir  string    // --keys: the keys and configuration directory
	color    colorFlag // --color: auto (the default), always or never
}

// colorFlag is --color's value, checked as it is parsed.
type colorFlag struct{ mode style.Mode }

func (f *colorFlag) String() string {
	if f.mode == "" {
		return string(style.Auto)
	}
	return string(f.mode)
}

func (f *colorFlag) Set(s string) (err error) {
	f.mode, err = style.ParseMode(s)
	return err
}

func (f *colorFlag) Type() string { return "when" }

// style is how standard output is painted: by --color, else on a terminal
// unless NO_COLOR is set.
func (a *app) style() style.Style {
	return style.Style{On: style.Choose(a.global.color.mode, a.getenv("NO_COLOR"), a.getenv("TERM"), a.stdoutTTY)}
}

// ttyStyle is style for output drawn on the terminal itself (the picker).
func (a *app) ttyStyle() style.Style {
	return style.Style{On: style.Choose(a.global.color.mode, a.getenv("NO_COLOR"), a.getenv("TERM"), true)}
}

// newApp is the app of a real process: the streams given, their terminal
// state read from the file descriptors, and the process environment.
func newApp(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{
		ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv,
		stdinTTY:  isTerminal(stdin),
		stdoutTTY: isTerminal(stdout),
		stderrTTY: isTerminal(stderr),
	}
}

// newTestApp is an app for tests: no stream is a terminal unless the test
// says so, and the environment is env alone (nil: empty).
func newTestApp(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, env map[string]string) *app {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	return &app{
		ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr,
		getenv: func(k string) string { return env[k] },
	}
}

// isTerminal reports whether v is an *os.File open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

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

// Hint is the second line: what to do (devsync keeps it with a failure).
func (e hintError) Hint() string { return e.hint }

func withHint(err error, hint string) error { return hintError{err, hint} }

// report prints err for the command named name ("save", "trust add"; empty
// for the root) and returns the exit code: the one exit point of every
// command.
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
	prefix := "session-handoff: "
	if name != "" {
		prefix += name + ": "
	}
	if errors.Is(err, context.Canceled) && a.ctx != nil && a.ctx.Err() != nil {
		fmt.Fprintf(a.stderr, "%sinterrupted\n", prefix)
		return code
	}
	fmt.Fprintf(a.stderr, "%s%s\n", prefix, untrusted.OneLine(err.Error(), maxLine))
	var he hintError
	if errors.As(err, &he) {
		fmt.Fprintf(a.stderr, "hint: %s\n", untrusted.OneLine(he.hint, maxLine))
	} else if code == exitUsage && name != "" {
		fmt.Fprintf(a.stderr, "hint: run 'session-handoff %s --help'\n", name)
	}
	return code
}

// maxLine bounds a line of an error or warning, whatever text it quotes
// (untrusted.OneLine keeps it on one cleaned line).
const maxLine = 4 << 10

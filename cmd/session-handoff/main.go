// Command session-handoff turns the state of a coding session into a
// handoff that another agent, machine or person can pick up.
//
// This package only parses flags, calls the packages that do the work and
// prints: each command has an Options struct, a constructor that binds its
// flags, and a run function (see root.go); most live in a file of their
// own, a family of subcommands in one (handovercmd.go holds handover's).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole process: it wires the interrupt signals to the context
// every command runs under, and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The first interrupt cancels ctx, so the command stops and cleans up
	// (long reads check it); from then on the signals have their default
	// effect again, so a second Ctrl-C ends the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	// A wait for another process's lock says on whom it waits, and the
	// first Ctrl-C ends it.
	safefile.SetLockWait(ctx.Done(), func(msg string) { fmt.Fprintf(stderr, "session-handoff: %s\n", msg) })
	return newApp(ctx, stdin, stdout, stderr).execute(args)
}

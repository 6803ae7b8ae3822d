// Package proc is the one way session-handoff runs another program: git,
// a handover's exec steps, an agent's --version, and the processes the
// hooks start in the background (issue 50).
//
// What it promises, for a command made by Command:
//
//   - It runs in a process group of its own, and when its context is done
//     (a timeout, Ctrl-C) the whole group is killed, not the process alone:
//     what it started in the background dies with it.
//   - Wait returns at most WaitDelay after the process exits, even when a
//     child it left behind (an ssh ControlPersist master, a step's
//     "server &") keeps its output open; and after the context is done, at
//     most WaitDelay after the kill.
//   - The process decides the result (Result): a process that exited 0
//     while a child still held its output succeeded.
//
// A command made by Detached is not waited for: it runs in a session of
// its own, so that killing the process group that started it (an agent
// ending its hook) leaves it running.
package proc

import (
	"context"
	"errors"
	"os/exec"
	"time"
)

// WaitDelay is how long Wait waits for a command's output to close after
// the command exited or was killed.
const WaitDelay = 2 * time.Second

// Command returns the command to run name with args, bound to ctx as the
// package says.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	ownGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = WaitDelay
	return cmd
}

// Result is what the process itself returned, from the error of Run or
// Wait: exec.ErrWaitDelay after a successful exit (a child it left kept
// the output open) is success.
func Result(err error) error {
	if errors.Is(err, exec.ErrWaitDelay) {
		return nil
	}
	return err
}

// Detached returns the command to start name with args in a process of
// its own that outlives its parent: a new session (Windows: a new process
// group), so that the signals sent to the parent's group do not reach it.
// The caller starts it and releases it; nothing waits for it.
func Detached(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	newSession(cmd)
	return cmd
}

//go:build windows

package proc

import (
	"os/exec"
	"syscall"
)

// ownGroup does nothing on Windows: there is no POSIX process group, and
// killGroup kills the process alone.
func ownGroup(*exec.Cmd) {}

// killGroup kills cmd's process (its children may outlive it).
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// newSession starts cmd in a process group of its own.
func newSession(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

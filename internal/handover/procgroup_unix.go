//go:build unix

package handover

import (
	"os/exec"
	"syscall"
)

// inOwnGroup starts cmd in a process group of its own, so that killGroup
// stops everything it started.
func inOwnGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills cmd's process group.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

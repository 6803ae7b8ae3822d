//go:build windows

package main

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a process group of its own, away from the agent's
// console signals.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// yieldCPU does nothing on Windows.
func yieldCPU(int) {}

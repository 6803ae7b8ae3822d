//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own: the agent ending, and the
// signals it sends its hooks' process group, do not stop it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// yieldCPU gives the started process the lowest priority (nice 19, and
// so the git it runs): it works while the agent starts, which should not
// wait for it.
func yieldCPU(pid int) { _ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, 19) }

//go:build unix

package main

import "syscall"

// yieldCPU gives the started process the lowest priority (nice 19, and
// so the git it runs): it works while the agent starts, which should not
// wait for it.
func yieldCPU(pid int) { _ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, 19) }

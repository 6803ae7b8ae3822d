//go:build windows

package handover

import "os/exec"

// inOwnGroup does nothing on Windows: there is no POSIX process group.
func inOwnGroup(*exec.Cmd) {}

// killGroup kills cmd's own process (its children may outlive it).
func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }

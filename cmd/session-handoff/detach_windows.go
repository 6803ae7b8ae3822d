//go:build windows

package main

import "os/exec"

// detach does nothing on Windows, where a child has no process group of
// its parent's to leave.
func detach(*exec.Cmd) {}

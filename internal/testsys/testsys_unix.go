//go:build !windows

package testsys

import "syscall"

const fifoSupported = true

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

func syncAll() { syscall.Sync() }

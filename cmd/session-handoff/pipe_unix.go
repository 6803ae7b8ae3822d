//go:build unix

package main

import (
	"os"
	"syscall"
)

// inheritedPipe is the descriptor fd as a file when it is a pipe this
// process was given (sync pull --imported-fd); nil for anything else,
// which is left alone: it is looked at before a File (whose finalizer
// would close it) is made.
func inheritedPipe(fd int) *os.File {
	var st syscall.Stat_t
	if fd <= 2 || syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil
	}
	return os.NewFile(uintptr(fd), "imported")
}

// canPassPipes: a child process can be given a pipe as descriptor 3.
const canPassPipes = true

//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// openNoFollow opens path without following a final symbolic link, so that
// a link planted in the store cannot redirect a write elsewhere, and
// without blocking should path be a named pipe.
func openNoFollow(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// isSymlinkErr reports whether err is what opening a symbolic link with
// O_NOFOLLOW gives.
func isSymlinkErr(err error) bool {
	return errors.Is(err, syscall.ELOOP)
}

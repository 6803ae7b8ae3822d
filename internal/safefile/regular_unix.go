//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by ReadRegular for a path that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// ReadRegular reads the regular file at path, as ReadFile does, but refuses
// anything else before reading: a directory, a device such as /dev/zero,
// a socket, or a named pipe, which opened for reading would wait for a
// writer for ever. Symbolic links are followed. It is for files a user
// keeps at a fixed place (keys, the trust store, configuration), where a
// pipe is never meant; files named on the command line may be pipes
// (process substitution) and are read with ReadFile.
func ReadRegular(path string, limit int64) ([]byte, error) {
	// O_NONBLOCK makes opening a FIFO return at once; it changes nothing
	// for a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	return ReadAllLimit(f, limit)
}

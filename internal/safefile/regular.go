package safefile

import (
	"errors"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by ReadRegular for a path that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// ReadRegular reads the regular file at path, as ReadFile does, but refuses
// anything else before reading: a directory, a device such as /dev/zero,
// a socket, or a named pipe, which opened for reading would wait for a
// writer for ever. Symbolic links are followed. ReadFile is the same read.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAllLimit(f, limit)
}

// OpenRegular opens the regular file at path for reading and returns it
// with its size, refusing anything else before a byte is read: a
// directory, a device such as /dev/zero that never ends, a socket, or a
// named pipe, which opened for reading would wait for a writer for ever.
// Symbolic links are followed.
func OpenRegular(path string) (*os.File, int64, error) {
	// O_NONBLOCK makes opening a FIFO return at once; it changes nothing
	// for a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|OpenNonBlock, 0)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, 0, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, info.Size(), nil
}

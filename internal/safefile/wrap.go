package safefile

import (
	"errors"
	"fmt"
	"io/fs"
)

// Wrap is the error of verb ("read", "open", "write"…) failing on path,
// naming path once: an *fs.PathError about the same path, which names it
// again ("read X: open X: no such file or directory"), gives only its
// cause ("read X: no such file or directory"). The error wraps err, so
// errors.Is and errors.As still find fs.ErrNotExist and the
// *fs.PathError.
func Wrap(verb, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path && err.Error() == pe.Error() {
		return &pathError{msg: verb + " " + path + ": " + pe.Err.Error(), err: err}
	}
	return fmt.Errorf("%s %s: %w", verb, path, err)
}

// pathError is Wrap's error without the repeated path.
type pathError struct {
	msg string
	err error
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.err }

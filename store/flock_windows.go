//go:build windows

package store

import (
	"errors"
	"io/fs"
	"os"
)

// openNoFollow opens path, refusing a symbolic link: Windows has no
// O_NOFOLLOW, so the path is checked with Lstat first. (A link planted
// between the check and the open is the window this leaves; the store
// directory is the user's own, mode 0700.)
func openNoFollow(path string, flag int) (*os.File, error) {
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errSymlink}
	}
	return os.OpenFile(path, flag, 0)
}

var errSymlink = errors.New("is a symbolic link")

// isSymlinkErr reports whether err is openNoFollow's refusal of a link.
func isSymlinkErr(err error) bool {
	return errors.Is(err, errSymlink)
}

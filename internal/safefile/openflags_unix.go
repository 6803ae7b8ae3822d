//go:build unix

package safefile

import "syscall"

// Flags for os.OpenFile that keep an open from blocking or following a
// link where the platform has them. OpenNonBlock makes opening a FIFO
// return at once (and changes nothing for a regular file); OpenNoFollow
// refuses a symbolic link as the last element of the path.
const (
	OpenNonBlock = syscall.O_NONBLOCK
	OpenNoFollow = syscall.O_NOFOLLOW
)

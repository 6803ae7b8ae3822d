//go:build windows

package safefile

// On Windows, opening a file does not block on a FIFO and os.OpenFile has
// no no-follow flag: callers check the file's type after opening, as they
// do everywhere.
const (
	OpenNonBlock = 0
	OpenNoFollow = 0
)

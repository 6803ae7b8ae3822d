//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// Flock takes an exclusive advisory lock on an open file, held until the
// file is closed. With nonBlocking it fails with ErrLocked instead of
// waiting.
func Flock(f *os.File, nonBlocking bool) error {
	how := syscall.LOCK_EX
	if nonBlocking {
		how |= syscall.LOCK_NB
	}
	for {
		switch err := syscall.Flock(int(f.Fd()), how); err {
		case nil:
			return nil
		case syscall.EINTR:
			continue
		case syscall.EWOULDBLOCK:
			return ErrLocked
		default:
			return err
		}
	}
}

// writeHolder writes, into the lock file it now holds, who holds it, for
// a process that waits to say (flock is advisory: the file reads).
func writeHolder(f *os.File) {
	line := holderLine()
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(line), 0)
	}
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0) // nobody holds it now
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

package safefile

import (
	"errors"
	"fmt"
	"os"
)

// Lock is an exclusive advisory lock held on a lock file. The kernel
// releases it when the holder dies, so a crashed writer never blocks others.
type Lock struct {
	f *os.File
}

// LockFile blocks until it holds the exclusive lock on path, creating the
// lock file if needed.
func LockFile(path string) (*Lock, error) {
	return lock(path, false)
}

// TryLockFile takes the lock on path if it is free and returns (nil, nil)
// if another process holds it.
func TryLockFile(path string) (*Lock, error) {
	l, err := lock(path, true)
	if err == ErrLocked {
		return nil, nil
	}
	return l, err
}

// ErrLocked is returned by Flock in non-blocking mode, and wrapped by
// TryLockFile's callers, when another process holds the lock.
var ErrLocked = errors.New("locked by another process")

func lock(path string, nonBlocking bool) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := Flock(f, nonBlocking); err != nil {
		f.Close()
		if err == ErrLocked {
			return nil, err
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

//go:build unix

package safefile

import (
	"fmt"
	"os"
	"syscall"
)

// Lock is an exclusive advisory lock held on a lock file. The kernel
// releases it when the holder dies, so a crashed writer never blocks others.
type Lock struct {
	f *os.File
}

// LockFile blocks until it holds the exclusive lock on path, creating the
// lock file if needed.
func LockFile(path string) (*Lock, error) {
	return lock(path, syscall.LOCK_EX)
}

// TryLockFile takes the lock on path if it is free and returns (nil, nil)
// if another process holds it.
func TryLockFile(path string) (*Lock, error) {
	l, err := lock(path, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return nil, nil
	}
	return l, err
}

func lock(path string, how int) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, err
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

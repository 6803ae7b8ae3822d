package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A wait for a lock another holder keeps says, once, what it waits for
// and on whom, and ends when told to (Ctrl-C), naming the holder; once the
// holder lets go, the wait takes the lock (issue 50: the waits were
// silent, and deaf to Ctrl-C).
func TestLockWaitSaysOnWhomAndStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.lock")
	held, err := LockFile(path)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	notices := make(chan string, 1)
	SetLockWait(done, func(msg string) { notices <- msg })
	t.Cleanup(func() { SetLockWait(nil, nil) })

	got := make(chan error, 1)
	go func() {
		l, err := LockFile(path)
		if err == nil {
			l.Unlock()
		}
		got <- err
	}()
	msg := <-notices
	if !strings.Contains(msg, "waiting for "+path) || !strings.Contains(msg, "pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("notice %q does not say what it waits for and on whom", msg)
	}
	close(done)
	err = <-got
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("interrupted wait: %v", err)
	}

	// Not interrupted: the wait takes the lock once it is free.
	SetLockWait(make(chan struct{}), func(msg string) { notices <- msg })
	go func() {
		l, err := LockFile(path)
		if err == nil {
			l.Unlock()
		}
		got <- err
	}()
	<-notices
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Errorf("the wait did not take the freed lock: %v", err)
	}
	if data, _ := os.ReadFile(path); len(data) != 0 {
		t.Errorf("a lock no one holds still names %q", data)
	}
}

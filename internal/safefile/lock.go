package safefile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Lock is an exclusive advisory lock held on a lock file. The kernel
// releases it when the holder dies, so a crashed writer never blocks others.
type Lock struct {
	f *os.File
}

// LockFile holds the exclusive lock on path once it is free, creating the
// lock file if needed. While another process holds it, LockFile waits:
// past LockNotice it says once, through the notice SetLockWait gave, what
// it waits for and on whom (the holder's pid and command, which each
// holder writes into the lock file); and it gives up with ErrInterrupted
// when SetLockWait's done channel closes (Ctrl-C), instead of waiting on
// deaf to it (issue 50).
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

// ErrInterrupted is wrapped when a wait for a lock was ended (Ctrl-C).
var ErrInterrupted = errors.New("interrupted")

// LockNotice is how long a wait for a lock goes on before it is said.
const LockNotice = time.Second

// lockWait is how waits for a lock are told of and ended.
type lockWait struct {
	done   <-chan struct{}
	notice func(msg string)
}

var waits atomic.Pointer[lockWait]

// SetLockWait says, for the whole process, how a wait for a lock is ended
// (when done closes) and told of (notice gets one line). The CLI sets it
// once, at its start, with its interrupt and its standard error.
func SetLockWait(done <-chan struct{}, notice func(msg string)) {
	waits.Store(&lockWait{done: done, notice: notice})
}

func lock(path string, nonBlocking bool) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	err = Flock(f, true)
	if err == ErrLocked && !nonBlocking {
		err = wait(f, path)
	}
	if err != nil {
		f.Close()
		if err == ErrLocked {
			return nil, err
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	writeHolder(f)
	return &Lock{f: f}, nil
}

// wait takes the lock on f once its holder lets it go, trying again at
// growing intervals (at most 100 ms apart).
func wait(f *os.File, path string) error {
	var done <-chan struct{}
	notice := func(string) {}
	if w := waits.Load(); w != nil {
		done = w.done
		if w.notice != nil {
			notice = w.notice
		}
	}
	start := time.Now()
	told := false
	delay := 2 * time.Millisecond
	for {
		t := time.NewTimer(delay)
		select {
		case <-done:
			t.Stop()
			return fmt.Errorf("%w while waiting for it, held by %s", ErrInterrupted, holder(path))
		case <-t.C:
		}
		switch err := Flock(f, true); err {
		case nil:
			return nil
		case ErrLocked:
		default:
			return err
		}
		if !told && time.Since(start) >= LockNotice {
			notice(fmt.Sprintf("waiting for %s, held by %s (Ctrl-C to stop waiting)", path, holder(path)))
			told = true
		}
		delay = min(2*delay, 100*time.Millisecond)
	}
}

// maxHolder bounds the holder line read from a lock file.
const maxHolder = 256

// holderLine is what a holder writes into its lock file: its pid and the
// command it runs, on one line.
func holderLine() string {
	cmd := strings.Join(os.Args, " ")
	if len(cmd) > 160 {
		cmd = cmd[:160] + "…"
	}
	return "pid " + strconv.Itoa(os.Getpid()) + ": " + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, cmd) + "\n"
}

// holder says who holds the lock on path, as its holder wrote it, or
// "another process" when it wrote nothing readable.
func holder(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "another process"
	}
	defer f.Close()
	buf := make([]byte, maxHolder)
	n, _ := f.Read(buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "pid ") {
		return "another process"
	}
	return strings.ToValidUTF8(line, "?")
}

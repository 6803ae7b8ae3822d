// Package testsys holds the few operating-system calls that tests need and
// that do not exist on every platform (named pipes, flushing the page
// cache), so that every package's tests compile, vet and run, or skip
// with a reason, under GOOS=windows as well as on Unix.
//
// Only tests import it.
package testsys

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Mkfifo makes a named pipe at path, or skips the test where the platform
// has none. Any other failure fails the test.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := mkfifo(path); err != nil {
		if !fifoSupported {
			t.Skipf("no named pipes on this platform: %v", err)
		}
		t.Fatalf("mkfifo %s: %v", path, err)
	}
}

// SyncAll asks the kernel to flush every filesystem's dirty pages, where
// the platform can; benchmarks call it so that earlier bulk writes are
// not paid for by the first fsync measured.
func SyncAll() { syncAll() }

// MkfifoFile makes a named pipe at path; it returns errors.ErrUnsupported
// where the platform has none. Tables of hostile files use it as one of
// their constructors.
func MkfifoFile(path string) error { return mkfifo(path) }

// WriteFile writes content to path, making its directories, and sets its
// modification time to mtime unless that is zero; any error fails t.
func WriteFile(t testing.TB, path, content string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if !mtime.IsZero() {
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
}

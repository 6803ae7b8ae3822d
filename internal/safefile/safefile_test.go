package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

func TestWriteReplacesAtomicallyAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A writer that fails midway, as on a full disk: the old content stays
	// and the temporary file is gone.
	err := Write(p, 0o600, func(w io.Writer) error {
		if _, err := w.Write([]byte("half of the new")); err != nil {
			return err
		}
		return syscall.ENOSPC
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v, want ENOSPC", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "old" {
		t.Fatalf("content after failed write = %q", data)
	}
	entries, err := os.ReadDir(dir)
	testsys.Check(t, err)
	if len(entries) != 1 {
		t.Fatalf("leftovers: %v", entries)
	}
	if err := WriteFile(p, []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(p)
	if data, _ := os.ReadFile(p); string(data) != "new" || info.Mode().Perm() != 0o640 {
		t.Fatalf("got %q mode %v", data, info.Mode())
	}
}

func TestCreateIsExclusive(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := Create(p, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Create(p, []byte("second"), 0o600); !errors.Is(err, os.ErrExist) {
		t.Fatalf("second Create: %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "first" {
		t.Fatalf("content = %q", data)
	}
	entries, err := os.ReadDir(dir)
	testsys.Check(t, err)
	for _, e := range entries {
		if IsTemp(e.Name()) {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}

// Cleanly: the error says the directory does not exist and names it, and
// nothing is made (no directory, no file, no temporary file).
func TestWriteToMissingDirectoryFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no")
	err := WriteFile(filepath.Join(missing, "f"), []byte("x"), 0o600)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(fmt.Sprint(err), missing) {
		t.Fatalf("error %v; want one that says %s does not exist", err, missing)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left %s in %s", e.Name(), dir)
	}
}

func TestReadAllLimit(t *testing.T) {
	if _, err := ReadAllLimit(strings.NewReader("12345"), 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over limit: %v", err)
	}
	if data, err := ReadAllLimit(strings.NewReader("1234"), 4); err != nil || string(data) != "1234" {
		t.Fatalf("at limit: %q %v", data, err)
	}
}

func TestLocks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	l, err := LockFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to the open file, so a second open in this
	// process sees the lock as another process would.
	if l2, err := TryLockFile(p); err != nil || l2 != nil {
		t.Fatalf("TryLockFile while held = %v, %v; want nil, nil", l2, err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l3, err := TryLockFile(p)
	if err != nil || l3 == nil {
		t.Fatalf("TryLockFile after unlock = %v, %v", l3, err)
	}
	l3.Unlock()
}

func TestPlaceLeavesTheDirectoryToTheCaller(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := Place(p, []byte("one"), 0o600, true); err != nil {
		t.Fatal(err)
	}
	if err := Place(p, []byte("two"), 0o600, true); !errors.Is(err, os.ErrExist) {
		t.Fatalf("exclusive Place over a file: %v", err)
	}
	if err := Place(p, []byte("two"), 0o600, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "two" {
		t.Fatalf("after Place: %q", got)
	}
	if des, _ := os.ReadDir(dir); len(des) != 1 {
		t.Fatalf("Place left %d entries", len(des))
	}
}

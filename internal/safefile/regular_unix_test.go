//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadRegularRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("f", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, link} {
		if data, err := ReadRegular(p, 100); err != nil || string(data) != "data" {
			t.Errorf("%s: %q, %v", p, data, err)
		}
	}
	if _, err := ReadRegular(file, 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A FIFO without a writer would block an open for ever. ReadFile,
	// the read of every path a user names, follows the same rule.
	for _, p := range []string{fifo, dir, "/dev/zero"} {
		if _, err := ReadRegular(p, 100); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: got %v, want ErrNotRegular", p, err)
		}
		if _, err := ReadFile(p, 100); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile %s: got %v, want ErrNotRegular", p, err)
		}
	}
	if _, err := ReadRegular(filepath.Join(dir, "missing"), 100); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

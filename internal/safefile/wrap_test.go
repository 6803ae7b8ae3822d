package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Wrap names the path once, keeps the cause, and still unwraps to it.
func TestWrap(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.txt")
	_, err := os.ReadFile(missing)
	got := Wrap("read", missing, err)
	if strings.Count(got.Error(), missing) != 1 || !strings.HasSuffix(got.Error(), "no such file or directory") {
		t.Errorf("%q: want the path once and the cause", got)
	}
	var pe *fs.PathError
	if !errors.Is(got, fs.ErrNotExist) || !errors.As(got, &pe) {
		t.Errorf("%q does not unwrap to its cause", got)
	}
	_, err = ReadFile(dir, 10)
	if got := Wrap("read", dir, err); strings.Count(got.Error(), dir) != 1 {
		t.Errorf("a directory: %q", got)
	}
	// Another path, or more context than the PathError, is kept whole.
	other := Wrap("read", "a.txt", err)
	if !strings.Contains(other.Error(), "read a.txt: ") || !strings.Contains(other.Error(), dir) {
		t.Errorf("another path: %q", other)
	}
}

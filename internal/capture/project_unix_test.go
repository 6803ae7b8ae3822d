//go:build unix

package capture

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A pipe named like a marker is never opened: opening it would block.
func TestDetectProjectSkipsPipes(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "Makefile"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	write(t, filepath.Join(dir, "go.mod"), "")
	kind, checks, err := DetectProject(dir)
	if err != nil || kind != "go" || strings.Contains(checksString(checks), "make") {
		t.Errorf("pipe: %q %v %v", kind, checks, err)
	}
}

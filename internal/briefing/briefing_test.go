package briefing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

func TestReadMemoryFiles(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(outside, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "memory"), 0o700); err != nil {
		t.Fatal(err)
	}
	// SOUL.md in the memory directory points out of the project: refused,
	// and the root's SOUL.md is not taken in its place.
	if err := os.Symlink(outside, filepath.Join(root, "memory", "SOUL.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "SOUL.md"), []byte("root soul"), 0o600); err != nil {
		t.Fatal(err)
	}
	// MEMORY.md is a FIFO: refused without blocking.
	testsys.Mkfifo(t, filepath.Join(root, "MEMORY.md"))
	var warnings []string
	files := ReadMemoryFiles(root, "memory", func(f string, a ...any) { warnings = append(warnings, f) })
	if len(files) != 0 {
		t.Fatalf("quoted %+v", files)
	}
	if len(warnings) != 2 {
		t.Fatalf("warnings %q, want one per refused file", warnings)
	}

	// A regular file is quoted with its secrets redacted and the memory
	// header taken off.
	testsys.Check(t, os.Remove(filepath.Join(root, "memory", "SOUL.md")))
	testsys.Check(t, os.Remove(filepath.Join(root, "MEMORY.md")))
	body := "<!-- session-handoff:memory v1 -->\nI am Aria. token=ghp_" + strings.Repeat("a", 36) + "\n"
	if err := os.WriteFile(filepath.Join(root, "memory", "SOUL.md"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	files = ReadMemoryFiles(root, "memory", func(string, ...any) { t.Error("unexpected warning") })
	if len(files) != 1 || files[0].Name != "memory/SOUL.md" {
		t.Fatalf("files %+v", files)
	}
	if strings.Contains(files[0].Text, "ghp_") || strings.Contains(files[0].Text, "session-handoff:memory") || !strings.Contains(files[0].Text, "I am Aria") {
		t.Fatalf("text %q", files[0].Text)
	}
}

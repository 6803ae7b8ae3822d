//go:build unix

package capture

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// A pipe named like a marker is never opened: opening it would block.
func TestDetectProjectSkipsPipes(t *testing.T) {
	dir := t.TempDir()
	testsys.Mkfifo(t, filepath.Join(dir, "Makefile"))
	write(t, filepath.Join(dir, "go.mod"), "")
	kind, checks, err := DetectProject(dir)
	if err != nil || kind != "go" || strings.Contains(checksString(checks), "make") {
		t.Errorf("pipe: %q %v %v", kind, checks, err)
	}
}

// A --session path that exists but is not a regular file is named for
// what it is, not looked up as a session id.
func TestChooseSessionNamesTheFileType(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a named pipe (FIFO), not a transcript file", dir: "a directory, not a transcript file", "/dev/null": "a device, not a transcript file"} {
		_, err := chooseSession(Options{Session: path, Agent: Codex, Env: func(string) string { return "" }}, dir)
		if err == nil || !strings.Contains(err.Error(), want) || errors.Is(err, ErrNoSession) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}

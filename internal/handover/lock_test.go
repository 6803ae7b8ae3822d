package handover

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// While another holder has the run lock, Running says so and Run refuses;
// once it is released neither does. The owner file names the process that
// took the lock last.
func TestRunLock(t *testing.T) {
	dir := t.TempDir()
	if Running(dir) {
		t.Fatal("running with no lock file")
	}
	l, err := safefile.LockFile(filepath.Join(dir, "run.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if !Running(dir) {
		t.Error("the lock is held, Running says no")
	}
	r := &Runner{Config: &Config{}, StateDir: dir, Project: t.TempDir()}
	if _, err := r.Run(context.Background(), false); !errors.Is(err, ErrRunLocked) {
		t.Errorf("Run while locked: %v, want ErrRunLocked", err)
	}
	l.Unlock()
	if Running(dir) {
		t.Error("the lock is free, Running says yes")
	}
	if _, err := r.Run(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if pid, ok := LockOwner(dir); !ok || pid != os.Getpid() {
		t.Errorf("owner %d %v, want this process %d", pid, ok, os.Getpid())
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte("pid x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := LockOwner(dir); ok {
		t.Error("a damaged owner file read as a pid")
	}
}

package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

func TestTracked(t *testing.T) {
	testsys.LookPath(t, "git")
	ctx := context.Background()
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "loose.json")
	if err := os.WriteFile(out, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"shared.json", "mine.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := exec.Command("git", "-C", dir, "add", "shared.json").Run(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		filepath.Join(dir, "shared.json"):     true,
		filepath.Join(dir, "mine.json"):       false,
		filepath.Join(dir, "missing.json"):    false,
		filepath.Join(dir, "nodir", "x.json"): false,
		out:                                   false,
	} {
		got, err := Tracked(ctx, path)
		if err != nil || got != want {
			t.Errorf("Tracked(%s) = %v, %v; want %v", path, got, err, want)
		}
	}
}

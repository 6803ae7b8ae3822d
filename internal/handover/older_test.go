package handover

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/session-handoff/session-handoff/internal/legacy/oldtools"
)

func writeOlder(t testing.TB, root string, data []byte) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(OlderCheckpointPath))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// agent-handover's checkpoints, as its Checkpoint._save wrote them, give
// its own check's exit codes and the steps left in the run's order.
func TestReadOlderCheckpoint(t *testing.T) {
	root := t.TempDir()
	if c, err := ReadOlderCheckpoint(root); c != nil || err != nil {
		t.Fatalf("none: %v %v", c, err)
	}
	steps := []oldtools.CheckpointStep{{Name: "session_note", State: "done"}, {Name: "publish", State: "pending"}, {Name: "current_state", State: "pending"}}
	for _, tc := range []struct {
		status string
		steps  []oldtools.CheckpointStep
		code   int
		advice string
	}{
		{"in_progress", steps, 1, "steps left: publish, current_state"},
		{"in_progress", steps[:1], 2, "last run in progress"},
		{"completed", steps, 2, "last run completed"},
		{"none", nil, 0, "shows no run"},
	} {
		writeOlder(t, root, oldtools.Checkpoint(tc.status, tc.steps, "2026-03-05T09:00:00.123456+00:00", ""))
		c, err := ReadOlderCheckpoint(root)
		if err != nil {
			t.Fatal(err)
		}
		if c.ResumeCode() != tc.code || !strings.Contains(c.Advice(), tc.advice) {
			t.Errorf("%s %d steps: code %d, %q", tc.status, len(tc.steps), c.ResumeCode(), c.Advice())
		}
	}
	writeOlder(t, root, []byte(`{"status": "in_progress", "steps": ["x"]}`))
	if _, err := ReadOlderCheckpoint(root); err == nil || !strings.Contains(err.Error(), "steps: not an object") {
		t.Errorf("bad steps: %v", err)
	}
}

func FuzzReadOlderCheckpoint(f *testing.F) {
	f.Add(oldtools.Checkpoint("in_progress", []oldtools.CheckpointStep{{Name: "a\x1b[2J", State: "done"}}, "", ""))
	f.Add([]byte(`{"status": 1}`))
	f.Add(oldtools.Checkpoint("in_progress", []oldtools.CheckpointStep{{Name: "build", State: "done"}, {Name: "publish\x07docs", State: "pending"}}, "", ""))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		writeOlder(t, root, data)
		c, err := ReadOlderCheckpoint(root)
		if err == nil && c != nil {
			for _, s := range append(c.Steps, c.Status) {
				if strings.ContainsAny(s, "\x1b\n\r") {
					t.Fatalf("uncleaned %q", s)
				}
			}
			// The advice is one clean line that names the file to
			// remove and, for an interrupted run, every step left.
			advice := c.Advice()
			if strings.ContainsFunc(advice, unicode.IsControl) || !strings.Contains(advice, OlderCheckpointPath) {
				t.Fatalf("advice %q: want one clean line naming %s", advice, OlderCheckpointPath)
			}
			for _, p := range c.Pending {
				if !slices.Contains(c.Steps, p) {
					t.Fatalf("pending %q is none of the steps %q", p, c.Steps)
				}
				if c.ResumeCode() == 1 && !strings.Contains(advice, p) {
					t.Fatalf("advice %q leaves out the pending step %q", advice, p)
				}
			}
		}
	})
}

package cline_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/capture"
)

// Each real session Cline wrote is recognised as Cline's by content, its
// manifest too, before any agent earlier in the table takes it (an older
// Gemini CLI chat is also one JSON object with sessionId and messages).
func TestDetectFindsClineFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "real-e2e", "*", "*.json"))
	if err != nil || len(files) < 6 {
		t.Fatalf("real sessions: %v, %v", files, err)
	}
	for _, f := range files {
		base := filepath.Base(f)
		d, err := capture.DetectFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(base, "turns"):
			if d.Agent != "" {
				t.Errorf("%s (the fake model's script) taken for %s's", f, d.Agent)
			}
		case strings.HasSuffix(base, ".compaction.json"):
			if d.Agent != "" || !d.Foreign {
				t.Errorf("%s: %+v, want Cline's other file, no session", f, d)
			}
		default:
			if d.Agent != "cline" {
				t.Errorf("%s: detected as %+v, want cline", f, d)
			}
		}
	}
}

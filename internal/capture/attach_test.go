package capture

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/redact"
)

// An agent's database (OpenCode's opencode.db) holds every session of
// the agent: --attach-transcript refuses it rather than attach them all,
// and copies nothing; a transcript file of one session is copied.
func TestAttachRefusesADatabaseOfEverySession(t *testing.T) {
	db, err := os.ReadFile("../agents/opencode/testdata/seed.db")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "opencode.db")
	if err := os.WriteFile(p, db, 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = copyTranscript(Options{TranscriptCopy: &buf}, p, &redact.Report{})
	if err == nil || !strings.Contains(err.Error(), "every session") || buf.Len() != 0 {
		t.Fatalf("attach of a database: %v, %d bytes copied", err, buf.Len())
	}
	j := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(j, []byte(`{"type":"user"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := copyTranscript(Options{TranscriptCopy: &buf}, j, &redact.Report{}); err != nil || buf.String() != `{"type":"user"}`+"\n" {
		t.Fatalf("attach of a transcript: %v, %q", err, buf.String())
	}
}

package handover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckpointErrorsQuoteBounded: a checkpoint file is the project's
// state directory's, and its unknown state values reach the error only
// bounded and escaped.
func TestCheckpointErrorsQuoteBounded(t *testing.T) {
	hostile := strings.Repeat("x\u202e\n", 20000)
	for _, body := range []string{
		`{"version":1,"state":"` + strings.ReplaceAll(strings.ReplaceAll(hostile, "\n", `\n`), "\u202e", `\u202e`) + `"}`,
		`{"version":1,"state":"running","steps":[{"name":"` + strings.ReplaceAll(strings.ReplaceAll(hostile, "\n", `\n`), "\u202e", `\u202e`) + `","state":"odd"}]}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "checkpoint.json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadCheckpoint(dir)
		if err == nil {
			t.Fatal("a hostile checkpoint was read")
		}
		if msg := err.Error(); len(msg) > 1024 || strings.ContainsAny(msg, "\n\u202e") {
			t.Errorf("the error quotes the checkpoint unbounded or raw (%d bytes): %.200q", len(msg), msg)
		}
	}
}

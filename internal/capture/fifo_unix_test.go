//go:build unix

package capture

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// DetectFile refuses a FIFO at once, never waiting on it: the readers
// open every file by its path as a regular file (safefile.OpenRegular).
func TestDetectFileRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "session.jsonl")
	testsys.Mkfifo(t, fifo)
	if _, err := DetectFile(fifo); !errors.Is(err, safefile.ErrNotRegular) {
		t.Fatalf("DetectFile of a FIFO: %v", err)
	}
}

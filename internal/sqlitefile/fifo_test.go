package sqlitefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// A database or its WAL that is a FIFO is refused at once, never waited
// on: every file read by its path is a regular file.
func TestOpenRefusesFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "db.sqlite")
	testsys.Mkfifo(t, fifo)
	if _, err := Open(fifo, Limits{}); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("a FIFO database: %v", err)
	}
	data, err := os.ReadFile("testdata/plain.db")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "plain.db")
	if err := os.WriteFile(db, data, 0o600); err != nil {
		t.Fatal(err)
	}
	testsys.Mkfifo(t, db+"-wal")
	if _, err := Open(db, Limits{}); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("a FIFO WAL: %v", err)
	}
}

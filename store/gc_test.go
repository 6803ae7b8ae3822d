package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// Blobs no record attaches are reported by Check and removed by GC; blobs
// a record attaches are never removed.
func TestGCRemovesOnlyUnreferencedBlobs(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kept, size, err := s.PutBlob(strings.NewReader("attached"), 100)
	if err != nil {
		t.Fatal(err)
	}
	orphan, _, err := s.PutBlob(strings.NewReader("nobody's"), 100)
	if err != nil {
		t.Fatal(err)
	}
	rec := mkRecord(t, time.Now(), "codex", "p", "with attachment")
	rec.Attachments = []handoff.Attachment{{Name: "a.txt", MediaType: "text/plain", Size: size, SHA256: kept}}
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Check(true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Unreferenced, []string{orphan}) || rep.UnreferencedBytes != 8 {
		t.Fatalf("Check: unreferenced %v (%d bytes), want only %s", rep.Unreferenced, rep.UnreferencedBytes, orphan)
	}
	if _, _, err := s.OpenBlob(orphan); err != nil {
		t.Fatal("Check removed a blob")
	}
	// Within the grace period (an import may be about to store its
	// record), nothing goes.
	if gc, err := s.GC(time.Hour); err != nil || len(gc.Removed) != 0 {
		t.Fatalf("GC within grace: %+v %v", gc, err)
	}
	gc, err := s.GC(0)
	if err != nil || !slices.Equal(gc.Removed, []string{orphan}) || gc.Bytes != 8 {
		t.Fatalf("GC: %+v %v", gc, err)
	}
	if _, _, err := s.OpenBlob(orphan); !errors.Is(err, ErrNotFound) {
		t.Fatalf("orphan still there: %v", err)
	}
	if rc, _, err := s.OpenBlob(kept); err != nil {
		t.Fatalf("attached blob removed: %v", err)
	} else {
		rc.Close()
	}
	// A damaged record might attach any blob: GC removes none.
	if _, _, err := s.PutBlob(strings.NewReader("again"), 100); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(s.Dir(), recordsDir, "01J0000000000000000000000A"+recordExt)
	if err := os.WriteFile(bad, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if gc, err := s.GC(0); !errors.Is(err, ErrDamagedRecords) || gc != nil {
		t.Fatalf("GC with a damaged record: %+v %v", gc, err)
	}
}

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

// RemoveWithBlobs removes the record's own blobs, keeps one another record
// still attaches, and leaves unrelated orphans for GC.
func TestRemoveWithBlobs(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	put := func(text string) handoff.Attachment {
		sum, size, err := s.PutBlob(strings.NewReader(text), 100)
		if err != nil {
			t.Fatal(err)
		}
		return handoff.Attachment{Name: text + ".txt", MediaType: "text/plain", Size: size, SHA256: sum}
	}
	own, shared, orphan, young := put("own"), put("shared"), put("orphan"), put("young")
	// All but young are older than ReleaseGrace; young stays, as an import
	// of the same content may just have put it there.
	old := time.Now().Add(-2 * ReleaseGrace)
	for _, at := range []handoff.Attachment{own, shared, orphan} {
		if err := os.Chtimes(filepath.Join(s.blobDir(), at.SHA256), old, old); err != nil {
			t.Fatal(err)
		}
	}
	a := mkRecord(t, time.Now(), "codex", "p", "a")
	a.Attachments = []handoff.Attachment{own, shared, own, young}
	b := mkRecord(t, time.Now().Add(time.Second), "codex", "p", "b")
	b.Attachments = []handoff.Attachment{shared}
	for _, r := range []*handoff.Record{a, b} {
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := s.RemoveWithBlobs(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Removed, []string{own.SHA256}) || rep.Bytes != 3 {
		t.Fatalf("removed %v (%d bytes), want only %s", rep.Removed, rep.Bytes, own.SHA256)
	}
	if _, err := s.Get(a.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("record still there: %v", err)
	}
	if _, _, err := s.OpenBlob(own.SHA256); !errors.Is(err, ErrNotFound) {
		t.Fatalf("own blob still there: %v", err)
	}
	for _, keep := range []handoff.Attachment{shared, orphan, young} {
		rc, _, err := s.OpenBlob(keep.SHA256)
		if err != nil {
			t.Fatalf("%s removed: %v", keep.Name, err)
		}
		rc.Close()
	}
	// The last record attaching the shared blob takes it with it.
	rep, err = s.RemoveWithBlobs(b.ID)
	if err != nil || !slices.Equal(rep.Removed, []string{shared.SHA256}) {
		t.Fatalf("second remove: %+v %v", rep, err)
	}
	if _, err := s.RemoveWithBlobs(b.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("removing twice: %v", err)
	}
}

// FillOrigins reads imported records for their provenance; the others
// need only the index.
func TestFillOrigins(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mine := mkRecord(t, time.Now(), "codex", "p", "mine")
	theirs := mkRecord(t, time.Now().Add(time.Second), "codex", "p", "theirs")
	theirs.Source = handoff.Source{Kind: handoff.SourceImport, Import: &handoff.Provenance{
		BundleID: strings.Repeat("0", 32), ImportedAt: time.Now().UTC(), Verification: "verified", Signer: "alice@laptop", Fingerprint: "SHA256:" + strings.Repeat("A", 43)}}
	for _, r := range []*handoff.Record{mine, theirs} {
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	s.FillOrigins(entries)
	got := map[string]string{}
	for _, e := range entries {
		got[e.Title] = e.Origin
	}
	if got["mine"] != "mine" || got["theirs"] != "verified: alice@laptop" {
		t.Fatalf("origins %v", got)
	}
}

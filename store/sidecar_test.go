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
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// A sidecar reads back as written; a missing one wraps ErrNotFound, one
// over the bound ErrTooLarge, a link or a directory is refused unread,
// and a name not of a blob is refused.
func TestSidecarReadBack(t *testing.T) {
	s := newTestStore(t)
	sha, _, err := s.PutBlob(strings.NewReader("a patch"), 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadSidecar(sha, "headers", 100); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
	if err := s.PutSidecar(sha, "headers", []byte("small")); err != nil {
		t.Fatal(err)
	}
	if data, err := s.ReadSidecar(sha, "headers", 100); err != nil || string(data) != "small" {
		t.Errorf("read back: %q %v", data, err)
	}
	if _, err := s.ReadSidecar(sha, "headers", 4); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("over the bound: %v", err)
	}
	path := filepath.Join(s.sidecarDir(), sha+".headers")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(s.blobDir(), sha), path); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadSidecar(sha, "headers", 100); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("a link: %v", err)
	}
	for _, c := range [][2]string{{"../../x", "headers"}, {sha, "../x"}, {sha, ""}, {sha, "Headers"}} {
		if err := s.PutSidecar(c[0], c[1], nil); err == nil {
			t.Errorf("PutSidecar(%q, %q) took the name", c[0], c[1])
		}
		if _, err := s.ReadSidecar(c[0], c[1], 100); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("ReadSidecar(%q, %q): %v", c[0], c[1], err)
		}
	}
	if n, err := s.BlobSize(sha); err != nil || n != 7 {
		t.Errorf("BlobSize: %d %v", n, err)
	}
}

// store check reports the sidecars whose blob is gone (and files there
// that are no sidecar) and, repairing, removes them and its crashed
// writers' temporary files; GC and rm remove the sidecars of the blobs
// they remove. A blob's sidecar stays while the blob does.
func TestCheckAndGCRemoveStaleSidecars(t *testing.T) {
	s := newTestStore(t)
	kept, size, err := s.PutBlob(strings.NewReader("attached"), 100)
	if err != nil {
		t.Fatal(err)
	}
	orphan, _, err := s.PutBlob(strings.NewReader("nobody's"), 100)
	if err != nil {
		t.Fatal(err)
	}
	gone := strings.Repeat("ab", 32)
	for _, sha := range []string{kept, orphan, gone} {
		if err := s.PutSidecar(sha, "headers", []byte("h")); err != nil {
			t.Fatal(err)
		}
	}
	stray := filepath.Join(s.sidecarDir(), "stray")
	dead := filepath.Join(s.sidecarDir(), ".tmp-blob-dead")
	for _, p := range []string{stray, dead} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rec := mkRecord(t, time.Now(), "codex", "p", "with attachment")
	rec.Attachments = []handoff.Attachment{{Name: "a.txt", MediaType: "text/plain", Size: size, SHA256: kept}}
	mustSave(t, s, rec)
	want := []string{gone + ".headers", "stray"}
	rep, err := s.Check(false)
	if err != nil || !slices.Equal(rep.StaleSidecars, want) || rep.StaleSidecarsRemoved || rep.TempFound != 1 {
		t.Fatalf("Check: %+v %v; want stale %v and one temporary file", rep, err, want)
	}
	if _, err := os.Lstat(stray); err != nil {
		t.Fatal("Check without repair removed a file")
	}
	rep, err = s.Check(true)
	if err != nil || !slices.Equal(rep.StaleSidecars, want) || !rep.StaleSidecarsRemoved || rep.TempRemoved != 1 {
		t.Fatalf("Check repairing: %+v %v", rep, err)
	}
	sidecars := func() []string {
		des, err := os.ReadDir(s.sidecarDir())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		return names
	}
	if got := sidecars(); !slices.Equal(got, sortedPair(kept+".headers", orphan+".headers")) {
		t.Fatalf("after check: %v", got)
	}
	if gc, err := s.GC(0); err != nil || !slices.Equal(gc.Removed, []string{orphan}) {
		t.Fatalf("GC: %+v %v", gc, err)
	}
	if got := sidecars(); !slices.Equal(got, []string{kept + ".headers"}) {
		t.Fatalf("after GC: %v", got)
	}
	// rm removes the record's blob once it is older than ReleaseGrace.
	old := time.Now().Add(-2 * ReleaseGrace)
	if err := os.Chtimes(filepath.Join(s.blobDir(), kept), old, old); err != nil {
		t.Fatal(err)
	}
	if r, err := s.RemoveWithBlobs(rec.ID); err != nil || len(r.Removed) != 1 {
		t.Fatalf("rm: %+v %v", r, err)
	}
	if got := sidecars(); len(got) != 0 {
		t.Fatalf("after rm: %v", got)
	}
}

func sortedPair(a, b string) []string {
	s := []string{a, b}
	slices.Sort(s)
	return s
}

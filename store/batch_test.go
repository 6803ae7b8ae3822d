package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// A batch stores its records with one append to the index and one to the
// search cache; they are listed in the order they were put, and an
// existing id is refused unless replaced.
func TestBatchPutsWithOneAppend(t *testing.T) {
	s := newTestStore(t)
	old := saveN(t, s, 2)
	if _, err := s.Search(Filter{Query: "summary"}); err != nil {
		t.Fatal(err) // makes the search cache
	}
	indexBefore, searchBefore := fileLines(t, s, indexFile), fileLines(t, s, searchFile)
	var recs []*handoff.Record
	for i := range 5 {
		// Older than the saved ones for some: "*" lines.
		recs = append(recs, mkRecord(t, baseTime.Add(time.Duration(i*30-60)*time.Second), "claude", "p", "batch"))
	}
	changed := *old[0]
	changed.Title = "replaced in a batch"
	err := s.Batch(func(b *Batch) error {
		for _, r := range recs {
			if _, err := b.Put(r, false); err != nil {
				return err
			}
		}
		if _, err := b.Put(old[1], false); !errors.Is(err, ErrExists) {
			t.Errorf("put of a stored id without replace: %v", err)
		}
		if replaced, err := b.Put(&changed, true); err != nil || !replaced {
			t.Errorf("replace: %v, %v", replaced, err)
		}
		if got, err := b.Get(recs[0].ID); err != nil || got.Title != "batch" {
			t.Errorf("Get of a record put in the batch: %v, %v", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := fileLines(t, s, indexFile) - indexBefore; got != 6 {
		t.Errorf("the batch appended %d index lines, want 6", got)
	}
	if got := fileLines(t, s, searchFile) - searchBefore; got != 6 {
		t.Errorf("the batch appended %d search cache lines, want 6", got)
	}
	if pendingExists(s) {
		t.Error("the batch left its marker")
	}
	es := assertConsistent(t, s)
	if len(es) != 7 || es[0].ID != changed.ID || es[0].Title != "replaced in a batch" || es[1].ID != recs[4].ID {
		t.Fatalf("list after the batch = %v", ids(es))
	}
}

// A crash between the batch's record writes and its index append (fn
// never returns) leaves its marker; the next reader rebuilds the index
// from the records: every record placed is listed once, and putting it
// again is refused, not duplicated.
func TestBatchCrashBeforeIndexAppend(t *testing.T) {
	for _, next := range []string{"reader", "writer", "check"} {
		t.Run(next, func(t *testing.T) {
			s := newTestStore(t)
			saveN(t, s, 2)
			recs := []*handoff.Record{
				mkRecord(t, baseTime.Add(time.Hour), "claude", "p", "placed 1"),
				mkRecord(t, baseTime.Add(2*time.Hour), "claude", "p", "placed 2"),
			}
			crashInBatch(t, s, recs)
			if !pendingExists(s) {
				t.Fatal("no marker after the crash")
			}
			switch next {
			case "writer":
				err := s.Batch(func(b *Batch) error {
					_, err := b.Put(recs[0], false)
					return err
				})
				if !errors.Is(err, ErrExists) {
					t.Errorf("putting a placed record again: %v", err)
				}
			case "check":
				if rep, err := s.Check(true); err != nil || !rep.PendingRepaired {
					t.Fatalf("check = %+v, %v", rep, err)
				}
			}
			es := assertConsistent(t, s)
			if len(es) != 4 || es[0].ID != recs[1].ID || es[1].ID != recs[0].ID {
				t.Fatalf("list after the crash = %v", ids(es))
			}
			if pendingExists(s) {
				t.Error("marker left after the repair")
			}
		})
	}
}

// crashInBatch puts recs in a batch that dies before it ends.
func crashInBatch(t *testing.T, s *Store, recs []*handoff.Record) {
	t.Helper()
	crash := errors.New("killed")
	defer func() {
		if r := recover(); r != crash {
			t.Fatalf("recovered %v", r)
		}
	}()
	_ = s.Batch(func(b *Batch) error {
		for _, r := range recs {
			if _, err := b.Put(r, false); err != nil {
				t.Fatal(err)
			}
		}
		panic(crash)
	})
}

// A batch adopts blobs from the staging directories Sub makes, and
// nothing from elsewhere.
func TestBatchAdoptsBlobsFromSubdirectories(t *testing.T) {
	s := newTestStore(t)
	st, err := s.NewStaging()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sub := st.Sub()
	testsys.Check(t, os.Mkdir(sub, 0o700))
	data := []byte("an attachment")
	sum := sha256.Sum256(data)
	hexSum := hex.EncodeToString(sum[:])
	p := filepath.Join(sub, hexSum)
	testsys.Check(t, os.WriteFile(p, data, 0o600))
	outside := filepath.Join(t.TempDir(), "sub-x")
	testsys.Check(t, os.MkdirAll(outside, 0o700))
	testsys.Check(t, os.WriteFile(filepath.Join(outside, hexSum), data, 0o600))
	err = s.Batch(func(b *Batch) error {
		if err := b.AdoptBlob(st, filepath.Join(outside, hexSum), hexSum); err == nil {
			t.Error("adopted a blob from outside the staging directory")
		}
		if err := b.AdoptBlob(st, p, hexSum); err != nil {
			return err
		}
		_, err := b.Put(mkRecord(t, baseTime, "claude", "p", "with a blob"), false)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rc, _, err := s.OpenBlob(hexSum)
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
}

// fileLines counts the lines of a file of the store.
func fileLines(t *testing.T, s *Store, name string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.Dir(), name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte{'\n'})
}

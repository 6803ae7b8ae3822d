package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Every line appended to the index and the search cache is fsynced once
// it is written, and before the save returns: a line not on the disk yet
// would tell, after a power cut, of a record that is not there, or lose
// one that is (issue 50: removing the fsync survived every test).
func TestAppendsAreSynced(t *testing.T) {
	s := newTestStore(t)
	type synced struct {
		name string
		size int64
	}
	var syncs []synced
	old := syncFile
	syncFile = func(f *os.File) error {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		syncs = append(syncs, synced{filepath.Base(f.Name()), st.Size()})
		return old(f)
	}
	t.Cleanup(func() { syncFile = old })

	for i := range 3 {
		mustSave(t, s, mkRecord(t, time.Date(2026, 11, 1, 10, i, 0, 0, time.UTC), "codex", "app", "title "+string(rune('a'+i))))
		for _, name := range []string{indexFile, searchFile} {
			st, err := os.Stat(s.path(name))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, sy := range syncs {
				found = found || sy.name == name && sy.size == st.Size()
			}
			if !found {
				t.Errorf("save %d: %s was not fsynced at its length %d (syncs %v)", i, name, st.Size(), syncs)
			}
		}
	}
}

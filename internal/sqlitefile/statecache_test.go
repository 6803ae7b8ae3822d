package sqlitefile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A StateCache reads a database once while its files stay as they are,
// and again once they change.
func TestStateCacheReadsOncePerState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain.db")
	data, err := os.ReadFile(filepath.Join("testdata", "plain.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // not "written within the last 2 seconds"
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	var c StateCache[int]
	reads := 0
	read := func(*DB) (int, error) { reads++; return reads, nil }
	get := func() int {
		t.Helper()
		db, err := Open(path, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if db.StateKey() == "" {
			t.Fatal("no state key for a database written an hour ago")
		}
		v, err := c.Get(db, read)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if a, b := get(), get(); a != 1 || b != 1 || reads != 1 {
		t.Fatalf("same state: got %d then %d after %d reads, want 1, 1 and one read", a, b, reads)
	}
	later := old.Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if v := get(); v != 2 || reads != 2 {
		t.Fatalf("changed file: got %d after %d reads, want a new read", v, reads)
	}
}

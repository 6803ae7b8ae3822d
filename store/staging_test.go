package store

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

func TestStagingAdoptAndCleanup(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.NewStaging()
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("checked attachment")
	sum := sha256.Sum256(data)
	hexSum := hex.EncodeToString(sum[:])
	p := filepath.Join(st.Dir, hexSum)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	err = s.Batch(func(b *Batch) error {
		if err := b.AdoptBlob(st, filepath.Join(t.TempDir(), "x"), hexSum); err == nil {
			t.Fatal("adopted a file from outside the staging directory")
		}
		return b.AdoptBlob(st, p, hexSum)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	rc, size, err := s.OpenBlob(hexSum)
	if err != nil || size != int64(len(data)) {
		t.Fatalf("OpenBlob: %v %d", err, size)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != string(data) {
		t.Fatalf("blob = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, stagingDir)); !os.IsNotExist(err) {
		t.Fatalf("empty staging parent left behind: %v", err)
	}

	// A refused import into a store that did not exist leaves no store.
	empty := filepath.Join(t.TempDir(), "none")
	s2, _ := Open(empty)
	st2, err := s2.NewStaging()
	if err != nil {
		t.Fatal(err)
	}
	st2.Close()
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Fatalf("staging left the store directory behind: %v", err)
	}

	// A staging directory whose import died (no lock held) is removed by Check.
	live, err := s.NewStaging()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	dead := filepath.Join(dir, stagingDir, "import-dead")
	if err := os.MkdirAll(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	testsys.Check(t, os.WriteFile(filepath.Join(dead, "partial"), []byte("x"), 0o600))
	rep, err := s.Check(true)
	if err != nil {
		t.Fatal(err)
	}
	if rep.TempRemoved != 1 {
		t.Fatalf("TempRemoved = %d, want 1 (the dead one, not the live one)", rep.TempRemoved)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatal("dead staging directory survived")
	}
	if _, err := os.Stat(live.Dir); err != nil {
		t.Fatalf("live staging directory removed: %v", err)
	}

	// ... and by the next import, which leaves live ones alone.
	if err := os.MkdirAll(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	testsys.Check(t, os.WriteFile(filepath.Join(dead, "partial"), []byte("x"), 0o600))
	next, err := s.NewStaging()
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatal("the next import left a dead staging directory")
	}
	if _, err := os.Stat(live.Dir); err != nil {
		t.Fatalf("the next import removed a live staging directory: %v", err)
	}
}

// A staging directory whose import has not locked it yet (no lock file)
// is being made, not dead: another import's reaper leaves it alone. One
// with a free lock file is dead, and is removed.
func TestStagingReaperLeavesDirectoriesBeingMade(t *testing.T) {
	s := newTestStore(t)
	parent := filepath.Join(s.Dir(), stagingDir)
	fresh, dead := filepath.Join(parent, "import-fresh"), filepath.Join(parent, "import-dead")
	for _, d := range []string{fresh, dead} {
		testsys.Check(t, os.MkdirAll(d, 0o700))
	}
	testsys.Check(t, os.WriteFile(filepath.Join(dead, stagingLock), nil, 0o600))
	st, err := s.NewStaging()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a directory being made was reaped: %v", err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead import's directory was left: %v", err)
	}
}

package transcript

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Installed Listings answer ReadDir and Lstat as the directory was when
// it was read, without reading it again; a directory they do not hold is
// read from the disk.
func TestListingsAnswerAsRead(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte("12345"), 0o600)
	os.Mkdir(filepath.Join(dir, "a"), 0o700)
	os.Symlink("b.jsonl", filepath.Join(dir, "c"))
	l := NewListings()
	want, err := l.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer SetListings(l)()
	os.WriteFile(filepath.Join(dir, "d.jsonl"), nil, 0o600)
	got, err := ReadDir(dir)
	if err != nil || len(got) != 3 {
		t.Fatalf("ReadDir = %d entries, %v; want the 3 listed", len(got), err)
	}
	for i, de := range got {
		if de.Name() != want[i].Name() || de.Type() != want[i].Type() {
			t.Errorf("entry %d: %s %v, listed %s %v", i, de.Name(), de.Type(), want[i].Name(), want[i].Type())
		}
	}
	fi, err := Lstat(filepath.Join(dir, "b.jsonl"))
	if err != nil || fi.Size() != 5 || !fi.Mode().IsRegular() {
		t.Fatalf("Lstat b.jsonl = %v, %v", fi, err)
	}
	os.Remove(filepath.Join(dir, "b.jsonl"))
	if fi, err := Lstat(filepath.Join(dir, "b.jsonl")); err != nil || fi.Size() != 5 {
		t.Errorf("Lstat of a listed file removed since = %v, %v; want it as listed", fi, err)
	}
	if fi, err := Lstat(filepath.Join(dir, "a")); err != nil || !fi.IsDir() {
		t.Errorf("Lstat a = %v, %v", fi, err)
	}
	if fi, err := Lstat(filepath.Join(dir, "c")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat of a symlink = %v, %v", fi, err)
	}
	if _, err := Lstat(filepath.Join(dir, "d.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lstat of a file not listed = %v, want not found", err)
	}
	// Not listed: read from the disk.
	if des, err := ReadDir(filepath.Join(dir, "a")); err != nil || len(des) != 0 {
		t.Errorf("ReadDir of a directory not listed = %v, %v", des, err)
	}
	if _, err := ReadDir(filepath.Join(dir, "x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir of a missing directory = %v", err)
	}
}

// Listings installed by two catch-ups that overlap are both gone once
// both are done, whichever ends first: none outlives its catch-up.
func TestSetListingsLeavesNone(t *testing.T) {
	for _, aFirst := range []bool{true, false} {
		a, b := NewListings(), NewListings()
		restoreA := SetListings(a)
		restoreB := SetListings(b)
		if aFirst {
			restoreA()
			restoreB()
		} else {
			restoreB()
			restoreA()
		}
		if l := listings.Load(); l != nil {
			t.Errorf("a first %v: a listing is still installed", aFirst)
		}
	}
}

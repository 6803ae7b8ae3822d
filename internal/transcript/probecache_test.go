package transcript

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// With a ProbeCache installed, listing the sessions again probes only
// the files that changed, and gives what probing gave.
func TestProbeCacheProbesOnlyWhatChanged(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.jsonl", "b.jsonl", "c.jsonl"} {
		os.WriteFile(filepath.Join(dir, n), []byte("{}\n"), 0o600)
	}
	var probes atomic.Int64
	list := func() []SessionInfo {
		var files []Candidate
		ListFiles(dir, func(string) bool { return true }, &files)
		return ProbeSessionsWith("x", files, func(s *SessionInfo) bool {
			probes.Add(1)
			s.Title = "title of " + filepath.Base(s.Path)
			return filepath.Base(s.Path) != "c.jsonl"
		})
	}
	c := NewProbeCache(nil)
	defer SetProbeCache(c)()
	if got := list(); len(got) != 2 || probes.Load() != 3 {
		t.Fatalf("first listing: %d sessions, %d probes", len(got), probes.Load())
	}
	// As search does: the next process starts from what the last used.
	c = NewProbeCache(c.Used())
	defer SetProbeCache(c)()
	os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte("{}\n{}\n"), 0o600)
	got := list()
	if probes.Load() != 4 {
		t.Errorf("second listing probed %d files, want only the one that changed", probes.Load()-3)
	}
	if len(got) != 2 || got[0].Title == "" || got[1].Title == "" {
		t.Errorf("second listing: %+v", got)
	}
	// What is kept: the files probed now, the changed one's new state.
	if n := len(c.Used()); n != 3 || !c.Changed() {
		t.Errorf("kept %d entries (changed: %v), want 3, changed", n, c.Changed())
	}
	// Nothing changed since: the cache is as it was made, nothing to
	// write.
	c = NewProbeCache(c.Used())
	defer SetProbeCache(c)()
	list()
	if probes.Load() != 4 || c.Changed() {
		t.Errorf("a listing with nothing changed probed %d files, changed the cache: %v", probes.Load()-4, c.Changed())
	}
	// A file gone: its entry is not used, and the cache changed.
	os.Remove(filepath.Join(dir, "a.jsonl"))
	c = NewProbeCache(c.Used())
	defer SetProbeCache(c)()
	list()
	if !c.Changed() || len(c.Used()) != 2 {
		t.Errorf("with a file gone: changed %v, %d entries used", c.Changed(), len(c.Used()))
	}
}

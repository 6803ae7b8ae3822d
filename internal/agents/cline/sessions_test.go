package cline

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Find lists each session folder holding a messages file, from its
// manifest, newest first; a folder without one, and a missing root, are
// no session and no error.
func TestFindListsSessionFolders(t *testing.T) {
	root := t.TempDir()
	for _, e := range realExpectations {
		src := filepath.Join("testdata", "real-e2e", e.dir)
		dst := filepath.Join(root, e.id)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{e.id + ".json", e.id + messagesSuffix} {
			data, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			// Older than the manifests' times, which then decide.
			old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
			if err := os.Chtimes(filepath.Join(dst, name), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := reader{}.Find([]string{root, filepath.Join(root, "missing")})
	if err != nil {
		t.Fatal(err)
	}
	// The manifests' ended_at, newest first.
	want := []string{"1795792698526_q2vgy", "1795792518153_oukke", "1795791732855_2du9e", "1795791516412_5bfiq", "1795791511128_mqlvk", "1795790122023_mci1z", "1795790106186_5sjth", "1795790092737_lizig"}
	cwd := map[string]string{}
	for _, e := range realExpectations {
		cwd[e.id] = e.cwd
	}
	if len(got) != len(want) {
		t.Fatalf("found %+v, want %v", got, want)
	}
	for i, s := range got {
		if s.ID != want[i] || s.Agent != agentName || s.CWD != cwd[s.ID] || s.AgentVersion != "3.0.65" || s.Started.IsZero() ||
			s.Path != filepath.Join(root, s.ID, s.ID+messagesSuffix) {
			t.Errorf("session %d: %+v, want id %s", i, s, want[i])
		}
	}
	if last := got[len(got)-1]; last.Title != "Write calc.py with an add function and test it" {
		t.Errorf("title %q", last.Title)
	}
}

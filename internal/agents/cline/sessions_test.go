package cline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Find lists each session folder holding a messages file, from its
// manifest, newest first; a folder without one, and a missing root, are
// no session and no error.
func TestFindListsSessionFolders(t *testing.T) {
	root := t.TempDir()
	copySessions(t, root)
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := reader{}.Find([]string{root, filepath.Join(root, "missing")})
	if err != nil {
		t.Fatal(err)
	}
	checkFound(t, root, got)
}

// With a probe cache installed (as search's catch-up has), listing the
// sessions again reads only the manifests that changed, and finds what
// reading them all found.
func TestFindReadsOnlyChangedManifests(t *testing.T) {
	root := t.TempDir()
	copySessions(t, root)
	c := transcript.NewProbeCache(nil)
	defer transcript.SetProbeCache(c)()
	reads := manifestReads.Load()
	got, err := reader{}.Find([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	checkFound(t, root, got)
	if n := manifestReads.Load() - reads; n != int64(len(realExpectations)) {
		t.Fatalf("the first listing read %d manifests, want %d", n, len(realExpectations))
	}
	// The next process starts from what the last used.
	defer transcript.SetProbeCache(transcript.NewProbeCache(c.Used()))()
	e := realExpectations[0]
	manifest := filepath.Join(root, e.id, e.id+".json")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, append(data, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	reads = manifestReads.Load()
	got, err = reader{}.Find([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	checkFound(t, root, got)
	if n := manifestReads.Load() - reads; n != 1 {
		t.Errorf("the second listing read %d manifests, want the one that changed", n)
	}
}

// copySessions copies the sessions of realExpectations under root,
// their files dated before their manifests' times.
func copySessions(t *testing.T, root string) {
	t.Helper()
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
}

// checkFound checks what Find found in the sessions of realExpectations
// copied under root, their manifests' ended_at deciding the order.
func checkFound(t *testing.T, root string, got []transcript.SessionInfo) {
	t.Helper()
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

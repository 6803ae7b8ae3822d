package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// baseTime is when test records are made, unless a test says otherwise.
var baseTime = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	code := m.Run()
	cleanupBenchStores()
	os.Exit(code)
}

// newTestStore opens a store in a fresh directory that does not exist yet.
func newTestStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mkRecord makes a valid record.
func mkRecord(t testing.TB, at time.Time, tool, project, title string) *handoff.Record {
	t.Helper()
	r, err := handoff.New(at, tool, title)
	if err != nil {
		t.Fatal(err)
	}
	r.Project = handoff.Project{Path: "/home/dev/src/" + project, Name: project}
	r.Summary = "Summary of " + title
	if err := r.Normalize(); err != nil {
		t.Fatal(err)
	}
	return r
}

func mustSave(t testing.TB, s *Store, r *handoff.Record) {
	t.Helper()
	if err := s.Save(r); err != nil {
		t.Fatalf("save %s: %v", r.ID, err)
	}
}

func mustList(t testing.TB, s *Store, f Filter) []Entry {
	t.Helper()
	es, err := s.List(f)
	if err != nil {
		t.Fatalf("list %+v: %v", f, err)
	}
	return es
}

func ids(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.ID)
	}
	return out
}

// recordFiles returns the ids of the record files present.
func recordFiles(t testing.TB, s *Store) []string {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(s.Dir(), recordsDir))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		if strings.HasSuffix(de.Name(), recordExt) {
			out = append(out, strings.TrimSuffix(de.Name(), recordExt))
		}
	}
	sort.Strings(out)
	return out
}

func sortedIDs(es []Entry) []string {
	out := ids(es)
	sort.Strings(out)
	return out
}

// assertConsistent checks the invariants every store must hold once a
// reader has run: every record file parses, the index lists exactly the
// record files, and Check finds nothing wrong.
func assertConsistent(t testing.TB, s *Store) []Entry {
	t.Helper()
	es := mustList(t, s, Filter{})
	files := recordFiles(t, s)
	titles := map[handoff.ID]string{}
	for _, id := range files {
		r, err := s.Get(handoff.ID(id))
		if err != nil {
			t.Errorf("record file does not parse: %v", err)
			continue
		}
		titles[r.ID] = r.Title
	}
	for _, e := range es {
		title, ok := titles[e.ID]
		if !ok {
			_, err := s.Get(e.ID)
			t.Errorf("index lists %s but: %v", e.ID, err)
			continue
		}
		if title != e.Title {
			t.Errorf("index title %q, record title %q", e.Title, title)
		}
	}
	if got, want := sortedIDs(es), files; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("index lists %d records, %d record files exist\nlisted: %v\nfiles:  %v", len(got), len(want), got, want)
	}
	rep, err := s.Check(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Bad) > 0 || rep.IndexWasStale || rep.PendingFound {
		t.Errorf("check: bad=%v stale=%v (%s) pending=%v", fmtBad(rep.Bad), rep.IndexWasStale, rep.IndexProblem, rep.PendingFound)
	}
	if rep.Records != len(files) {
		t.Errorf("check counts %d records, %d files exist", rep.Records, len(files))
	}
	return es
}

func fmtBad(bad []BadRecord) string {
	var b strings.Builder
	for _, r := range bad {
		fmt.Fprintf(&b, "\n  %s: %v", r.File, r.Err)
	}
	return b.String()
}

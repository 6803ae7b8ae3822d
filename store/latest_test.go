package store

import (
	"github.com/session-handoff/session-handoff/handoff"
	"testing"
	"time"
)

func TestLatestForProject(t *testing.T) {
	s := newTestStore(t)
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	app := mkRecord(t, t0, "codex", "app", "app, older")
	sub := mkRecord(t, t0.Add(time.Hour), "codex", "app", "a project below app")
	sub.Project.Path = "/home/dev/src/app/sub"
	other := mkRecord(t, t0.Add(2*time.Hour), "codex", "other", "another project, newest")
	elsewhere := mkRecord(t, t0.Add(3*time.Hour), "codex", "lib", "lib, made on another machine")
	elsewhere.Project.Path = "/Users/dev/lib"
	for _, r := range []*handoff.Record{app, sub, other, elsewhere} {
		mustSave(t, s, r)
	}
	// By path, exactly: not the newer record of a project below it, nor
	// the store's newest.
	rec, byName, err := s.LatestForProject("/home/dev/src/app")
	if err != nil || rec == nil || rec.ID != app.ID || byName {
		t.Fatalf("app: %v %v %v", rec, byName, err)
	}
	// By name, when no record has the path.
	rec, byName, err = s.LatestForProject("/home/dev/src/lib")
	if err != nil || rec == nil || rec.ID != elsewhere.ID || !byName {
		t.Fatalf("lib: %v %v %v", rec, byName, err)
	}
	// None.
	if rec, _, err := s.LatestForProject("/home/dev/src/none"); err != nil || rec != nil {
		t.Fatalf("none: %v %v", rec, err)
	}
}

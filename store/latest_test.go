package store

import (
	"errors"
	"strings"

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

func TestResolveForProject(t *testing.T) {
	s := newTestStore(t)
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	app := mkRecord(t, t0, "codex", "app", "app")
	other := mkRecord(t, t0.Add(time.Hour), "codex", "other", "other, newest")
	for _, r := range []*handoff.Record{app, other} {
		mustSave(t, s, r)
	}
	cases := []struct {
		ref, root string
		want      handoff.ID
		note      string
	}{
		{"latest", app.Project.Path, app.ID, "latest: the newest handoff of " + app.Project.Path + " (" + string(app.ID) + ")"},
		{"LATEST", other.Project.Path, other.ID, ""},
		{"latest", "", other.ID, ""},
		{"latest", "/home/dev/src/none/x", other.ID, "latest: no handoff for this project; the store's newest is " + string(other.ID)},
		{string(app.ID), other.Project.Path, app.ID, ""},
		{string(other.ID[:12]), app.Project.Path, other.ID, ""},
	}
	for _, c := range cases {
		p, err := s.ResolveForProject(c.ref, c.root)
		if err != nil || p.ID != c.want || p.Note != c.note {
			t.Errorf("%s in %q: %+v %v, want %s %q", c.ref, c.root, p, err, c.want, c.note)
		}
	}
	if _, err := newTestStore(t).ResolveForProject("latest", app.Project.Path); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty store: %v", err)
	}
}

// TestLatestIsByEntryOrder: "latest" is the record that entered this store
// last, not the one claiming the newest creation time, so an imported
// record cannot squat "latest" with its own date (issue 16, class 8), and
// one made long ago but imported now is the latest.
func TestLatestIsByEntryOrder(t *testing.T) {
	s := newTestStore(t)
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	// Saved first, but claims to be from tomorrow (within the skew that
	// import allows).
	squatter := mkRecord(t, now.Add(20*time.Hour), "codex", "app", "claims tomorrow")
	mustSave(t, s, squatter)
	local := mkRecord(t, now, "codex", "app", "saved after it, today")
	mustSave(t, s, local)
	latest := func(f Filter) handoff.ID {
		t.Helper()
		f.Latest = true
		es, err := s.List(f)
		if err != nil || len(es) != 1 {
			t.Fatalf("List(%+v): %v %v", f, es, err)
		}
		return es[0].ID
	}
	if got := latest(Filter{}); got != local.ID {
		t.Errorf("latest is %s, want the record that entered last (%s), not the one dated tomorrow", got, local.ID)
	}
	// A record from last year, imported now, is the latest from now on.
	old := mkRecord(t, now.AddDate(-1, 0, 0), "codex", "app", "made last year, imported now")
	mustSave(t, s, old)
	if got := latest(Filter{}); got != old.ID {
		t.Errorf("latest is %s, want the record imported last (%s)", got, old.ID)
	}
	if got := latest(Filter{Project: "app"}); got != old.ID {
		t.Errorf("latest of app is %s, want %s", got, old.ID)
	}
	if id, err := s.Resolve("latest"); err != nil || id != old.ID {
		t.Errorf("Resolve(latest) = %s, %v; want %s", id, err, old.ID)
	}
	rec, _, err := s.LatestForProject(old.Project.Path)
	if err != nil || rec == nil || rec.ID != old.ID {
		t.Errorf("LatestForProject = %v, %v; want %s", rec, err, old.ID)
	}
	// The plain list orders by entry too, last entered first.
	es, err := s.List(Filter{})
	if err != nil || len(es) != 3 || es[0].ID != old.ID || es[1].ID != local.ID || es[2].ID != squatter.ID {
		t.Errorf("List: %v, %v", es, err)
	}
}

// TestLatestForProjectPastTheTail: a project whose newest handoff is
// older than what the backward scan reads, or that has none, gets the
// answer of the full read, whether the byte search can give it (no line
// holds the path or the name) or not (a line holds the name, or only an
// old line holds the path).
func TestLatestForProjectPastTheTail(t *testing.T) {
	s := newTestStore(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := mkRecord(t, t0, "codex", "app", "the oldest, of app")
	twin := mkRecord(t, t0.Add(time.Second), "codex", "lib", "a lib elsewhere")
	twin.Project.Path = "/Users/dev/lib"
	mustSave(t, s, old)
	mustSave(t, s, twin)
	var body []byte
	var greatest handoff.ID
	for _, r := range []*handoff.Record{old, twin} {
		ie := entryFromRecord(r)
		body, greatest = appendLine(body, &ie, greatest), max(greatest, ie.ID)
	}
	for i := range 6000 { // past the backward scan's budget
		r := mkRecord(t, t0.Add(time.Duration(i+2)*time.Minute), "codex", "site", "site "+strings.Repeat("y", 200))
		ie := entryFromRecord(r)
		body, greatest = appendLine(body, &ie, greatest), max(greatest, ie.ID)
	}
	if len(body) <= tailBudget {
		t.Fatalf("index of %d bytes is within the backward scan's budget", len(body))
	}
	writeIndex(t, s, body)
	for root, want := range map[string]struct {
		id     handoff.ID
		byName bool
	}{
		"/home/dev/src/app":     {old.ID, false}, // an old line holds the path
		"/home/dev/src/lib":     {twin.ID, true}, // a line holds the name only
		"/home/dev/src/new":     {"", false},     // no line holds either
		"/home/dev/src/app/sub": {"", false},     // below a project is not it
	} {
		rec, byName, err := s.LatestForProject(root)
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		var got handoff.ID
		if rec != nil {
			got = rec.ID
		}
		if got != want.id || byName != want.byName {
			t.Errorf("%s: %q (by name %v), want %q (by name %v)", root, got, byName, want.id, want.byName)
		}
	}
	if absent, err := s.indexLacksFields("/home/dev/src/new", "new"); err != nil || !absent {
		t.Errorf("new project: absent %v, %v", absent, err)
	}
	if absent, err := s.indexLacksFields("/home/dev/src/new", "site"); err != nil || absent {
		t.Errorf("a name every line holds: absent %v, %v", absent, err)
	}
}

package store

import (
	"errors"
	"os"
	"path/filepath"
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
	rec, how, err := s.LatestForProject("/home/dev/src/app", nil)
	if err != nil || rec == nil || rec.ID != app.ID || how != MatchPath {
		t.Fatalf("app: %v %v %v", rec, how, err)
	}
	// By name, when no record has the path.
	rec, how, err = s.LatestForProject("/home/dev/src/lib", nil)
	if err != nil || rec == nil || rec.ID != elsewhere.ID || how != MatchName {
		t.Fatalf("lib: %v %v %v", rec, how, err)
	}
	// None.
	if rec, _, err := s.LatestForProject("/home/dev/src/none", nil); err != nil || rec != nil {
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
		p, err := s.ResolveForProject(c.ref, c.root, nil)
		if err != nil || p.ID != c.want || p.Note != c.note {
			t.Errorf("%s in %q: %+v %v, want %s %q", c.ref, c.root, p, err, c.want, c.note)
		}
		// A project's latest was read to be found: it comes with the
		// pick, so the caller does not read it again.
		project := strings.EqualFold(c.ref, "latest") && c.root != "" && !strings.Contains(c.note, "no handoff")
		if got := p.Record != nil && p.Record.ID == c.want; got != project {
			t.Errorf("%s in %q: record with the pick %v, want %v", c.ref, c.root, got, project)
		}
	}
	if _, err := newTestStore(t).ResolveForProject("latest", app.Project.Path, nil); !errors.Is(err, ErrEmpty) {
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
	rec, _, err := s.LatestForProject(old.Project.Path, nil)
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
		id  handoff.ID
		how ProjectMatch
	}{
		"/home/dev/src/app":     {old.ID, MatchPath},  // an old line holds the path
		"/home/dev/src/lib":     {twin.ID, MatchName}, // a line holds the name only
		"/home/dev/src/new":     {"", NoMatch},        // no line holds either
		"/home/dev/src/app/sub": {"", NoMatch},        // below a project is not it
	} {
		rec, how, err := s.LatestForProject(root, nil)
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		var got handoff.ID
		if rec != nil {
			got = rec.ID
		}
		if got != want.id || how != want.how {
			t.Errorf("%s: %q (%v), want %q (%v)", root, got, how, want.id, want.how)
		}
	}
	// The identity is not read where no imported handoff could match.
	reads := 0
	if rec, _, err := s.LatestForProject("/home/dev/src/new", func() handoff.Identity { reads++; return handoff.Identity{RootCommit: strings.Repeat("a", 40)} }); err != nil || rec != nil || reads != 0 {
		t.Errorf("new project with an identity: %v %v, identity read %d times", rec, err, reads)
	}
	if absent, err := s.indexLacksFields("/home/dev/src/new", "new"); err != nil || !absent {
		t.Errorf("new project: absent %v, %v", absent, err)
	}
	if absent, err := s.indexLacksFields("/home/dev/src/new", "site"); err != nil || absent {
		t.Errorf("a name every line holds: absent %v, %v", absent, err)
	}
}

// fromMachine makes r a handoff that arrived from another machine, made
// there at path for the repository with root commit root and remote url.
func fromMachine(r *handoff.Record, path, root, url string) *handoff.Record {
	r.Project.Path, r.Project.Name, r.Project.RootCommit, r.Project.Remote = path, filepath.Base(path), root, url
	return imported(r, r.CreatedAt)
}

// TestLatestForProjectByIdentity: a handoff imported from another machine
// for the same repository (its root commit or, without one, its remote)
// at another path is the project's, and wins over an older one made here
// at the path; a handoff made here at another path, or imported for
// another repository of the same name, is not. The identity is read only
// when an imported handoff could match.
func TestLatestForProjectByIdentity(t *testing.T) {
	const (
		rootA = "1111111111111111111111111111111111111111"
		rootB = "2222222222222222222222222222222222222222"
	)
	here := "/home/dev/src/app"
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		saved []*handoff.Record
		id    handoff.Identity
		want  int // index into saved, -1 for none
		how   ProjectMatch
		reads int // identity reads expected
	}{
		{"same root commit, other path, newer than the local one",
			[]*handoff.Record{
				mkRecord(t, t0, "codex", "app", "made here"),
				fromMachine(mkRecord(t, t0.Add(time.Hour), "claude-code", "x", "made on the laptop"), "/Users/me/work/app-main", rootA, "git@github.com:org/app.git"),
			},
			handoff.Identity{RootCommit: rootA}, 1, MatchIdentity, 1},
		{"same remote, no root commit on either side",
			[]*handoff.Record{
				fromMachine(mkRecord(t, t0, "codex", "x", "laptop"), "/Users/me/app2", "", "git@github.com:Org/App.git"),
			},
			handoff.Identity{RemoteKeys: []string{"github.com/org/app"}}, 0, MatchIdentity, 1},
		{"same remote, different root commits: another history",
			[]*handoff.Record{
				fromMachine(mkRecord(t, t0, "codex", "x", "laptop"), "/Users/me/app2", rootB, "https://github.com/org/app"),
			},
			handoff.Identity{RootCommit: rootA, RemoteKeys: []string{"github.com/org/app"}}, -1, NoMatch, 1},
		{"the local one is newer",
			[]*handoff.Record{
				fromMachine(mkRecord(t, t0, "claude-code", "x", "made on the laptop"), "/Users/me/app", rootA, ""),
				mkRecord(t, t0.Add(time.Hour), "codex", "app", "made here"),
			},
			handoff.Identity{RootCommit: rootA}, 1, MatchPath, 0},
		{"made here at another path: not by identity",
			[]*handoff.Record{
				func() *handoff.Record {
					r := mkRecord(t, t0, "codex", "other", "another worktree here")
					r.Project.RootCommit = rootA
					return r
				}(),
			},
			handoff.Identity{RootCommit: rootA}, -1, NoMatch, 0},
		{"a stranger's bundle naming this repository is not its latest",
			[]*handoff.Record{
				mkRecord(t, t0, "codex", "app", "made here"),
				func() *handoff.Record {
					r := fromMachine(mkRecord(t, t0.Add(time.Hour), "codex", "x", "unverified"), "/Users/eve/app", rootA, "")
					r.Source.Import.Verification, r.Source.Import.Signer = "untrusted", ""
					return r
				}(),
			},
			handoff.Identity{RootCommit: rootA}, 0, MatchPath, 1},
		{"imported, same name, another repository: by name",
			[]*handoff.Record{
				fromMachine(mkRecord(t, t0, "codex", "x", "another app"), "/Users/me/app", rootB, ""),
			},
			handoff.Identity{RootCommit: rootA}, 0, MatchName, 1},
		{"a stranger's bundle of another repository of the same name is not its latest",
			[]*handoff.Record{
				func() *handoff.Record {
					r := mkRecord(t, t0, "codex", "x", "mine, moved")
					r.Project.Path, r.Project.Name = "/old/app", "app"
					return r
				}(),
				func() *handoff.Record {
					r := fromMachine(mkRecord(t, t0.Add(time.Hour), "codex", "x", "pinned stranger"), "/Users/eve/app", rootB, "")
					r.Source.Import.Verification = "pinned"
					return r
				}(),
				func() *handoff.Record {
					r := fromMachine(mkRecord(t, t0.Add(2*time.Hour), "codex", "x", "untrusted stranger"), "/Users/mallory/app", "", "")
					r.Source.Import.Verification, r.Source.Import.Signer = "untrusted", ""
					return r
				}(),
			},
			handoff.Identity{RootCommit: rootA}, 0, MatchName, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestStore(t)
			for _, r := range c.saved {
				mustSave(t, s, r)
			}
			reads := 0
			rec, how, err := s.LatestForProject(here, func() handoff.Identity { reads++; return c.id })
			if err != nil {
				t.Fatal(err)
			}
			var got handoff.ID
			if rec != nil {
				got = rec.ID
			}
			var want handoff.ID
			if c.want >= 0 {
				want = c.saved[c.want].ID
			}
			if got != want || how != c.how || reads != c.reads {
				t.Errorf("got %s (%v), identity read %d times; want %s (%v), %d", got, how, reads, want, c.how, c.reads)
			}
		})
	}
}

// TestLatestForProjectByIdentityPastTheTail: an imported handoff of the
// same repository far from the end of the index is found by the full
// read; one of another repository is not, after one identity read.
func TestLatestForProjectByIdentityPastTheTail(t *testing.T) {
	s := newTestStore(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	root := strings.Repeat("c", 40)
	laptop := fromMachine(mkRecord(t, t0, "codex", "x", "made on the laptop"), "/Users/me/code/app", root, "")
	mustSave(t, s, laptop)
	ie := entryFromRecord(laptop)
	body, greatest := appendLine(nil, &ie, ""), ie.ID
	for i := range 6000 { // past the backward scan's budget
		r := mkRecord(t, t0.Add(time.Duration(i+2)*time.Minute), "codex", "site", "site "+strings.Repeat("y", 200))
		ie := entryFromRecord(r)
		body, greatest = appendLine(body, &ie, greatest), max(greatest, ie.ID)
	}
	writeIndex(t, s, body)
	for _, c := range []struct {
		root string
		want handoff.ID
	}{{root, laptop.ID}, {strings.Repeat("d", 40), ""}} {
		reads := 0
		rec, how, err := s.LatestForProject("/home/dev/src/app-desk", func() handoff.Identity { reads++; return handoff.Identity{RootCommit: c.root} })
		var got handoff.ID
		if rec != nil {
			got = rec.ID
		}
		if err != nil || got != c.want || reads != 1 || (c.want != "" && how != MatchIdentity) {
			t.Errorf("root %s: %s (%v) %v, identity read %d times; want %s", c.root[:4], got, how, err, reads, c.want)
		}
	}
}

// TestIdentitiesMarker: the identities file, which lets a project with no
// handoff skip the search for imported ones, is there once an imported
// record carrying a project identity is listed, by a save or by a
// rebuild of the index from the records, and never before: a store of
// its own handoffs and identity-less imports reads no identity.
func TestIdentitiesMarker(t *testing.T) {
	s := newTestStore(t)
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	mustSave(t, s, mkRecord(t, t0, "codex", "app", "made here"))
	mustSave(t, s, imported(mkRecord(t, t0.Add(time.Minute), "codex", "old", "an import without identity"), t0))
	if may, err := s.mayHoldIdentities(); err != nil || may {
		t.Fatalf("before any import with an identity: %v %v", may, err)
	}
	laptop := fromMachine(mkRecord(t, t0.Add(time.Hour), "codex", "x", "made on the laptop"), "/Users/me/app", strings.Repeat("e", 40), "")
	mustSave(t, s, laptop)
	if may, err := s.mayHoldIdentities(); err != nil || !may {
		t.Fatalf("after one: %v %v", may, err)
	}
	// Gone (a store copied without it): the rebuild makes it again.
	if err := os.Remove(s.path(identitiesFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check(true); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.path(indexFile)); err != nil {
		t.Fatal(err)
	}
	mustSave(t, s, mkRecord(t, t0.Add(2*time.Hour), "codex", "app", "again"))
	if may, err := s.mayHoldIdentities(); err != nil || !may {
		t.Fatalf("after a rebuild from the records: %v %v", may, err)
	}
}

// With SetTrust, Get rechecks every record against the trust store as it
// is now: an import whose key is no longer trusted reads as not vouched
// for, and identity matching no longer takes it for the project.
func TestSetTrustRechecksOnRead(t *testing.T) {
	const root = "1111111111111111111111111111111111111111"
	s := newTestStore(t)
	r := fromMachine(mkRecord(t, time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC), "codex", "x", "from my laptop"), "/Users/me/app", root, "")
	mustSave(t, s, r)
	id := func() handoff.Identity { return handoff.Identity{RootCommit: root} }
	trusted := true
	s.SetTrust(func(fp, signer string) bool {
		return trusted && fp == r.Source.Import.Fingerprint && signer == r.Source.Import.Signer
	})
	if got, how, err := s.LatestForProject("/home/dev/src/app", id); err != nil || got == nil || how != MatchIdentity || !got.Source.Vouched() {
		t.Fatalf("while trusted: %v, %v, %v", got, how, err)
	}
	trusted = false
	got, err := s.Get(r.ID)
	if err != nil || got.Source.Vouched() || !got.Source.Import.Withdrawn {
		t.Fatalf("after the key's removal Get reads %+v, %v", got.Source.Import, err)
	}
	if got, how, err := s.LatestForProject("/home/dev/src/app", id); err != nil || got != nil || how != NoMatch {
		t.Fatalf("after the key's removal latest is %v, %v, %v", got, how, err)
	}
}

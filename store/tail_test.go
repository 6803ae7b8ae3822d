package store

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// writeIndex writes an index of the given events straight into the store
// directory: the tail reader is checked against the full reader on the same
// bytes, whatever the records say.
func writeIndex(t *testing.T, s *Store, body []byte) {
	t.Helper()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	data := append([]byte(indexHeader+"\n"), body...)
	if err := os.WriteFile(s.path(indexFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTailLatestAgreesWithFullRead: on random histories of saves, imports
// of older handoffs, replaced saves and removals, long enough that lines
// cross the chunks the backward reader reads, the last-entered match and
// the N newest matches are the same whether the index is read from its end
// or in full.
func TestTailLatestAgreesWithFullRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	projects := []string{"app", "lib", "tool", "site"}
	gaveUp := 0
	for round := range 8 {
		s := newTestStore(t)
		var body []byte
		var made []handoff.ID
		var greatest handoff.ID
		lastOf := map[string]handoff.ID{} // project → id of its last "+" line
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		events := 3000
		if round >= 6 {
			events = 8000 // past the backward scan's budget
		}
		for i := range events {
			switch k := rng.IntN(10); {
			case k < 6 || len(made) == 0:
				// A new record; some are older than those before (imports).
				at := t0.Add(time.Duration(rng.IntN(1_000_000)) * time.Second)
				r := mkRecord(t, at, "codex", projects[rng.IntN(len(projects))], "handoff "+strings.Repeat("x", rng.IntN(300)))
				ie := entryFromRecord(r)
				body, greatest = appendLine(body, &ie, greatest), max(greatest, ie.ID)
				made = append(made, r.ID)
				lastOf[r.Project.Name] = r.ID
			case k < 8:
				// The same id again, for another project (a replace).
				id := made[rng.IntN(len(made))]
				r := mkRecord(t, t0, "claude-code", projects[rng.IntN(len(projects))], "replaced")
				r.ID = id
				ie := entryFromRecord(r)
				body, greatest = appendLine(body, &ie, greatest), max(greatest, ie.ID)
				lastOf[r.Project.Name] = r.ID
			default:
				body = appendTombstone(body, made[rng.IntN(len(made))])
			}
			_ = i
		}
		// The newest line of app is superseded by a move to another
		// project, and site's newest is removed: an earlier line of the
		// same id must not count for them.
		moved := mkRecord(t, t0, "codex", "tool", "moved")
		moved.ID = lastOf["app"]
		ie := entryFromRecord(moved)
		body = appendLine(body, &ie, greatest)
		body = appendTombstone(body, lastOf["site"])
		if round%2 == 1 {
			body = append(body, "+\t01JGM1B2C3"...) // a torn append
		}
		writeIndex(t, s, body)
		for _, f := range []Filter{{}, {Project: "app"}, {Project: "site"}, {Tool: "claude-code"}, {Project: "none"}, {Query: "replaced"}} {
			m, err := newMatcher(f)
			if err != nil {
				t.Fatal(err)
			}
			tail, err := s.tailLatest(m)
			if errors.Is(err, errTailGaveUp) {
				gaveUp++
				continue
			}
			if err != nil {
				t.Fatalf("round %d %+v: tail: %v", round, f, err)
			}
			full, err := s.latestEntriesFull(m)
			if err != nil {
				t.Fatalf("round %d %+v: full: %v", round, f, err)
			}
			for _, limit := range []int{1, 3, 20, 200} {
				lm, _ := newMatcher(Filter{Tool: f.Tool, Project: f.Project, Query: f.Query, Limit: limit})
				full, err := s.listFull(lm)
				if err != nil {
					t.Fatalf("round %d %+v: listFull: %v", round, f, err)
				}
				tail, err := s.tailNewest(lm)
				if errors.Is(err, errTailGaveUp) {
					gaveUp++
					continue
				}
				if err != nil || !sameIDs(tail, full) {
					t.Fatalf("round %d %+v limit %d: tail %v %v, full %v", round, f, limit, ids(tail), err, ids(full))
				}
			}
			if both, err := s.latestEntries(m); err != nil || (both[0] == nil) != (full[0] == nil) || both[0] != nil && both[0].ID != full[0].ID {
				t.Fatalf("round %d %+v: latestEntries %v %v, full %v", round, f, both[0], err, full[0])
			}
			switch {
			case full[0] == nil && tail[0] == nil:
			case full[0] != nil && tail[0] != nil && tail[0].ID == full[0].ID && tail[0].ProjectName == full[0].ProjectName:
			default:
				t.Fatalf("round %d %+v: tail %v, full %v", round, f, tail[0], full)
			}
		}
	}
	if gaveUp == 0 {
		t.Error("no search went past the backward scan's budget")
	}
}

// TestTailLatestDamageFallsBack: a damaged line the backward read meets
// makes it give way to the full read, which rebuilds the index from the
// records, so latest is still right.
func TestTailLatestDamageFallsBack(t *testing.T) {
	s := newTestStore(t)
	a := mkRecord(t, baseTime, "codex", "app", "first")
	b := mkRecord(t, baseTime.Add(time.Hour), "codex", "app", "second")
	mustSave(t, s, a)
	mustSave(t, s, b)
	data, err := os.ReadFile(s.path(indexFile))
	if err != nil {
		t.Fatal(err)
	}
	writeIndex(t, s, append(data[len(indexHeader)+1:], "garbage line\n"...))
	m, _ := newMatcher(Filter{})
	if _, err := s.tailLatest(m); err == nil {
		t.Fatal("the damaged line was not noticed")
	}
	got := mustList(t, s, Filter{Latest: true})
	if len(got) != 1 || got[0].ID != b.ID {
		t.Fatalf("latest after damage: %v", got)
	}
	if rec, _, err := s.LatestForProject("/home/dev/src/app", nil); err != nil || rec == nil || rec.ID != b.ID {
		t.Fatalf("LatestForProject after damage: %v %v", rec, err)
	}
}

func sameIDs(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].ProjectName != b[i].ProjectName {
			return false
		}
	}
	return true
}

// TestOlderIndexIsRebuiltSilently: an index of version 1 (no "*" lines, no
// promise of order) or 2 (no project identity) is rebuilt on first use,
// without a warning, in its entry order.
func TestOlderIndexIsRebuiltSilently(t *testing.T) {
	for _, header := range olderIndexHeaders {
		t.Run(header, func(t *testing.T) {
			s := newTestStore(t)
			var warned []error
			s.SetWarn(func(err error) { warned = append(warned, err) })
			a := mkRecord(t, baseTime, "codex", "app", "first")
			b := mkRecord(t, baseTime.Add(time.Hour), "codex", "app", "second")
			mustSave(t, s, b)
			mustSave(t, s, a) // an older id after a newer: "*" in version 2
			old := []byte(header + "\n")
			for _, r := range []*handoff.Record{b, a} {
				ie := entryFromRecord(r)
				line := appendLine(nil, &ie, "")
				// Without this version's two identity fields.
				f := bytes.Split(line, []byte{'\t'})
				f = append(f[:fRootCommit:fRootCommit], f[fTags:]...)
				old = append(old, bytes.Join(f, []byte{'\t'})...)
			}
			if err := os.WriteFile(s.path(indexFile), old, 0o600); err != nil {
				t.Fatal(err)
			}
			// Its lines are in entry order, which the rebuild keeps.
			if got := mustList(t, s, Filter{}); len(got) != 2 || got[0].ID != a.ID {
				t.Fatalf("list over an older index: %v, want %s (entered last) first", ids(got), a.ID)
			}
			mustSave(t, s, mkRecord(t, baseTime.Add(2*time.Hour), "codex", "app", "third"))
			data, _ := os.ReadFile(s.path(indexFile))
			if !strings.HasPrefix(string(data), indexHeader+"\n") {
				t.Fatalf("index not rebuilt: %q", data)
			}
			if len(warned) > 0 {
				t.Fatalf("warned: %v", warned)
			}
		})
	}
}

// TestSaveAfterDamagedIndexEnd: a damaged last record line of the index,
// which a save reads to mark its own line, makes the save rebuild the
// index and go on, not fail.
func TestSaveAfterDamagedIndexEnd(t *testing.T) {
	s := newTestStore(t)
	a := mkRecord(t, baseTime, "codex", "app", "first")
	mustSave(t, s, a)
	appendFile(t, s.path(indexFile), "+\t0000000000000000000000000!\tjunk\n")
	b := mkRecord(t, baseTime.Add(time.Hour), "codex", "app", "second")
	mustSave(t, s, b)
	if got := mustList(t, s, Filter{}); len(got) != 2 || got[0].ID != b.ID {
		t.Fatalf("after the save: %v", ids(got))
	}
	data, _ := os.ReadFile(s.path(indexFile))
	if strings.Contains(string(data), "junk") {
		t.Fatalf("the damaged line is still there:\n%s", data)
	}
}

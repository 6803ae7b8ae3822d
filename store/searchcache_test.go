package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// searchTruth is what Search must answer: the live records, newest first,
// whose text holds q, read from the record files themselves.
func searchTruth(t *testing.T, s *Store, q string) []string {
	t.Helper()
	var out []string
	for _, e := range mustList(t, s, Filter{Limit: 0}) {
		r, err := s.Get(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.ContainsText(q) || e.Matches(q) {
			out = append(out, string(e.ID))
		}
	}
	return out
}

// TestSearchCacheAgreesWithRecords: through saves, replaced records with
// new text, removals, a text longer than a cache line keeps, a damaged
// line and a torn append, the cached search answers as reading every
// record would.
func TestSearchCacheAgreesWithRecords(t *testing.T) {
	s := newTestStore(t)
	rng := rand.New(rand.NewPCG(7, 9))
	words := []string{"zebra", "okapi", "lynx", "ibis", "newt"}
	var saved []*handoff.Record
	at := time.Now().Add(-10 * time.Hour)
	for i := range 120 {
		switch k := rng.IntN(10); {
		case k < 6 || len(saved) == 0:
			r := mkRecord(t, at.Add(time.Duration(i)*time.Minute), "codex", "app", fmt.Sprintf("record %d", i))
			r.NextSteps = []string{"look at the " + words[rng.IntN(len(words))]}
			if rng.IntN(15) == 0 {
				// Past searchCap: the line is cut and the word after it
				// is only in the record.
				r.Summary = strings.Repeat("filler ", searchCap/7+10)
				r.Decisions = []string{"the " + words[rng.IntN(len(words))] + " decision"}
			}
			mustSave(t, s, r)
			saved = append(saved, r)
		case k < 8:
			r := saved[rng.IntN(len(saved))]
			r.OpenQuestions = []string{"what of the " + words[rng.IntN(len(words))] + "?"}
			r.NextSteps = nil
			if _, err := s.Put(r, true); err != nil {
				t.Fatal(err)
			}
		default:
			r := saved[rng.IntN(len(saved))]
			if err := s.Remove(r.ID); err != nil && !strings.Contains(err.Error(), "not found") {
				t.Fatal(err)
			}
		}
	}
	check := func(when string) {
		t.Helper()
		for _, q := range append(words, "filler", "record 1", "giraffe") {
			got := ids(mustSearch(t, s, Filter{Query: q, Limit: 0}))
			want := searchTruth(t, s, q)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("%s, %q:\ngot  %v\nwant %v", when, q, got, want)
			}
		}
	}
	check("after the history")

	// A damaged line: its record is read instead.
	appendFile(t, s.path(searchFile), "not a line\n"+string(saved[0].ID)+"\t?\tzebra\n")
	check("after damaged lines")

	// A torn append, then a save: the save's line is not glued to it.
	live := mustList(t, s, Filter{Limit: 1})[0].ID
	appendFile(t, s.path(searchFile), string(live)+"\t=\ta giraffe, torn")
	r := mkRecord(t, at.Add(200*time.Minute), "codex", "app", "after the tear")
	r.NextSteps = []string{"find the ibis"}
	mustSave(t, s, r)
	check("after a torn append")
	if got := ids(mustSearch(t, s, Filter{Query: "ibis"})); len(got) == 0 || got[0] != string(r.ID) {
		t.Fatalf("the save after the tear is not found: %v", got)
	}

	// A missing cache is rebuilt by the next search.
	if err := os.Remove(s.path(searchFile)); err != nil {
		t.Fatal(err)
	}
	check("after the cache was removed")
	if _, err := os.Stat(s.path(searchFile)); err != nil {
		t.Fatalf("the cache was not rebuilt: %v", err)
	}
}

// TestSearchLatestIsLastEntered: with --latest, a search answers as list
// does, the match that entered the store last, not the newest by date.
func TestSearchLatestIsLastEntered(t *testing.T) {
	s := newTestStore(t)
	newer := mkRecord(t, baseTime.Add(time.Hour), "codex", "app", "newer")
	newer.NextSteps = []string{"feed the okapi"}
	older := mkRecord(t, baseTime, "codex", "app", "older, imported later")
	older.NextSteps = []string{"feed the okapi"}
	mustSave(t, s, newer)
	mustSave(t, s, older)
	got := mustSearch(t, s, Filter{Query: "okapi", Latest: true})
	if len(got) != 1 || got[0].ID != older.ID {
		t.Fatalf("latest okapi: %v, want the one saved last (%s)", ids(got), older.ID)
	}
	if all := mustSearch(t, s, Filter{Query: "okapi"}); len(all) != 2 || all[0].ID != older.ID {
		t.Fatalf("all: %v", ids(all))
	}
}

// TestSearchStatesLookup: whatever the order of the lookups and of the
// cache's lines, each id gets the state of its last line, and an id with
// no line gets none, as a map of the lines, the last winning, would say.
func TestSearchStatesLookup(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	for round := range 300 {
		var ss searchStates
		want := map[[2]uint64]byte{}
		ids := 1 + rng.IntN(12)
		for range rng.IntN(30) {
			id := [2]uint64{0, uint64(rng.IntN(ids))}
			st := byte(rng.IntN(3))
			ss.add(id, st)
			want[id] = st
		}
		ss.next = len(ss.ids) - 1
		order := rng.Perm(ids + 2) // some ids have no line
		if round%3 == 0 {
			slices.Reverse(order) // the cache's own order, mostly
		}
		for _, k := range order {
			id := [2]uint64{0, uint64(k)}
			st, has := ss.lookup(id)
			w, wantHas := want[id]
			if has != wantHas || st != w {
				t.Fatalf("round %d: id %d: (%d, %v), want (%d, %v)", round, k, st, has, w, wantHas)
			}
		}
	}
}

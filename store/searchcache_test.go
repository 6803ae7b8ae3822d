package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
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

// TestSearchCacheLastLineWins: of two cache lines for one id, the later
// decides, whichever says the query is there.
func TestSearchCacheLastLineWins(t *testing.T) {
	for _, laterHolds := range []bool{true, false} {
		s := newTestStore(t)
		r := mkRecord(t, baseTime, "codex", "app", "plain")
		r.NextSteps = []string{"feed the okapi"}
		mustSave(t, s, r)
		later := *r
		later.NextSteps = []string{"feed the zebra"}
		if laterHolds {
			// The record says okapi; a cache whose lines say zebra, then
			// okapi, must find it: a first-line-wins reader would not.
			first := *r
			first.NextSteps = []string{"feed the zebra"}
			later = *r
			if err := appendSynced(s.path(searchFile), "search cache", appendSearchLine(appendSearchLine(nil, &first), &later), false); err != nil {
				t.Fatal(err)
			}
		} else {
			// A later line without okapi (as a replaced record's would be)
			// is believed: the search does not find it.
			if err := appendSynced(s.path(searchFile), "search cache", appendSearchLine(nil, &later), false); err != nil {
				t.Fatal(err)
			}
		}
		got := mustSearch(t, s, Filter{Query: "okapi"})
		if found := len(got) == 1; found != laterHolds {
			t.Errorf("later line holds okapi = %v: found %v", laterHolds, ids(got))
		}
	}
}

// TestSearchMemoryIsFlat: a search reads the index and the cache in
// chunks; what it allocates does not grow with the store (issue 49: the
// index was read whole, 24 MB at 100,000 handoffs).
func TestSearchMemoryIsFlat(t *testing.T) {
	s := newTestStore(t)
	err := s.Batch(func(b *Batch) error {
		for i := range 800 {
			r := mkRecord(t, baseTime.Add(time.Duration(i)*time.Second), "codex", "app", fmt.Sprintf("handoff %d %s", i, strings.Repeat("words ", 25)))
			r.Summary = strings.Repeat("summary ", 40)
			r.Project.Path = "/src/" + strings.Repeat("deep/", 300) + "app"
			if _, err := b.Put(r, false); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(s.path(indexFile))
	if err != nil {
		t.Fatal(err)
	}
	mustSearch(t, s, Filter{Query: "no such words"}) // the cache is made
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if got := mustSearch(t, s, Filter{Query: "no such words"}); len(got) != 0 {
		t.Fatalf("found %v", ids(got))
	}
	runtime.ReadMemStats(&after)
	// The index's lineRefs (32 bytes a line) and two chunks are allowed;
	// the index's own bytes are not.
	if alloc, index := after.TotalAlloc-before.TotalAlloc, uint64(st.Size()); alloc > index/2 {
		t.Errorf("a search allocated %d bytes for an index of %d", alloc, index)
	}
}

// TestCompactAsYouGo: the same record replaced 300 times, with a text of
// 8 KB, leaves an index and a search cache within about twice what is
// live (plus the floors), not 300 lines of each; what the store answers
// is unchanged, and it is compacted without a store check (issue 49:
// 6.56 MB for one record captured 200 times).
func TestCompactAsYouGo(t *testing.T) {
	defer func(i, s int64) { compactIndexFloor, compactSearchFloor = i, s }(compactIndexFloor, compactSearchFloor)
	compactIndexFloor, compactSearchFloor = 4<<10, 16<<10
	s := newTestStore(t)
	other := mkRecord(t, baseTime, "codex", "app", "another handoff")
	mustSave(t, s, other)
	r := mkRecord(t, baseTime.Add(time.Hour), "claude-code", "app", "captured again and again")
	for i := range 300 {
		r.Summary = fmt.Sprintf("capture %d %s", i, strings.Repeat("okapi ", 1300))
		if _, err := s.Put(r, true); err != nil {
			t.Fatal(err)
		}
	}
	index, search := fileSize(s.path(indexFile)), fileSize(s.path(searchFile))
	if index > 2*2*1024+compactIndexFloor*2 {
		t.Errorf("index is %d bytes for two records", index)
	}
	if search > 2*(2*8<<10)+compactSearchFloor*2 {
		t.Errorf("search cache is %d bytes for two records", search)
	}
	if got := ids(mustList(t, s, Filter{})); !slices.Equal(got, []string{string(r.ID), string(other.ID)}) {
		t.Errorf("list after compaction: %v", got)
	}
	if got := ids(mustSearch(t, s, Filter{Query: "capture 299"})); !slices.Equal(got, []string{string(r.ID)}) {
		t.Errorf("search for the last text: %v", got)
	}
	if got := mustSearch(t, s, Filter{Query: "capture 298 "}); len(got) != 0 {
		t.Errorf("search for an earlier text: %v", ids(got))
	}
	assertConsistent(t, s)
}

// TestSearchRecoversFromADamagedIndexField: a line whose shape is right
// but whose field does not decode (an unknown escape) is damage, as the
// full read says: the search rebuilds the index and answers from it,
// with a filter that reads the field and without one.
func TestSearchRecoversFromADamagedIndexField(t *testing.T) {
	for _, f := range []Filter{{Query: "okapi"}, {Query: "okapi", Tool: "codex"}} {
		s := newTestStore(t)
		r := mkRecord(t, baseTime, "codex", "app", "plain title")
		r.NextSteps = []string{"feed the okapi"}
		mustSave(t, s, r)
		mustSave(t, s, mkRecord(t, baseTime.Add(time.Hour), "codex", "app", "another"))
		mustSearch(t, s, f) // the search cache is made
		data, err := os.ReadFile(s.path(indexFile))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if strings.Contains(l, string(r.ID)) {
				fields := strings.Split(l, "\t")
				fields[fTool], fields[fTitle] = `co\qdex`, `plain\qtitle`
				lines[i] = strings.Join(fields, "\t")
			}
		}
		if err := os.WriteFile(s.path(indexFile), []byte(strings.Join(lines, "\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := s.Search(f)
		if err != nil || len(got) != 1 || got[0].ID != r.ID {
			t.Fatalf("%+v: %v, %v; want %s", f, ids(got), err, r.ID)
		}
	}
}

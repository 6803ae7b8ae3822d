package store

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// imported makes r look as import stores it: kind import, imported at.
func imported(r *handoff.Record, at time.Time) *handoff.Record {
	r.Source = handoff.Source{Kind: handoff.SourceImport, Import: &handoff.Provenance{
		BundleID: strings.Repeat("0", 32), ImportedAt: at.UTC().Truncate(time.Millisecond), Verification: "verified",
		Signer: "alice@test", Fingerprint: "SHA256:" + strings.Repeat("A", 43)}}
	return r
}

// entryOrder is the order of the index's live lines, first entered first.
func entryOrder(t *testing.T, s *Store) []handoff.ID {
	t.Helper()
	var out []handoff.ID
	err := s.withIndex(func(ix *parsedIndex) error {
		live := slices.Clone(ix.live)
		slices.SortFunc(live, func(a, b lineRef) int { return int(a.off) - int(b.off) })
		out = out[:0]
		for _, r := range live {
			out = append(out, handoff.ID(ix.buf[r.off+2:r.off+2+handoff.IDLength]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// saveAndImport saves a record, imports one under an id of tomorrow
// (within the skew import allows) and one under an id of last year, then
// saves another, and returns their ids in that order, the entry order.
func saveAndImport(t *testing.T, s *Store, now time.Time) []handoff.ID {
	t.Helper()
	recs := []*handoff.Record{
		mkRecord(t, now, "codex", "app", "saved first"),
		imported(mkRecord(t, now.Add(20*time.Hour), "codex", "app", "imported, id of tomorrow"), now.Add(time.Minute)),
		imported(mkRecord(t, now.AddDate(-1, 0, 0), "codex", "app", "imported, id of last year"), now.Add(2*time.Minute)),
		mkRecord(t, now.Add(3*time.Minute), "codex", "app", "saved last"),
	}
	var out []handoff.ID
	for _, r := range recs {
		mustSave(t, s, r)
		out = append(out, r.ID)
	}
	return out
}

func latestID(t *testing.T, s *Store) handoff.ID {
	t.Helper()
	es, err := s.List(Filter{Latest: true})
	if err != nil || len(es) != 1 {
		t.Fatalf("latest: %v %v", es, err)
	}
	return es[0].ID
}

// Entry order belongs to this store, not to the ids senders choose: an
// index rebuilt from the record files (a damaged line, a damaged header,
// store check, or no index at all) keeps the order in which the
// records entered, so an import whose id is newer than a later local save
// does not become latest over it.
func TestRebuildKeepsEntryOrder(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for _, damage := range []struct {
		name string
		do   func(t *testing.T, s *Store)
	}{
		{"damaged line", func(t *testing.T, s *Store) {
			appendFile(t, indexPath(s), "garbage\tline\n")
		}},
		{"damaged header", func(t *testing.T, s *Store) {
			data, err := os.ReadFile(s.path(indexFile))
			if err != nil {
				t.Fatal(err)
			}
			data[0] = 'S'
			if err := os.WriteFile(s.path(indexFile), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"store check of a stale index", func(t *testing.T, s *Store) {
			// A line for a record that is not there: stale.
			ghost := entryFromRecord(mkRecord(t, now, "codex", "app", "not stored"))
			appendFile(t, indexPath(s), string(appendLine(nil, &ghost, unknownGreatest)))
			rep, err := s.Check(true)
			if err != nil || !rep.IndexRebuilt {
				t.Fatalf("check: %+v, %v", rep, err)
			}
		}},
		{"no index", func(t *testing.T, s *Store) {
			if err := os.Remove(s.path(indexFile)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(damage.name, func(t *testing.T) {
			s := newTestStore(t)
			want := saveAndImport(t, s, now)
			local := want[3]
			if got := entryOrder(t, s); !slices.Equal(got, want) {
				t.Fatalf("entry order before: %v, want %v", got, want)
			}
			damage.do(t, s)
			if got := latestID(t, s); got != local {
				t.Errorf("latest after the rebuild is %s, want the last local save %s", got, local)
			}
			if got := entryOrder(t, s); !slices.Equal(got, want) {
				t.Errorf("entry order after the rebuild: %v, want %v", got, want)
			}
		})
	}
}

// A local save of a record dated last year entered last: it stays latest
// through a rebuild, as the index that is rebuilt says.
func TestRebuildKeepsTheIndexOrderOverDates(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	s := newTestStore(t)
	a := mkRecord(t, now, "codex", "app", "today")
	mustSave(t, s, a)
	old := mkRecord(t, now.AddDate(-1, 0, 0), "codex", "app", "made last year, saved now")
	mustSave(t, s, old)
	appendFile(t, indexPath(s), "garbage\n")
	if got := latestID(t, s); got != old.ID {
		t.Errorf("latest after the rebuild is %s, want %s", got, old.ID)
	}
}

// list orders by entry too, newest first: an import under an id of
// tomorrow does not stay above a later local save, read from the end of
// the index (a limit) or in full, with or without a query.
func TestListIsInEntryOrder(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	s := newTestStore(t)
	var want []string
	for _, id := range slices.Backward(saveAndImport(t, s, now)) {
		want = append(want, string(id))
	}
	for _, f := range []Filter{{}, {Limit: 3}, {Limit: 10}, {Project: "app"}, {Query: "saved"}, {Query: "summary of", Limit: 3}} {
		es, err := s.Search(f)
		if err != nil {
			t.Fatal(err)
		}
		w := want
		if f.Query == "saved" {
			w = []string{want[0], want[3]}
		}
		if f.Limit > 0 && len(w) > f.Limit {
			w = w[:f.Limit]
		}
		if got := ids(es); !slices.Equal(got, w) {
			t.Errorf("%+v: %v, want %v", f, got, w)
		}
	}
}

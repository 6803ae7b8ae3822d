package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// Search finds text in every field, which List's index does not hold:
// next steps, decisions, questions, files, a summary past its first 200
// bytes; ignoring case; with the other filters and the limit applied.
func TestSearchEveryTextField(t *testing.T) {
	s := newTestStore(t)
	at := time.Now().Add(-time.Hour)
	mk := func(i int, tool string, set func(r *handoff.Record)) *handoff.Record {
		r := mkRecord(t, at.Add(time.Duration(i)*time.Minute), tool, "app", fmt.Sprintf("record %d", i))
		set(r)
		mustSave(t, s, r)
		return r
	}
	next := mk(0, "codex", func(r *handoff.Record) { r.NextSteps = []string{"Ask about ZEBRA rollout"} })
	dec := mk(1, "codex", func(r *handoff.Record) { r.Decisions = []string{"keep the zebra cache"} })
	q := mk(2, "gemini", func(r *handoff.Record) { r.OpenQuestions = []string{"Zebra or okapi?"} })
	files := mk(3, "codex", func(r *handoff.Record) { r.Files = []handoff.FileTouched{{Path: "zebra/stripes.go", Action: "edited"}} })
	long := mk(4, "codex", func(r *handoff.Record) { r.Summary = strings.Repeat("x", 300) + " zebra" })
	mk(5, "codex", func(r *handoff.Record) { r.Summary = "nothing to see" })
	title := mk(6, "codex", func(r *handoff.Record) { r.Title = "Zebra in the title" })

	got := ids(mustSearch(t, s, Filter{Query: "ZEBRA"}))
	want := []string{string(title.ID), string(long.ID), string(files.ID), string(q.ID), string(dec.ID), string(next.ID)}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if n := len(mustList(t, s, Filter{Query: "zebra"})); n != 1 {
		t.Fatalf("the index alone finds %d (the title); the test proves nothing otherwise", n)
	}
	if got := ids(mustSearch(t, s, Filter{Query: "zebra", Tool: "gemini"})); len(got) != 1 || got[0] != string(q.ID) {
		t.Fatalf("with --tool: %v", got)
	}
	if got := mustSearch(t, s, Filter{Query: "zebra", Limit: 2}); len(got) != 2 {
		t.Fatalf("limit: %d", len(got))
	}
	if got := mustSearch(t, s, Filter{Query: "zebra", Latest: true}); len(got) != 1 || got[0].ID != title.ID {
		t.Fatalf("latest: %v", got)
	}
	// Characters the JSON encoder escapes (<, &) and letters outside ASCII
	// are found too: the record file's bytes are not the text.
	esc := mk(7, "codex", func(r *handoff.Record) { r.NextSteps = []string{"Docs for <Token> & <Session>", "Überprüfen"} })
	for _, q := range []string{"<token> & <session>", "ÜBERPRÜFEN", "überprüfen"} {
		if got := mustSearch(t, s, Filter{Query: q}); len(got) != 1 || got[0].ID != esc.ID {
			t.Errorf("%q: %v", q, got)
		}
	}
	if got := mustSearch(t, s, Filter{Query: "giraffe"}); len(got) != 0 {
		t.Fatalf("miss: %v", got)
	}
}

func TestResolveLegacy(t *testing.T) {
	s := newTestStore(t)
	at := time.Date(2026, 3, 12, 10, 11, 12, 0, time.UTC)
	mk := func(old string, i int) handoff.ID {
		r := mkRecord(t, at.Add(time.Duration(i)*time.Millisecond), "codex", "app", "old "+old)
		r.Source = handoff.Source{Kind: handoff.SourceLegacy, LegacyID: old}
		mustSave(t, s, r)
		return r.ID
	}
	a := mk("20260312-101112", 0)
	b := mk("20260312-101112-002", 1)
	mk("20260313-090000", 2)
	for ref, want := range map[string]handoff.ID{"20260312-101112": a, "20260312-101112-002": b, "20260312-101112-0": b} {
		if got, err := s.ResolveLegacy(ref); err != nil || got != want {
			t.Errorf("%s: %s, %v; want %s", ref, got, err, want)
		}
	}
	var amb *AmbiguousError
	if _, err := s.ResolveLegacy("20260312"); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := s.ResolveLegacy("20250101"); !errors.Is(err, ErrNotFound) {
		t.Errorf("none: %v", err)
	}
	if es, err := s.ListLegacy(Filter{IDPrefix: "20260312", Limit: 1}); err != nil || len(es) != 1 || es[0].ID != b {
		t.Errorf("ListLegacy: %v, %v", es, err)
	}
}

func mustSearch(t testing.TB, s *Store, f Filter) []Entry {
	t.Helper()
	es, err := s.Search(f)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// BenchmarkSearch is list --query through every text field: a query that
// matches nothing reads every record (query-miss); one the index fields
// hold reads none (query-title).
func BenchmarkSearch(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			s := benchStore(b, "list", n)
			for _, c := range []struct {
				name string
				f    Filter
			}{
				{"query-miss", Filter{Query: "no such words"}},
				{"query-title-20", Filter{Query: "step", Limit: 20}},
			} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := s.Search(c.f); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

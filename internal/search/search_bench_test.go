package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// BenchmarkSearch measures a search in process, a frequent word, a
// phrase of two and a rarer word, top 20: over the index in
// $SEARCH_BENCH_INDEX when it is set (bench/search.sh with BENCH_KEEP=1
// keeps one: its $SESSION_HANDOFF_HOME/data/search-index), else over one
// of 6,000 generated documents in three segments.
//
//	go test ./internal/search -run '^$' -bench Search -benchmem
func BenchmarkSearch(b *testing.B) {
	dir := os.Getenv("SEARCH_BENCH_INDEX")
	if dir == "" {
		dir = b.TempDir()
		ix := Open(dir)
		rng := rand.New(rand.NewPCG(1, 2))
		words := strings.Fields("the a to of and in is it for on with that this as by error test build token refresh rotation cache client router config store migration schema index query latency retry backoff handler request response deadlock")
		for part := range 3 {
			var sources []Source
			for i := range 2000 {
				n := part*2000 + i
				var units []Unit
				for u := range 8 {
					var sb strings.Builder
					for range 120 {
						w := words[min(rng.IntN(len(words)), rng.IntN(len(words)))]
						if w == "deadlock" && rng.IntN(50) > 0 {
							w = "mutex"
						}
						sb.WriteString(w + " ")
					}
					units = append(units, Unit{Kind: Kind(1 + u%3), Text: sb.String()})
				}
				d := &Doc{Type: "session", Agent: "codex", ID: fmt.Sprint(n), Time: time.Unix(int64(1e9+n*60), 0), Units: units}
				sources = append(sources, Source{Key: fmt.Sprint("s:", n), Stamp: Stamp{Size: 1, MTime: int64(n)}, Load: func() (*Doc, error) { return d, nil }})
			}
			if _, err := ix.Update(sources, false, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	ix := Open(dir)
	for _, q := range []string{"refresh", `"token rotation"`, "deadlock"} {
		pq, err := ParseQuery(q)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.Trim(strings.ReplaceAll(q, " ", "_"), `"`), func(b *testing.B) {
			for b.Loop() {
				res, err := ix.Search(pq, Filter{}, 20)
				if err != nil || len(res.Hits) == 0 {
					b.Fatalf("%d hits, %v", len(res.Hits), err)
				}
			}
		})
	}
}

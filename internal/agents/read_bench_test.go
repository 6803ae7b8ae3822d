package agents_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// BenchmarkReaders reads, agent by agent, the sessions each agent's
// Find lists under the home directory READERS_BENCH_HOME (at most
// READERS_BENCH_SESSIONS of each, default 8), as the search index reads
// them: one op reads them all once, through the agent's reader. The home
// is only read; bench/gensessions writes one:
//
//	go run ./bench/gensessions -n 40 -kb 256 -home /tmp/h40
//	READERS_BENCH_HOME=/tmp/h40 go test -run '^$' -bench Readers -benchmem -count 6 ./internal/agents/
func BenchmarkReaders(b *testing.B) {
	home := os.Getenv("READERS_BENCH_HOME")
	if home == "" {
		b.Skip("READERS_BENCH_HOME names no home to read")
	}
	most := 8
	if n, err := strconv.Atoi(os.Getenv("READERS_BENCH_SESSIONS")); err == nil && n > 0 {
		most = n
	}
	none := func(string) string { return "" }
	for _, a := range agents.All() {
		b.Run(a.Name, func(b *testing.B) {
			infos, err := a.Transcripts.Find(a.SessionRoots(home, none))
			if err != nil {
				b.Fatal(err)
			}
			if len(infos) > most {
				infos = infos[:most]
			}
			if len(infos) == 0 {
				b.Skip("no sessions")
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range infos {
					if _, err := a.Transcripts.Read(s.Path, s.ID, transcript.Limits{}); err != nil {
						b.Fatalf("%s: %v", s.Path, err)
					}
				}
			}
			b.ReportMetric(float64(len(infos)), "sessions")
		})
	}
}

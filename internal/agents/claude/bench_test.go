package claude

import (
	"bytes"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcriptgen"
)

// benchData is a generated 10 MB transcript.
func benchData(b *testing.B) []byte {
	var buf bytes.Buffer
	if err := transcriptgen.New(10<<20, "/home/dev/src/app").Write(Name, &buf, 10<<20); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkRead reads a generated 10 MB transcript held in memory, both
// passes, without the file system (capture's BenchmarkCaptureClaude reads
// one from disk through the agents table).
//
//	go test -run '^$' -bench Read -count 5 ./internal/agents/claude/
func BenchmarkRead(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := readBytes(data, transcript.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if len(d.Files) == 0 || len(d.Session.Commands) == 0 || d.Stats.Malformed != 0 {
			b.Fatalf("unexpected digest: %d files, %d commands, stats %+v", len(d.Files), len(d.Session.Commands), d.Stats)
		}
	}
}

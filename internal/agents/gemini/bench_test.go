package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcriptgen"
)

// BenchmarkRead reads a generated recording of 10 MB (internal/transcriptgen,
// as capture's BenchmarkCaptureGemini does, without the capture around it).
func BenchmarkRead(b *testing.B) {
	const size = 10 << 20
	p := filepath.Join(b.TempDir(), "session.jsonl")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	err = transcriptgen.New(size, "/home/dev/src/app").Write(Name, f, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Transcripts{}).Read(p, "", transcript.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

package exchange

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/redact"
)

// BenchmarkExport measures the whole in-process part of an export with an
// attachment: the first pass (reading, redacting, SHA-256 and fingerprint),
// signing, and the second pass (reading again, replaying the redactions,
// tar, zstd, age), into io.Discard:
//
//	go test ./internal/exchange -run '^$' -bench Export -benchtime 3x
//
// secrets=0 streams the file itself in the second pass; secrets=1000
// replays 1000 replacements. It reports the bundle's size over the
// attachment's (ratio) and the secrets redacted.
func BenchmarkExport(b *testing.B) {
	alice := newParty(b, "alice")
	rec, err := handoff.New(time.Now(), "codex", "bench")
	if err != nil {
		b.Fatal(err)
	}
	rec.Project = handoff.Project{Path: "/p", Name: "p"}
	if err := alice.store.Save(rec); err != nil {
		b.Fatal(err)
	}
	r, _, err := crypto.ParseRecipient(alice.info.AgeRecipient)
	if err != nil {
		b.Fatal(err)
	}
	sk, err := alice.keys.SigningKey(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []int64{1 << 20, 64 << 20} {
		for _, secrets := range []int{0, 1000} {
			b.Run(fmt.Sprintf("MiB=%d/secrets=%d", size>>20, secrets), func(b *testing.B) {
				path := benchAttachment(b, size, secrets)
				b.SetBytes(size)
				var out countWriter
				var rep *redact.Report
				for b.Loop() {
					out, rep = countWriter{}, &redact.Report{}
					_, err := Export(context.Background(), &out, alice.store, rec, ExportOptions{
						SigningKey: sk, Attach: []string{path}, Redactor: redact.Default(), Report: rep,
						Recipients: []crypto.RecipientInfo{{Recipient: r, Canonical: alice.info.AgeRecipient}},
						Producer:   bundle.Producer{Name: "session-handoff", Version: "bench"},
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				if rep.Total() != secrets {
					b.Fatalf("redacted %d secrets, want %d", rep.Total(), secrets)
				}
				b.ReportMetric(float64(out.n)/float64(size), "ratio")
			})
		}
	}
}

// benchAttachment writes size bytes of source-like and JSONL-like lines,
// with secrets GitHub tokens spread evenly among them, to a file.
func benchAttachment(b *testing.B, size int64, secrets int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "attachment.log")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(7, 8))
	words := []string{"func", "return", "err", "nil", "if", "for", "range", "ctx", "reader", "writer",
		"the", "a", "to", "of", "and", "in", "is", "test", "build", "failed", "passed", "bundle"}
	every := int64(-1)
	if secrets > 0 {
		every = size / int64(secrets)
	}
	var n, next int64
	placed := 0
	line := make([]byte, 0, 512)
	for n < size {
		line = line[:0]
		if every > 0 && n >= next && placed < secrets && size-n > 128 {
			line = fmt.Appendf(line, "GITHUB_TOKEN=ghp_%036d\n", placed)
			placed++
			next += every
		} else {
			line = fmt.Appendf(line, `{"type":"tool_result","ts":%d,"text":"`, 1700000000+rng.IntN(1e6))
			for j := rng.IntN(30) + 5; j > 0; j-- {
				line = append(line, words[rng.IntN(len(words))]...)
				line = append(line, ' ')
			}
			line = append(line, "\"}\n"...)
		}
		if rem := size - n; int64(len(line)) > rem {
			line = line[:rem]
		}
		w.Write(line)
		n += int64(len(line))
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

var _ io.Writer = (*countWriter)(nil)

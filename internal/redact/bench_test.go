package redact

import (
	"bytes"
	"io"
	"sync"
	"testing"
)

var (
	benchOnce sync.Once
	benchData []byte
)

// benchCorpus is 16 MiB of transcript-like JSONL with a secret in about
// one tool result in 200.
func benchCorpus() []byte {
	benchOnce.Do(func() { benchData = transcriptCorpus(16<<20, 200, 42) })
	return benchData
}

// BenchmarkRedact measures Copy over transcript-like JSONL, the path an
// attachment takes: go test -run '^$' -bench Redact ./internal/redact/
func BenchmarkRedact(b *testing.B) {
	data := benchCorpus()
	r := Default()
	b.SetBytes(int64(len(data)))
	var rep Report
	for b.Loop() {
		rep = Report{}
		if err := r.Copy(io.Discard, bytes.NewReader(data), "bench", &rep); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rep.Total()), "secrets")
}

// BenchmarkReplay measures what the second pass of an export does with an
// attachment the first pass redacted: replay the recorded replacements
// over the same bytes (compare BenchmarkRedact, which finds them).
func BenchmarkReplay(b *testing.B) {
	data := benchCorpus()
	edits := NewEdits(1 << 20)
	if err := Default().CopyEdits(io.Discard, bytes.NewReader(data), "bench", nil, edits); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	buf := make([]byte, 256<<10)
	for b.Loop() {
		if _, err := io.CopyBuffer(io.Discard, edits.Replay(bytes.NewReader(data)), buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(edits.Len()), "edits")
}

// BenchmarkRedactString measures String over the same data in one piece.
func BenchmarkRedactString(b *testing.B) {
	data := string(benchCorpus())
	r := Default()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r.String(data, "bench", nil)
	}
}

// BenchmarkScan measures the prefilter alone.
func BenchmarkScan(b *testing.B) {
	data := benchCorpus()
	d := Default().d
	b.SetBytes(int64(len(data)))
	var hits []hit
	var sc [4][]hit
	for b.Loop() {
		hits = d.scan(data, hits[:0], &sc)
	}
	b.ReportMetric(float64(len(hits))/float64(len(data))*(1<<20), "hits/MiB")
}

// BenchmarkHostile measures inputs built to make rules rescan: long runs
// holding many triggers. None may be much slower than benign text.
func BenchmarkHostile(b *testing.B) {
	for _, c := range hostileInputs() {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				Default().Copy(io.Discard, bytes.NewReader(c.data), "", nil)
			}
		})
	}
}

type hostile struct {
	name string
	data []byte
}

func hostileInputs() []hostile {
	rep := func(s string) []byte { return bytes.Repeat([]byte(s), (1<<20)/len(s)) }
	return []hostile{
		{"eyJ", rep("eyJ-")},
		{"sk-", rep("sk-")},
		{"assign", rep("x_token=")},
		{"assign-quoted", rep(`a_token="b_token=\"`)},
		{"key-begin", rep("-----BEGIN PRIVATE KEY-----\n")},
		{"url", rep("a://b:c@")},
		{"backslashes", rep(`\\\\\\\\\\\\\\\\"password": "\\\"`)},
		{"bearer", rep("Bearer Bearer ")},
		{"names", rep("token_key_secret_password_")},
		{"AKIA", rep("AKIAAKIA")},
		{"ghp", rep("ghp_ghp_")},
		{"quotes", rep(`password="`)},
	}
}

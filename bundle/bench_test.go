package bundle

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// Benchmarks over one attachment of 1 MiB, 64 MiB and 256 MiB of mixed
// JSONL-like and source-like text, encrypted to an X25519 recipient:
//
//	go test ./bundle -run '^$' -bench 'Export|Import' -benchtime 1x
//
// Besides throughput they report peak-heap-MiB, the largest growth of the
// live heap over its level before the operation, sampled every
// millisecond: it must not grow with the attachment size.

var benchSizes = []struct {
	label string
	size  int64
}{{"1MiB", 1 << 20}, {"64MiB", 64 << 20}, {"256MiB", 256 << 20}}

// benchData writes size bytes of deterministic text to a file in dir.
func benchData(b *testing.B, dir string, size int64) string {
	b.Helper()
	path := filepath.Join(dir, "attachment.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"func", "return", "err", "nil", "if", "for", "range", "ctx", "bundle", "manifest",
		"reader", "writer", "limit", "zstd", "age", "tar", "sha256", "verify", "signature", "record",
		"the", "a", "to", "of", "and", "in", "is", "that", "it", "test", "build", "failed", "passed"}
	var n int64
	line := make([]byte, 0, 512)
	for n < size {
		line = line[:0]
		if rng.IntN(2) == 0 {
			line = fmt.Appendf(line, `{"type":"assistant","ts":%d,"id":"%016x","text":"`, 1700000000+rng.IntN(1e6), rng.Uint64())
			for j := rng.IntN(40) + 5; j > 0; j-- {
				line = append(line, words[rng.IntN(len(words))]...)
				line = append(line, ' ')
			}
			line = append(line, "\"}\n"...)
		} else {
			for j := rng.IntN(4); j > 0; j-- {
				line = append(line, '\t')
			}
			for j := rng.IntN(10) + 2; j > 0; j-- {
				line = append(line, words[rng.IntN(len(words))]...)
				if rng.IntN(5) == 0 {
					line = fmt.Appendf(line, "%d", rng.IntN(1000))
				}
				line = append(line, " ({},.:="[rng.IntN(8)])
			}
			line = append(line, '\n')
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

// heapPeak samples the live heap while it runs and reports the peak growth.
type heapPeak struct {
	base, peak atomic.Uint64
	stop       chan struct{}
	wg         sync.WaitGroup
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func readHeap() uint64 {
	s := make([]metrics.Sample, 1)
	copy(s, heapSample)
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startHeapPeak() *heapPeak {
	runtime.GC()
	h := &heapPeak{stop: make(chan struct{})}
	base := readHeap()
	h.base.Store(base)
	h.peak.Store(base)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				if v := readHeap(); v > h.peak.Load() {
					h.peak.Store(v)
				}
			}
		}
	}()
	return h
}

// growth stops sampling and returns the peak growth in MiB.
func (h *heapPeak) growth() float64 {
	if v := readHeap(); v > h.peak.Load() {
		h.peak.Store(v)
	}
	close(h.stop)
	h.wg.Wait()
	return float64(h.peak.Load()-h.base.Load()) / (1 << 20)
}

func benchBlobs(b *testing.B, dir string, size int64) []BlobSource {
	src, err := FileBlob(context.Background(), benchData(b, dir, size), "attachment.jsonl", "application/x-ndjson")
	if err != nil {
		b.Fatal(err)
	}
	return []BlobSource{src}
}

func BenchmarkExport(b *testing.B) {
	k := loadKeys(b)
	for _, s := range benchSizes {
		b.Run("size="+s.label, func(b *testing.B) {
			blobs := benchBlobs(b, b.TempDir(), s.size)
			opts := WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, Recipients: []crypto.RecipientInfo{k.recipient()}}
			b.SetBytes(s.size)
			var peak float64
			var out countWriter
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out = countWriter{}
				h := startHeapPeak()
				if err := Write(&out, testManifest(withAttachments(fixedRecord(), blobs)), blobs, opts); err != nil {
					b.Fatal(err)
				}
				peak = max(peak, h.growth())
			}
			b.ReportMetric(peak, "peak-heap-MiB")
			b.ReportMetric(float64(out.n)/float64(s.size), "ratio")
		})
	}
}

func BenchmarkImport(b *testing.B) {
	k := loadKeys(b)
	for _, s := range benchSizes {
		b.Run("size="+s.label, func(b *testing.B) {
			dir := b.TempDir()
			blobs := benchBlobs(b, dir, s.size)
			path := filepath.Join(dir, "b.handoff")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := Write(f, testManifest(withAttachments(fixedRecord(), blobs)), blobs, WriteOptions{
				SigningKeys: []*crypto.SigningKey{k.signer}, Recipients: []crypto.RecipientInfo{k.recipient()},
			}); err != nil {
				b.Fatal(err)
			}
			f.Close()
			testsys.Check(b, os.Remove(filepath.Join(dir, "attachment.jsonl")))
			opts := k.readOptions()
			b.SetBytes(s.size)
			var peak float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				blobDir := filepath.Join(dir, fmt.Sprintf("blobs-%d", i))
				if err := os.Mkdir(blobDir, 0o700); err != nil {
					b.Fatal(err)
				}
				opts.BlobDir = blobDir
				in, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				h := startHeapPeak()
				res, err := Read(in, opts)
				peak = max(peak, h.growth())
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				in.Close()
				if res.Verification.Status != StatusVerified {
					b.Fatal(res.Verification.Status)
				}
				testsys.Check(b, os.RemoveAll(blobDir))
				b.StartTimer()
			}
			b.ReportMetric(peak, "peak-heap-MiB")
		})
	}
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

var _ io.Writer = (*countWriter)(nil)

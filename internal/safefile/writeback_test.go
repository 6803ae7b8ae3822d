package safefile

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestWritebackWriter writes 20 MiB in uneven pieces across several
// writeback chunks: the file must hold exactly those bytes, and the
// writer must have started writeback for every whole chunk and no more.
func TestWritebackWriter(t *testing.T) {
	data := make([]byte, 20<<20+12345)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	path := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWritebackWriter(f)
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1+r.IntN(3<<20))
		if k, err := w.Write(rest[:n]); err != nil || k != n {
			t.Fatalf("Write = %d, %v", k, err)
		}
		rest = rest[n:]
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if w.started != 16<<20 {
		t.Fatalf("writeback started for %d bytes, want the two whole chunks (%d)", w.started, 16<<20)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatal("the file does not hold the bytes written")
	}
}

package bundle

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestAsyncWriter: the bytes arrive whole and in order whatever the sizes
// of the writes, and Close waits for them.
func TestAsyncWriter(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, 5*testAsyncSize+123)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	var out bytes.Buffer
	a := newAsyncWriter(&out, testAsyncSize)
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1+r.IntN(testAsyncSize*2))
		if k, err := a.Write(rest[:n]); k != n || err != nil {
			t.Fatalf("Write = %d, %v", k, err)
		}
		rest = rest[n:]
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("%d bytes arrived, want the %d written, in order", out.Len(), len(data))
	}
	if err := a.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// testAsyncSize is the buffer size the tests use.
const testAsyncSize = 256 << 10

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

var errDiskFull = errors.New("no space left on device")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestAsyncWriterError: the first error of the writer behind is returned
// by a later Write, long before the end of the stream, and by Close.
func TestAsyncWriterError(t *testing.T) {
	a := newAsyncWriter(&failAfter{n: testAsyncSize}, testAsyncSize)
	chunk := make([]byte, 64<<10)
	var err error
	writes := 0
	for ; writes < 10000 && err == nil; writes++ {
		_, err = a.Write(chunk)
	}
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("after %d writes: %v, want the writer's error", writes, err)
	}
	// What can be in flight: the buffers, 4 x 256 KiB, i.e. 16 writes of
	// 64 KiB, beyond the 4 that succeeded; the goroutine may lag a little.
	if writes > 64 {
		t.Fatalf("the error came only after %d writes", writes)
	}
	if err := a.Close(); !errors.Is(err, errDiskFull) {
		t.Fatalf("Close = %v, want the writer's error", err)
	}
}

// TestAsyncWriterShared: slices given to WriteShared arrive in order with
// what Write copied, uncopied, and Wait returns once no more than n of
// them are held, and with the writer's error.
func TestAsyncWriterShared(t *testing.T) {
	var out bytes.Buffer
	a := newAsyncWriter(&out, testAsyncSize)
	var want []byte
	bufs := [3][]byte{}
	for i := range 30 {
		b := &bufs[i%3]
		*b = bytes.Repeat([]byte{byte('a' + i%26)}, 1000+i)
		if err := a.WriteShared(*b); err != nil {
			t.Fatal(err)
		}
		want = append(want, *b...)
		copied := []byte{byte('0' + i%10)}
		a.Write(copied)
		copied[0] = 'X' // Write copied it
		want = append(want, byte('0'+i%10))
		// The slice written three writes ago may be reused now.
		if err := a.Wait(2); err != nil {
			t.Fatal(err)
		}
		a.mu.Lock()
		if a.held > 2 {
			t.Fatalf("Wait(2) returned with %d held", a.held)
		}
		a.mu.Unlock()
	}
	if err := a.Wait(0); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("%d bytes arrived, want the %d written, in order", out.Len(), len(want))
	}
	f := newAsyncWriter(&failAfter{n: 10}, testAsyncSize)
	f.WriteShared(make([]byte, 100))
	if err := f.Wait(0); !errors.Is(err, errDiskFull) {
		t.Fatalf("Wait after a failed write = %v, want the writer's error", err)
	}
	if err := f.WriteShared(make([]byte, 1)); !errors.Is(err, errDiskFull) {
		t.Fatalf("WriteShared after a failed write = %v, want the writer's error", err)
	}
	f.Close()
}

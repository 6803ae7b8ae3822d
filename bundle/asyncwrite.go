package bundle

import (
	"io"
	"sync/atomic"
)

// asyncWriter writes to w in a goroutine of its own, so that its writer
// (the archive stage, hashing as it copies) does not wait for the system
// calls: Write copies p into a buffer and returns. The first error of w is
// returned by the next Write after it happened, and by Close, which waits
// until everything written so far has reached w.
type asyncWriter struct {
	w      io.Writer
	full   chan []byte
	free   chan []byte
	done   chan struct{}
	failed atomic.Bool
	err    error // of w; read only after failed is set or done is closed
	cur    []byte
	closed bool
}

// asyncWriteDepth is how many buffers an asyncWriter has.
const asyncWriteDepth = 4

// newAsyncWriter starts an asyncWriter to w with buffers of size bytes.
func newAsyncWriter(w io.Writer, size int) *asyncWriter {
	a := &asyncWriter{
		w:    w,
		full: make(chan []byte, asyncWriteDepth),
		free: make(chan []byte, asyncWriteDepth),
		done: make(chan struct{}),
		cur:  make([]byte, 0, size),
	}
	for range asyncWriteDepth - 1 {
		a.free <- make([]byte, 0, size)
	}
	go a.run()
	return a
}

// run writes the buffers in order; after an error it only hands them back.
func (a *asyncWriter) run() {
	defer close(a.done)
	for b := range a.full {
		if !a.failed.Load() {
			if _, err := a.w.Write(b); err != nil {
				a.err = err
				a.failed.Store(true)
			}
		}
		a.free <- b[:0]
	}
}

// Write copies p for the goroutine to write.
func (a *asyncWriter) Write(p []byte) (int, error) {
	if a.failed.Load() {
		return 0, a.err
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(a.cur[len(a.cur):cap(a.cur)], p)
		a.cur = a.cur[:len(a.cur)+k]
		p = p[k:]
		if len(a.cur) == cap(a.cur) {
			a.full <- a.cur
			a.cur = <-a.free
		}
	}
	return n, nil
}

// Close writes what is left, waits for the goroutine and returns the first
// error of w. It may be called again and returns the same.
func (a *asyncWriter) Close() error {
	if !a.closed {
		a.closed = true
		if len(a.cur) > 0 {
			a.full <- a.cur
		}
		close(a.full)
		<-a.done
	}
	return a.err
}

package bundle

import (
	"io"
	"sync"
	"sync/atomic"
)

// asyncWriter writes to w in a goroutine of its own, so that its writer
// (the archive stage, hashing as it copies) does not wait for the system
// calls: Write copies p into a buffer and returns. WriteShared hands p
// itself to the goroutine instead, for a writer that keeps its buffers
// until Wait says they are free (redact.SharedWriter). The first error of
// w is returned by the next Write after it happened, and by Close, which
// waits until everything written so far has reached w.
type asyncWriter struct {
	w      io.Writer
	size   int
	full   chan asyncChunk
	free   chan []byte
	done   chan struct{}
	failed atomic.Bool
	err    error  // of w; read only after failed is set or done is closed
	cur    []byte // the buffer being filled, or nil
	made   int    // buffers made
	closed bool
	// held counts the slices of WriteShared not yet written to w.
	mu   sync.Mutex
	cond sync.Cond
	held int
}

// asyncChunk is one write for the goroutine: a buffer of the writer's
// own, or a slice of the caller's (shared).
type asyncChunk struct {
	b      []byte
	shared bool
}

// asyncWriteDepth is how many buffers an asyncWriter has.
const asyncWriteDepth = 4

// newAsyncWriter starts an asyncWriter to w with buffers of size bytes,
// made when Write first needs them.
func newAsyncWriter(w io.Writer, size int) *asyncWriter {
	a := &asyncWriter{
		w:    w,
		size: size,
		full: make(chan asyncChunk, asyncWriteDepth),
		free: make(chan []byte, asyncWriteDepth),
		done: make(chan struct{}),
	}
	a.cond.L = &a.mu
	go a.run()
	return a
}

// run writes the chunks in order; after an error it only hands them back.
func (a *asyncWriter) run() {
	defer close(a.done)
	for c := range a.full {
		if !a.failed.Load() {
			if _, err := a.w.Write(c.b); err != nil {
				a.err = err
				a.failed.Store(true)
			}
		}
		if c.shared {
			a.mu.Lock()
			a.held--
			a.cond.Broadcast()
			a.mu.Unlock()
		} else {
			a.free <- c.b[:0]
		}
	}
}

// Write copies p for the goroutine to write.
func (a *asyncWriter) Write(p []byte) (int, error) {
	if a.failed.Load() {
		return 0, a.err
	}
	n := len(p)
	for len(p) > 0 {
		if a.cur == nil {
			a.cur = a.buffer()
		}
		k := copy(a.cur[len(a.cur):cap(a.cur)], p)
		a.cur = a.cur[:len(a.cur)+k]
		p = p[k:]
		if len(a.cur) == cap(a.cur) {
			a.full <- asyncChunk{b: a.cur}
			a.cur = nil
		}
	}
	return n, nil
}

// buffer returns a free buffer, making one while fewer than
// asyncWriteDepth exist.
func (a *asyncWriter) buffer() []byte {
	select {
	case b := <-a.free:
		return b
	default:
	}
	if a.made < asyncWriteDepth {
		a.made++
		return make([]byte, 0, a.size)
	}
	return <-a.free
}

// WriteShared hands p to the goroutine without copying it; the caller
// must not change p until Wait says it is no longer held.
func (a *asyncWriter) WriteShared(p []byte) error {
	if a.failed.Load() {
		return a.err
	}
	if len(a.cur) > 0 {
		// What Write buffered goes first.
		a.full <- asyncChunk{b: a.cur}
		a.cur = nil
	}
	a.mu.Lock()
	a.held++
	a.mu.Unlock()
	a.full <- asyncChunk{b: p, shared: true}
	return nil
}

// Wait returns once at most n slices of WriteShared are held, with the
// writer's error if it failed.
func (a *asyncWriter) Wait(n int) error {
	a.mu.Lock()
	for a.held > n {
		a.cond.Wait()
	}
	a.mu.Unlock()
	if a.failed.Load() {
		return a.err
	}
	return nil
}

// Close writes what is left, waits for the goroutine and returns the first
// error of w. It may be called again and returns the same.
func (a *asyncWriter) Close() error {
	if !a.closed {
		a.closed = true
		if len(a.cur) > 0 {
			a.full <- asyncChunk{b: a.cur}
		}
		close(a.full)
		<-a.done
	}
	return a.err
}

package bundle

import (
	"errors"
	"io"
	"sync"
)

// readAhead reads its source in a goroutine of its own, up to depth
// buffers ahead of the consumer, so that a reader's layers work at the same
// time: decryption, decompression and hashing each on a core of their own.
//
// Errors stay in stream order: the goroutine's layers record their errors
// in a state of their own, and a layer error reaches the consumer's state
// (to, where it takes precedence over what higher layers make of it) only
// when the consumer has read every byte before it. So the error a Read
// reports does not depend on how far the goroutine happened to get.
type readAhead struct {
	to     *state
	full   chan chunk
	free   chan []byte
	done   chan struct{}
	exited chan struct{}
	stop   sync.Once

	cur chunk
	off int
	// size bounds the buffers; last is the size of the last one made.
	size, last int
}

// firstBuffer is the size of a readAhead's first buffer: each next one
// made is four times larger, up to its size, so that reading a small
// bundle allocates little.
const firstBuffer = 16 << 10

type chunk struct {
	b   []byte
	err error
}

// errStopped is what a stopped readAhead answers; no caller sees it, since
// it is stopped only once its consumer has finished.
var errStopped = errors.New("bundle: read-ahead stopped")

func newReadAhead(r io.Reader, to *state, size, depth int) *readAhead {
	ra := &readAhead{
		to:     to,
		full:   make(chan chunk, depth),
		free:   make(chan []byte, depth+1),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
		size:   size,
	}
	for range depth + 1 {
		ra.free <- nil // made when first needed
	}
	go ra.run(r)
	return ra
}

// run fills free buffers from r and hands them over in order, until r
// fails or ends, or the consumer stops it.
func (ra *readAhead) run(r io.Reader) {
	defer close(ra.exited)
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.done:
			return
		}
		if buf == nil {
			ra.last = min(max(ra.last*4, firstBuffer), ra.size)
			buf = make([]byte, ra.last)
		}
		n, err := io.ReadFull(r, buf)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF // a short last buffer: r ended cleanly
		}
		select {
		case ra.full <- chunk{buf[:n], err}:
		case <-ra.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read gives the consumer the bytes in order, then the error that ended
// them, again on every later call. A layer error (*Error) is recorded in
// the consumer's state at that moment, not before.
func (ra *readAhead) Read(p []byte) (int, error) {
	for ra.off >= len(ra.cur.b) {
		if ra.cur.err != nil {
			var be *Error
			if errors.As(ra.cur.err, &be) {
				ra.cur.err = ra.to.set(be)
			}
			return 0, ra.cur.err
		}
		if ra.cur.b != nil {
			ra.free <- ra.cur.b[:cap(ra.cur.b)]
			ra.cur.b = nil
		}
		select {
		case ra.cur = <-ra.full:
			ra.off = 0
		case <-ra.done:
			return 0, errStopped
		}
	}
	n := copy(p, ra.cur.b[ra.off:])
	ra.off += n
	return n, nil
}

// signal tells the goroutine to stop without waiting for it.
func (ra *readAhead) signal() { ra.stop.Do(func() { close(ra.done) }) }

// wait returns once the goroutine has stopped reading its source. Signal
// every readAhead of a chain before waiting for any, since one may be
// blocked reading another.
func (ra *readAhead) wait() { <-ra.exited }

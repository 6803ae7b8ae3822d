// Package ctxio makes long reads stop when their context is done, so that
// an interrupted command (Ctrl-C) ends promptly with its clean-up run,
// instead of reading a large file to its end first.
package ctxio

import (
	"context"
	"io"
)

// Reader returns a reader that reads r until ctx is done, and from then
// on fails with ctx's error (context.Canceled after an interrupt). Each
// Read of r completes: a read blocked on a pipe is not cut short.
func Reader(ctx context.Context, r io.Reader) io.Reader {
	return &reader{ctx: ctx, r: r}
}

type reader struct {
	ctx context.Context
	r   io.Reader
}

func (c *reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Do runs f and returns its result, or ctx's error as soon as ctx is done,
// whichever comes first. It is for work that cannot stop itself, such as
// a key derivation: once ctx is done the call returns at once while f
// runs to its end in a goroutine nobody waits for, its result dropped. f
// is not started when ctx is done already.
func Do[T any](ctx context.Context, f func() (T, error)) (T, error) {
	var zero T
	if ctx == nil {
		return f()
	}
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	if ctx.Done() == nil { // never cancelled: no goroutine needed
		return f()
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned f does not leak blocked
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

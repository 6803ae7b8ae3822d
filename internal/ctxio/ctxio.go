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

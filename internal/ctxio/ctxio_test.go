package ctxio

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReader reads through until the context is cancelled, then fails
// with the context's error on every read.
func TestReader(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Reader(ctx, strings.NewReader("abcdef"))
	buf := make([]byte, 2)
	if n, err := r.Read(buf); n != 2 || err != nil || string(buf) != "ab" {
		t.Fatalf("Read = %d, %v, %q", n, err, buf[:n])
	}
	cancel()
	for range 2 {
		if n, err := r.Read(buf); n != 0 || !errors.Is(err, context.Canceled) {
			t.Fatalf("after cancel: Read = %d, %v", n, err)
		}
	}
	if b, err := io.ReadAll(Reader(context.Background(), strings.NewReader("whole"))); err != nil || string(b) != "whole" {
		t.Fatalf("ReadAll = %q, %v", b, err)
	}
}

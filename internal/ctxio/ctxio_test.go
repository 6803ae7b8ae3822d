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

// Do returns once the context is done, though f is still running.
func TestDoReturnsWhenCancelledDuringTheWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	_, err := Do(ctx, func() (int, error) {
		cancel()  // the interrupt comes in the middle of the work,
		<-release // which does not stop for it
		return 1, nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Do: %v", err)
	}
	// Done already: f is not even started.
	started := false
	if _, err := Do(ctx, func() (int, error) { started = true; return 0, nil }); !errors.Is(err, context.Canceled) || started {
		t.Fatalf("Do on a done context: %v, started %v", err, started)
	}
	if v, err := Do(context.Background(), func() (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Fatalf("Do: %v %v", v, err)
	}
}

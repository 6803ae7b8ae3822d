package safefile

import "os"

// writebackChunk is how much a WritebackWriter lets accumulate before it
// asks the kernel to start writing it to disk.
const writebackChunk = 8 << 20

// WritebackWriter writes to a file and, every 8 MiB, asks the kernel to
// start writing the finished range to disk (sync_file_range on Linux; a
// no-op elsewhere). It does not wait for that writing and promises nothing
// about durability by itself: it only means that the Sync ending a large
// write waits for the last few megabytes instead of all of them.
type WritebackWriter struct {
	f       *os.File
	written int64 // bytes written through w
	started int64 // bytes whose writeback was started
}

// NewWritebackWriter returns a WritebackWriter that writes to f from its
// current offset, which must be 0.
func NewWritebackWriter(f *os.File) *WritebackWriter { return &WritebackWriter{f: f} }

// Write writes p to the file.
func (w *WritebackWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	if w.written-w.started >= writebackChunk {
		end := w.written - w.written%writebackChunk
		startWriteback(w.f, w.started, end-w.started)
		w.started = end
	}
	return n, err
}

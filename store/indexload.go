package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Loading the index, and rebuilding it from the records when it cannot
// be read (the queries on it are list.go's).

// indexBuffers are reused between loads of the index, which for a large
// store is tens of megabytes.
type indexBuffers struct {
	buf  []byte
	refs []lineRef
}

var bufPool = sync.Pool{New: func() any { return new(indexBuffers) }}

// release returns the index's buffers for reuse; ix must not be used after.
func (ix *parsedIndex) release() {
	if ix == nil || ix.pool == nil {
		return
	}
	ix.pool.buf, ix.pool.refs = ix.buf[:0], ix.refs[:0]
	bufPool.Put(ix.pool)
	ix.pool, ix.buf, ix.refs, ix.live = nil, nil, nil, nil
}

// withIndex calls fn with the loaded index. If the index is damaged (found
// while loading or by fn), it is rebuilt or, when a writer holds the lock,
// replaced by one made in memory from the record files, and fn runs again.
func (s *Store) withIndex(fn func(*parsedIndex) error) error {
	ix, err := s.loadIndex()
	if err == nil {
		err = fn(ix)
		ix.release()
		if !errors.Is(err, errCorruptIndex) {
			return err
		}
	} else if !errors.Is(err, errCorruptIndex) {
		return err
	}
	ix, err = s.recoverIndex(err)
	if err != nil {
		return err
	}
	defer ix.release()
	if err := fn(ix); err != nil {
		return fmt.Errorf("index made from the records: %w", err)
	}
	return nil
}

// loadIndex reads and parses the index. It wraps errCorruptIndex when the
// index must be rebuilt, including when it is missing beside records.
func (s *Store) loadIndex() (*parsedIndex, error) {
	if s.pendingActive() {
		s.tryRepair()
	}
	pb := bufPool.Get().(*indexBuffers)
	buf, err := readIndexFile(s.path(indexFile), pb.buf)
	if err != nil {
		bufPool.Put(pb)
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		has, err := s.hasRecords()
		if err != nil {
			return nil, err
		}
		if has {
			return nil, &indexError{Reason: "missing while records exist"}
		}
		return &parsedIndex{}, nil
	}
	ix, err := parseIndex(buf, pb.refs)
	ix.pool = pb
	if err != nil {
		ix.release()
		return nil, err
	}
	return ix, nil
}

// openIndexFile opens the index at path for reading and returns its size:
// a named pipe does not block the open, anything but a regular file is an
// error, and one larger than maxIndexSize an indexError. An index that
// does not exist gives an error wrapping fs.ErrNotExist.
func openIndexFile(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|safefile.OpenNonBlock, 0) // a named pipe must not block
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		err = safefile.Wrap("stat", path, err)
	case !st.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file", path)
	case st.Size() > maxIndexSize:
		err = &indexError{Reason: fmt.Sprintf("larger than %d bytes", maxIndexSize)}
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// readIndexFile reads the whole index into buf, reusing its capacity.
func readIndexFile(path string, buf []byte) ([]byte, error) {
	f, size, err := openIndexFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if int64(cap(buf)) < size {
		buf = make([]byte, size, size+size/8)
	}
	// Appends after the stat are not seen: the index is read as of then.
	n, err := f.ReadAt(buf[:size], 0)
	if err != nil && err != io.EOF {
		return nil, safefile.Wrap("read", path, err)
	}
	return buf[:n], nil
}

// hasRecords reports whether records/ holds anything but temporary files.
func (s *Store) hasRecords() (bool, error) {
	d, err := os.Open(filepath.Join(s.dir, recordsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open records: %w", err)
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(64)
		for _, n := range names {
			if !safefile.IsTemp(n) {
				return true, nil
			}
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("read records: %w", err)
		}
	}
}

// tryRepair reconciles a crashed writer's pending marker if no writer is
// live. Failure is not an error for a reader: it reads what is there.
func (s *Store) tryRepair() {
	w, err := s.tryLockWriter()
	if err != nil || w == nil {
		return
	}
	defer w.unlock()
	res, err := w.prepare("")
	if err != nil {
		s.warnf(fmt.Errorf("repair after an interrupted write: %w", err))
		return
	}
	s.warnRebuilt(res)
}

// recoverIndex is called when the index is damaged or missing (cause). With
// the lock free it rebuilds the index on disk; otherwise, or if that fails,
// it makes the index in memory from the record files and writes nothing.
func (s *Store) recoverIndex(cause error) (*parsedIndex, error) {
	var data []byte
	if w, err := s.tryLockWriter(); err == nil && w != nil {
		res, err := w.prepare(cause.Error())
		w.unlock()
		if err == nil {
			data = res.data
			s.warnRebuilt(res)
		} else {
			s.warnf(fmt.Errorf("rebuild index (%v): %w", cause, err))
		}
	}
	if data == nil {
		scan, err := s.scanRecords()
		if err != nil {
			return nil, err
		}
		for _, b := range scan.bad {
			s.warnf(fmt.Errorf("damaged record left out: %w", b.Err))
		}
		data = scan.indexBytes()
	}
	ix, err := parseIndex(data, nil)
	if err != nil {
		return nil, fmt.Errorf("index made from the records: %w", err)
	}
	return ix, nil
}

package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// The pending marker names the one write in progress, or none:
//
//	session-handoff-pending 1
//	put <ID> | remove <ID> | batch | idle
//
// A batch (Store.Batch) names no id: after a crash in one, the index is
// rebuilt from the records.
//
// padded with spaces before the final newline to pendingSize bytes, so
// that it can be overwritten in place with one small write.
const (
	pendingHeader = "session-handoff-pending 1"
	pendingIdle   = "idle"
	pendingSize   = 64
)

// Operations a pending marker can name.
const (
	opPut    = "put"
	opRemove = "remove"
)

// reasonMissing is why an index that does not exist is (re)built.
const reasonMissing = "index is missing"

// maxPendingSize bounds the read of a pending marker.
const maxPendingSize = 4 << 10

// pendingOp is a parsed pending marker.
type pendingOp struct {
	op string
	id handoff.ID
}

// writer is a holder of the store's write lock.
type writer struct {
	s    *Store
	lock *safefile.Lock
}

// lockWriter creates the store directory if needed and waits for the write
// lock. Only live writers hold it: the kernel drops a dead one's lock.
func (s *Store) lockWriter() (*writer, error) {
	if err := os.MkdirAll(s.dir, dirPerm); err != nil {
		return nil, fmt.Errorf("create store: %w", err)
	}
	l, err := safefile.LockFile(s.path(lockFile))
	if err != nil {
		return nil, fmt.Errorf("lock store %s: %w", s.dir, err)
	}
	return &writer{s: s, lock: l}, nil
}

// tryLockWriter takes the write lock if it is free; it returns (nil, nil)
// when another writer holds it. It never creates the store directory.
func (s *Store) tryLockWriter() (*writer, error) {
	l, err := safefile.TryLockFile(s.path(lockFile))
	if err != nil || l == nil {
		return nil, err
	}
	return &writer{s: s, lock: l}, nil
}

func (w *writer) unlock() { w.lock.Unlock() }

// prepResult says what prepare had to do.
type prepResult struct {
	pendingRepaired bool   // a marker left by a crashed writer was reconciled
	tornRemoved     bool   // a torn final index line was cut off
	rebuilt         bool   // the index was rebuilt from the records
	reason          string // why it was rebuilt
	scan            *scanResult
	data            []byte // the rebuilt index
}

// prepare puts the store in a state where one more event can be appended to
// the index: it reconciles a pending marker left by a crashed writer, cuts
// off a torn final index line, and rebuilds a missing or damaged index. It
// costs O(1) unless a rebuild is needed. A non-empty rebuild forces a
// rebuild for that reason. The caller holds the lock.
func (w *writer) prepare(rebuild string) (prepResult, error) {
	var res prepResult
	p, perr := w.readPending()
	if p != nil && p.op == opRemove {
		// Roll an interrupted removal forward.
		if err := safefile.Remove(w.s.recordPath(p.id)); err != nil {
			return res, fmt.Errorf("complete interrupted removal of %s: %w", p.id, err)
		}
	}
	reason, torn, err := w.checkIndex()
	if err != nil {
		return res, err
	}
	res.tornRemoved = torn
	if rebuild != "" {
		reason = rebuild
	}
	if reason == "" && perr != nil {
		reason = perr.Error()
	}
	if reason == "" && p != nil && p.op == opBatch {
		reason = reasonBatch
	}
	if reason != "" {
		scan, data, err := w.rebuild()
		if err != nil {
			return res, err
		}
		res.rebuilt, res.reason, res.scan, res.data = true, reason, scan, data
		if p != nil || perr != nil {
			if err := w.removePending(); err != nil {
				return res, err
			}
			res.pendingRepaired = true
		}
		return res, nil
	}
	if p == nil {
		return res, nil
	}
	line, err := w.reconcileLine(p)
	if err != nil {
		return res, err
	}
	if err := w.appendIndex(line); err != nil {
		return res, err
	}
	if err := w.removePending(); err != nil {
		return res, err
	}
	res.pendingRepaired = true
	return res, nil
}

// reconcileLine returns the index event that makes the index agree with the
// record file named by an interrupted operation, and appends that record's
// line to the search cache. Appending either is harmless even if the
// files already agree: the last line for an id wins.
func (w *writer) reconcileLine(p *pendingOp) ([]byte, error) {
	if p.op == opRemove {
		return appendTombstone(nil, p.id), nil
	}
	path := w.s.recordPath(p.id)
	data, err := readRegular(path, handoff.MaxRecordSz)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, safefile.ErrTooLarge), errors.Is(err, errNotRegular):
		return appendTombstone(nil, p.id), nil
	case err != nil:
		return nil, fmt.Errorf("reconcile interrupted write of %s: %w", path, err)
	}
	rec, err := decodeRecord(data)
	if err != nil || rec.ID != p.id {
		// A damaged record must not be listed; Check reports it.
		return appendTombstone(nil, p.id), nil
	}
	// The search cache first, as Put writes it.
	if err := w.appendSearch(appendSearchLine(nil, rec)); err != nil {
		return nil, err
	}
	ie := entryFromRecord(rec)
	greatest, err := w.greatestID()
	if errors.Is(err, errCorruptIndex) {
		// Damage found at the end: a "*" line promises nothing about
		// order, and the next reader rebuilds the index.
		greatest, err = unknownGreatest, nil
	}
	if err != nil {
		return nil, err
	}
	return appendLine(nil, &ie, greatest), nil
}

// checkIndex looks at the index's header and its last byte. It returns a
// reason when the index must be rebuilt, and cuts off a torn final line.
func (w *writer) checkIndex() (reason string, torn bool, err error) {
	path := w.s.path(indexFile)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return reasonMissing, false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("open index: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", false, safefile.Wrap("stat", path, err)
	}
	if !st.Mode().IsRegular() {
		return "", false, fmt.Errorf("%s is not a regular file", path)
	}
	size := st.Size()
	hdr := make([]byte, len(indexHeader)+1)
	if n, _ := f.ReadAt(hdr, 0); n < len(hdr) || string(hdr) != indexHeader+"\n" {
		return "index " + headerReason(bytes.TrimSuffix(hdr[:n], []byte("\n"))), false, nil
	}
	if size > maxIndexSize {
		return fmt.Sprintf("index is larger than %d bytes", maxIndexSize), false, nil
	}
	// The header ends in a newline, so a torn append is cut back to a
	// line at worst.
	torn, err = cutTorn(f, path, size)
	return "", torn, err
}

// cutTorn cuts a final line without its newline (an append torn by a
// crash) off f, the file at path of size bytes, and says whether there
// was one.
func cutTorn(f *os.File, path string, size int64) (bool, error) {
	if size == 0 {
		return false, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return false, safefile.Wrap("read", path, err)
	}
	if last[0] == '\n' {
		return false, nil
	}
	end, err := lastNewline(f, 0, size)
	if err != nil {
		return false, safefile.Wrap("read", path, err)
	}
	if err := f.Truncate(end); err != nil {
		return false, fmt.Errorf("cut torn line from %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return false, fmt.Errorf("sync %s: %w", path, err)
	}
	return true, nil
}

// appendIndex appends one event line with a single write and fsyncs it. A
// failed write is cut back off, so it does not leave a torn line.
func (w *writer) appendIndex(line []byte) error {
	if err := w.s.markIdentities(line); err != nil {
		return err
	}
	return appendSynced(w.s.path(indexFile), "index", line, false)
}

// appendSynced appends line to the file at path (what names it in an
// error) with a single write and fsyncs it; a failed write is cut back
// off. With cutFirst, a torn final line left by a crash is cut off before.
func appendSynced(path, what string, line []byte, cutFirst bool) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return safefile.Wrap("open", what, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return safefile.Wrap("stat", path, err)
	}
	size := st.Size()
	if cutFirst {
		torn, err := cutTorn(f, path, size)
		if err != nil {
			f.Close()
			return err
		}
		if torn {
			if st, err = f.Stat(); err != nil {
				f.Close()
				return safefile.Wrap("stat", path, err)
			}
			size = st.Size()
		}
	}
	if _, err := f.Write(line); err != nil {
		f.Truncate(size)
		f.Close()
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if err := syncFile(f); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}

// syncFile is how an appended line is made durable: f.Sync. Tests watch
// it (TestAppendsAreSynced).
var syncFile = (*os.File).Sync

// rebuild writes a fresh, compacted index from the record files. Damaged
// records are left out (Check reports them).
func (w *writer) rebuild() (*scanResult, []byte, error) {
	scan, err := w.s.scanRecords()
	if err != nil {
		return nil, nil, err
	}
	data := scan.indexBytes()
	// The search cache first: an index that is whole says the cache is
	// too (an interrupted rebuild is redone, the index being damaged).
	if err := w.s.writeSearch(scan); err != nil {
		return nil, nil, err
	}
	if err := w.s.markIdentities(data); err != nil {
		return nil, nil, err
	}
	if err := safefile.WriteFile(w.s.path(indexFile), data, filePerm); err != nil {
		return nil, nil, fmt.Errorf("write index: %w", err)
	}
	return scan, data, nil
}

// writePending records, durably, that op on id is about to happen. The
// marker is a small file overwritten in place: one write of pendingSize
// bytes and an fdatasync, which on most file systems costs a data flush
// rather than a journal commit. A write torn by a power cut is caught by
// parsePending and answered with a full rebuild.
func (w *writer) writePending(op string, id handoff.ID) error {
	if err := w.setPending(encodePending(op+" "+string(id)), true); err != nil {
		return fmt.Errorf("write pending marker: %w", err)
	}
	return nil
}

// removePending marks the marker idle once the index agrees with the
// records. This is not synced: if a power cut undoes it, the next writer
// reconciles the id again, which appends a redundant line and changes
// nothing; and a later operation's marker is synced, so an older one never
// comes back after it.
func (w *writer) removePending() error {
	if err := w.setPending(encodePending(pendingIdle), false); err != nil {
		return fmt.Errorf("clear pending marker: %w", err)
	}
	return nil
}

// clearPending is removePending on a failure path where nothing needs
// reconciling. If it fails too, the next writer reconciles harmlessly.
func (w *writer) clearPending() { _ = w.removePending() }

// setPending overwrites the marker with content, creating it (atomically
// and durably) the first time.
func (w *writer) setPending(content []byte, durable bool) error {
	path := w.s.path(pendingFile)
	f, err := openNoFollow(path, os.O_WRONLY)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !durable {
			return nil // nothing to clear
		}
		return safefile.WriteFile(path, content, filePerm)
	case isSymlinkErr(err):
		return safefile.WriteFile(path, content, filePerm) // replaces the link
	case err != nil:
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return err
	} else if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	} else if st.Size() > int64(len(content)) {
		if err := f.Truncate(int64(len(content))); err != nil {
			return err
		}
	}
	if _, err := f.WriteAt(content, 0); err != nil {
		return err
	}
	if durable {
		if err := fdatasync(f); err != nil {
			return err
		}
	}
	return f.Close()
}

// pendingActive reports whether the marker names an operation (or cannot
// be read as idle).
func (s *Store) pendingActive() bool {
	data, err := readRegular(s.path(pendingFile), maxPendingSize)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	p, err := parsePending(data)
	return p != nil || err != nil
}

// readPending returns the operation the marker names, nil if there is no
// marker or it is idle, or an error if the marker cannot be understood
// (the caller then rebuilds the index).
func (w *writer) readPending() (*pendingOp, error) {
	data, err := readRegular(w.s.path(pendingFile), maxPendingSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pending marker is unreadable: %v", err)
	}
	p, err := parsePending(data)
	if err != nil {
		return nil, fmt.Errorf("pending marker is damaged: %v", err)
	}
	return p, nil
}

// encodePending returns the marker's content for one operation line,
// padded with spaces to pendingSize bytes.
func encodePending(line string) []byte {
	b := make([]byte, 0, pendingSize)
	b = append(b, pendingHeader+"\n"+line...)
	for len(b) < pendingSize-1 {
		b = append(b, ' ')
	}
	return append(b, '\n')
}

func parsePending(data []byte) (*pendingOp, error) {
	head, rest, ok := strings.Cut(string(data), "\n")
	if !ok || head != pendingHeader {
		return nil, fmt.Errorf("header is not %q", pendingHeader)
	}
	line := strings.TrimRight(rest, " \n")
	if line == pendingIdle && strings.HasSuffix(rest, "\n") {
		return nil, nil
	}
	if line == opBatch && strings.HasSuffix(rest, "\n") {
		return &pendingOp{op: opBatch}, nil
	}
	op, id, ok := strings.Cut(line, " ")
	if !ok || (op != opPut && op != opRemove) || !strings.HasSuffix(rest, "\n") {
		return nil, errors.New("no operation")
	}
	pid, err := handoff.ParseID(id)
	if err != nil || string(pid) != id {
		return nil, fmt.Errorf("%q is not a canonical id", handoff.Shorten(id, 40))
	}
	return &pendingOp{op: op, id: pid}, nil
}

package store

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// opBatch is the pending marker of a batch: several records are being
// written. It names no id; whoever finds it after a crash rebuilds the
// index from the records, which lists every record file the batch placed
// and nothing it did not.
const opBatch = "batch"

// reasonBatch is why an index is rebuilt after an interrupted batch.
const reasonBatch = "a batch of writes was interrupted"

// Batch stores many records under one hold of the store's write lock, at
// the cost of one: the pending marker is written once, each record file
// is fsynced and put in place, the directories are fsynced once, and the
// search cache and the index get one append each. A crash at any point
// leaves the records the batch had placed, whole, and an index rebuilt
// from them by the next writer or reader; nothing is half written and
// nothing is listed twice (the last line for an id wins).
type Batch struct {
	s *Store
	w *writer
	// greatest is the greatest id the index names, lines of this batch
	// included.
	greatest handoff.ID
	// index and search are the lines to append when the batch ends.
	index, search []byte
	// marked: the pending marker says a batch is in progress.
	marked bool
	// blobs: blobs were adopted since the blob directory was last synced.
	blobs bool
	// puts counts the records placed.
	puts int
}

// Batch calls fn with the store locked for writing, then makes what fn
// stored durable and listed. Records fn put are stored even when fn
// returns an error (which Batch returns); fn decides, record by record,
// what to put. Nothing else may write the store from inside fn (Save,
// Put or Remove would wait for the lock Batch holds).
func (s *Store) Batch(fn func(*Batch) error) error {
	w, greatest, err := s.lockForPut()
	if err != nil {
		return err
	}
	defer w.unlock()
	b := &Batch{s: s, w: w, greatest: greatest}
	ferr := fn(b)
	return errors.Join(ferr, b.finish())
}

// Get reads a stored record, as Store.Get; records this batch put are
// stored.
func (b *Batch) Get(id handoff.ID) (*handoff.Record, error) { return b.s.Get(id) }

// AdoptBlob moves a checked blob from a staging directory (or a directory
// Sub named in it) into the store as the blob with the given SHA-256 (the
// caller vouches for the hash; OpenBlob checks it on every read). The
// blob directory is synced once, before the batch's next record is
// placed: a record never points at a blob whose name is not durable.
func (b *Batch) AdoptBlob(st *Staging, path, sha256hex string) error {
	if err := b.begin(); err != nil {
		return err
	}
	if err := b.s.adoptBlob(st, path, sha256hex); err != nil {
		return err
	}
	b.blobs = true
	return nil
}

// begin marks the batch as in progress, durably, before its first write.
func (b *Batch) begin() error {
	if b.marked {
		return nil
	}
	if err := b.w.setPending(encodePending(opBatch), true); err != nil {
		return fmt.Errorf("write pending marker: %w", err)
	}
	b.marked = true
	return nil
}

// syncBlobs makes the names of the blobs adopted so far durable.
func (b *Batch) syncBlobs() error {
	if !b.blobs {
		return nil
	}
	b.blobs = false
	return safefile.SyncDir(b.s.blobDir())
}

// Put stores r as Store.Put does, within the batch: with replace, an
// existing record of the same id is overwritten and replaced reports that
// one was; without it, an existing one gives an error wrapping ErrExists.
// r's file is fsynced and in place when Put returns; it is listed once
// the batch ends.
func (b *Batch) Put(r *handoff.Record, replace bool) (replaced bool, err error) {
	data, err := encodeRecord(r)
	if err != nil {
		return false, err
	}
	path := b.s.recordPath(r.ID)
	exists, err := checkExists(path, r.ID, replace)
	if err != nil {
		return false, err
	}
	if err := b.begin(); err != nil {
		return false, err
	}
	// A record never points at a blob whose name is not durable.
	if err := b.syncBlobs(); err != nil {
		return false, err
	}
	if err := safefile.Place(path, data, filePerm, !exists); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	ie := entryFromRecord(r)
	b.index = appendLine(b.index, &ie, b.greatest)
	if r.ID > b.greatest {
		b.greatest = r.ID
	}
	b.search = appendSearchLine(b.search, r)
	b.puts++
	return exists, nil
}

// finish makes the batch's records durable and listed: the records
// directory synced, then the search cache's lines and the index's lines
// appended, each with one write and one fsync, then the marker idle. If
// any step fails the marker stays, and the next writer rebuilds the index
// from the records.
func (b *Batch) finish() error {
	if !b.marked {
		return nil
	}
	if b.puts == 0 {
		err := b.syncBlobs()
		b.w.clearPending()
		return err
	}
	if err := safefile.SyncDir(filepath.Join(b.s.dir, recordsDir)); err != nil {
		return err
	}
	// The search cache's lines go before the index's: a search never
	// finds text that was not stored (see searchcache.go).
	if err := b.w.appendSearch(b.search); err != nil {
		return err
	}
	if err := b.w.appendIndex(b.index); err != nil {
		return err
	}
	if err := b.w.removePending(); err != nil {
		return err
	}
	b.w.compactIfDue()
	return nil
}

// Package store is the local store of handoff records: one JSON file per
// record, content-addressed blobs, and an append-only index so that listing
// does not read every record and saving costs the same however many records
// there are.
//
// Layout under the store directory:
//
//	records/<ID>.json   one record, indented JSON, mode 0600
//	index               the index (see below); can always be rebuilt
//	search              the search cache: each record's text for Search; can always be rebuilt
//	lock                flock'ed by writers
//	pending             names the write in progress (id and operation), or "idle"
//	blobs/sha256/<hex>  attachments, named by the SHA-256 of their content
//
// Every file is written to a temporary file, fsynced and renamed into place,
// and the directory is fsynced. Writers hold an exclusive lock on the lock
// file, which the kernel releases when a writer dies, so readers never wait
// on a crashed writer. A writer first writes the pending marker (a small
// file overwritten in place and fdatasynced), then the record, then appends
// one line to the search cache and one to the index, then marks the marker
// idle; the next writer (or a
// reader that can take the free lock) finds a marker left by a crash and
// reconciles that one id, so a crash at any instant leaves either the old
// state or the new one. A removal appends its "-" line before it deletes
// the file, so the index never lists a record file that is gone.
//
// The index is a text file of one event per line: a "+" or "*" line with
// the fields List filters on, or a "-" line when a record is removed. The last line for
// an id wins. A final line without a newline is a torn append and is
// ignored. Any other damage, or a missing index beside existing records,
// makes the index be rebuilt from the record files.
//
// A Store is safe for concurrent use by several goroutines and processes.
package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/schema"
)

// Errors callers test for with errors.Is.
var (
	// ErrNotFound means no record (or blob) has the given id or prefix.
	ErrNotFound = errors.New("not found")
	// ErrExists means a record with the same id is already stored.
	ErrExists = errors.New("handoff already exists")
	// ErrEmpty means "latest" was asked of a store with no records.
	ErrEmpty = errors.New("the store has no handoffs")
	// ErrNewerSchema means a record was written in a newer format than this
	// program reads.
	ErrNewerSchema = errors.New("record is newer than this program")
)

// Names inside the store directory.
const (
	recordsDir  = "records"
	indexFile   = "index"
	lockFile    = "lock"
	pendingFile = "pending"
	// identitiesFile exists once the index may list an imported record
	// that carries its project's identity (identity.go).
	identitiesFile = "identities"
	blobsDir       = "blobs/sha256"
	recordExt      = ".json"
)

// Permissions of what the store creates: records may hold private notes.
const (
	dirPerm  = 0o700
	filePerm = 0o600
)

// Store is a handoff store rooted at one directory.
type Store struct {
	dir   string
	warn  atomic.Pointer[func(error)]
	binds atomic.Pointer[func(fingerprint, signer string) bool]
}

// SetTrust sets the trust store as it is now, as binds (whether it binds
// a signer's name to the key of a fingerprint, crypto.TrustStore.Binds):
// every record Get reads is rechecked against it (handoff.Source.Recheck),
// so that a record whose key was trusted at import and is no longer reads
// as no longer trusted, wherever it is read. Without it records read as
// their import judged them. binds must be safe for concurrent use if the
// Store is.
func (s *Store) SetTrust(binds func(fingerprint, signer string) bool) {
	if binds == nil {
		s.binds.Store(nil)
		return
	}
	s.binds.Store(&binds)
}

// SetWarn sets a function to be told of problems an operation worked
// around instead of failing: damaged record files left out when the index
// is rebuilt, or a repair a reader could not write. Each error names the
// file concerned. By default they are dropped. SetWarn is safe to call at
// any time; f must be safe for concurrent use if the Store is.
func (s *Store) SetWarn(f func(error)) {
	if f == nil {
		s.warn.Store(nil)
		return
	}
	s.warn.Store(&f)
}

func (s *Store) warnf(err error) {
	if f := s.warn.Load(); f != nil {
		(*f)(err)
	}
}

// warnRebuilt reports the damaged records a rebuild left out.
func (s *Store) warnRebuilt(res prepResult) {
	if !res.rebuilt || res.scan == nil {
		return
	}
	for _, b := range res.scan.bad {
		s.warnf(fmt.Errorf("damaged record left out of the index: %w", b.Err))
	}
}

// Open returns the store in dir. It creates nothing: a missing directory is
// an empty store, created by the first write. It fails if dir exists but is
// not a directory.
func Open(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("store directory is empty")
	}
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return nil, fmt.Errorf("%s is not a directory", dir)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return &Store{dir: dir}, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) path(name string) string { return filepath.Join(s.dir, name) }

func (s *Store) recordPath(id handoff.ID) string {
	return filepath.Join(s.dir, recordsDir, string(id)+recordExt)
}

// relRecord names a record file relative to the store, as reports show it.
func relRecord(name string) string { return recordsDir + "/" + name }

// canonicalID checks that id is a well-formed id in canonical form.
func canonicalID(id handoff.ID) (handoff.ID, error) {
	return handoff.ParseID(string(id))
}

// Save stores a new record. The record must pass r.Check and the JSON
// Schema; Save fails with an error wrapping ErrExists if a record with the
// same id is already stored. The store directory is created (mode 0700) on
// the first write.
func (s *Store) Save(r *handoff.Record) error {
	_, err := s.Put(r, false)
	return err
}

// Put stores r like Save. With replace set, an existing record with the
// same id is overwritten (as import does) and replaced reports that one was;
// without it, Put is Save.
func (s *Store) Put(r *handoff.Record, replace bool) (replaced bool, err error) {
	data, err := encodeRecord(r)
	if err != nil {
		return false, err
	}
	ie := entryFromRecord(r)
	w, greatest, err := s.lockForPut()
	if err != nil {
		return false, err
	}
	defer w.unlock()
	path := s.recordPath(r.ID)
	exists, err := checkExists(path, r.ID, replace)
	if err != nil {
		return false, err
	}
	line := appendLine(nil, &ie, greatest)
	if err := w.writePending(opPut, r.ID); err != nil {
		return false, err
	}
	if exists {
		err = safefile.WriteFile(path, data, filePerm)
	} else {
		err = safefile.Create(path, data, filePerm)
	}
	if err != nil {
		// The record file is untouched: nothing to reconcile.
		w.clearPending()
		return false, safefile.Wrap("write", path, err)
	}
	// The search cache's line goes before the index line: a search never
	// finds text that was not stored (see searchcache.go).
	err = w.appendSearch(appendSearchLine(nil, r))
	if err == nil {
		err = w.appendIndex(line)
	}
	if err != nil {
		if !exists && safefile.Remove(path) == nil {
			w.clearPending()
		}
		// Otherwise the marker stays, and the next writer makes the index
		// agree with the record file.
		return false, err
	}
	if err := w.removePending(); err != nil {
		return false, err
	}
	w.compactIfDue()
	return exists, nil
}

// lockForPut takes the write lock, makes the store ready for an append
// (writer.prepare) and returns the greatest id the index names.
func (s *Store) lockForPut() (*writer, handoff.ID, error) {
	if err := os.MkdirAll(filepath.Join(s.dir, recordsDir), dirPerm); err != nil {
		return nil, "", fmt.Errorf("create store: %w", err)
	}
	w, err := s.lockWriter()
	if err != nil {
		return nil, "", err
	}
	res, err := w.prepare("")
	if err != nil {
		w.unlock()
		return nil, "", err
	}
	s.warnRebuilt(res)
	greatest, err := w.greatestID()
	if errors.Is(err, errCorruptIndex) {
		// The end of the index is damaged: rebuild it, then read again.
		res, perr := w.prepare(err.Error())
		if perr != nil {
			w.unlock()
			return nil, "", perr
		}
		s.warnRebuilt(res)
		greatest, err = w.greatestID()
	}
	if err != nil {
		w.unlock()
		return nil, "", err
	}
	return w, greatest, nil
}

// checkExists reports whether the record file of id, at path, exists,
// and refuses one that does unless replace is set.
func checkExists(path string, id handoff.ID, replace bool) (bool, error) {
	_, err := os.Lstat(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("save %s: %w", id, err)
	}
	if exists && !replace {
		return false, fmt.Errorf("save %s: %w", id, ErrExists)
	}
	return exists, nil
}

// Get reads the record with the given id. A missing record gives an error
// wrapping ErrNotFound; a damaged one an error naming the file and what is
// wrong with it (wrapping ErrNewerSchema when written by a newer version).
func (s *Store) Get(id handoff.ID) (*handoff.Record, error) {
	id, err := canonicalID(id)
	if err != nil {
		return nil, err
	}
	path := s.recordPath(id)
	rec, err := readRecord(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("handoff %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	if rec.ID != id {
		return nil, fmt.Errorf("%s: holds handoff %s, not %s", path, handoff.Shorten(string(rec.ID), 40), id)
	}
	if binds := s.binds.Load(); binds != nil {
		rec.Source.Recheck(*binds)
	}
	return rec, nil
}

// Remove deletes the record with the given id; a missing one gives an
// error wrapping ErrNotFound. Blobs the record named are kept: they are
// content-addressed and may be shared.
func (s *Store) Remove(id handoff.ID) error {
	id, err := canonicalID(id)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(s.dir, recordsDir)); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("handoff %s: %w", id, ErrNotFound)
	}
	w, err := s.lockWriter()
	if err != nil {
		return err
	}
	defer w.unlock()
	res, err := w.prepare("")
	if err != nil {
		return err
	}
	s.warnRebuilt(res)
	path := s.recordPath(id)
	if _, err := os.Lstat(path); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return safefile.Wrap("remove", string(id), err)
		}
		// Heal an index that still lists it; a lone tombstone is harmless.
		_ = w.appendIndex(appendTombstone(nil, id))
		return fmt.Errorf("handoff %s: %w", id, ErrNotFound)
	}
	if err := w.writePending(opRemove, id); err != nil {
		return err
	}
	// The tombstone goes first, so the index never lists a record that is
	// gone; a crash after it is rolled forward by the next writer.
	if err := w.appendIndex(appendTombstone(nil, id)); err != nil {
		w.clearPending()
		return err
	}
	if err := safefile.Remove(path); err != nil {
		return safefile.Wrap("remove", path, err)
	}
	if err := w.removePending(); err != nil {
		return err
	}
	w.compactIfDue()
	return nil
}

// encodeRecord validates r and returns the bytes of its record file.
func encodeRecord(r *handoff.Record) ([]byte, error) {
	if r == nil {
		return nil, errors.New("invalid handoff record: nil")
	}
	if errs := r.Check(); len(errs) > 0 {
		return nil, fmt.Errorf("invalid handoff record %s: %w", handoff.Shorten(string(r.ID), 40), errors.Join(errs...))
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode handoff %s: %w", r.ID, err)
	}
	data = append(data, '\n')
	if len(data) > handoff.MaxRecordSz {
		return nil, fmt.Errorf("invalid handoff record %s: %w: %d bytes encoded, the limit is %d", r.ID, safefile.ErrTooLarge, len(data), handoff.MaxRecordSz)
	}
	if err := schema.Validate(schema.Handoff, data); err != nil {
		return nil, fmt.Errorf("invalid handoff record %s: %w", r.ID, err)
	}
	return data, nil
}

// readRegular is safefile.ReadFile for files the store owns: it refuses
// anything but a regular file (a symbolic link, a directory, a named pipe
// that would block) before opening it.
func readRegular(path string, limit int64) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errNotRegular}
	}
	return safefile.ReadFile(path, limit)
}

// errNotRegular is the cause given for store files of the wrong type.
var errNotRegular = errors.New("not a regular file")

// readRecord reads one record file, decoding it strictly: it was checked
// against the schema when it entered the store (issue 19); store check
// reads with readRecordAs(path, true), which validates it as well. Errors name the file; a missing file gives an
// error wrapping fs.ErrNotExist.
func readRecord(path string) (*handoff.Record, error) { return readRecordAs(path, false) }

func readRecordAs(path string, full bool) (*handoff.Record, error) {
	data, err := readRegular(path, handoff.MaxRecordSz)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("read %s: %w", path, pe.Err)
		}
		return nil, safefile.Wrap("read", path, err)
	}
	if full {
		if err := schema.Validate(schema.Handoff, data); err != nil && !errors.Is(err, schema.ErrMalformed) {
			if v, ok := peekSchemaVersion(data); ok && v > handoff.SchemaVersion {
				err = newerSchema(v)
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	rec, err := decodeRecord(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// decodeRecord strictly decodes a record and applies the record's own
// rules (handoff.Record.Check), without the schema. A record whose
// schema_version is newer than this program's gives an error wrapping
// ErrNewerSchema that names both versions, rather than the schema
// violations that version would also cause.
func decodeRecord(data []byte) (*handoff.Record, error) {
	var rec handoff.Record
	if err := schema.DecodeStrict(data, &rec); err != nil {
		// The version is looked at only once decoding failed, which gives
		// the same answer as looking first and costs nothing on good
		// records.
		if v, ok := peekSchemaVersion(data); ok && v > handoff.SchemaVersion {
			return nil, newerSchema(v)
		}
		return nil, err
	}
	if rec.SchemaVersion > handoff.SchemaVersion {
		return nil, newerSchema(int64(rec.SchemaVersion))
	}
	if errs := rec.Check(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &rec, nil
}

// newerSchema is the error for a record of schema version v, newer than
// this program's.
func newerSchema(v int64) error {
	return fmt.Errorf("%w: written with schema version %d, this program reads up to version %d; upgrade session-handoff", ErrNewerSchema, v, handoff.SchemaVersion)
}

// peekSchemaVersion returns the top-level schema_version of a JSON object,
// if it is an integer.
func peekSchemaVersion(data []byte) (int64, bool) {
	var probe struct {
		V json.RawMessage `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil || len(probe.V) == 0 || probe.V[0] < '0' || probe.V[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseInt(string(probe.V), 10, 64)
	return v, err == nil
}

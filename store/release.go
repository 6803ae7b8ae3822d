package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// ReleaseGrace is how old a blob must be for RemoveWithBlobs to remove it:
// far longer than the moment between an import (or capture) putting a
// blob in place and storing the record that attaches it.
const ReleaseGrace = 10 * time.Minute

// RemoveWithBlobs removes the record with the given id, as Remove does,
// and then the blobs it attached that no other record attaches (a blob
// another record still names stays), and the sidecars whose blob is gone.
// The report lists the blobs removed.
// A record that cannot be read is removed all the same and its blobs are
// left for GC; so are all blobs while any record file is damaged, since
// what the damaged ones attach is unknown. A blob written less than
// ReleaseGrace ago stays too: an import or capture of the same content may
// have just put it there and not yet stored its record (GC takes it later).
func (s *Store) RemoveWithBlobs(id handoff.ID) (*GCReport, error) {
	var names []string
	if rec, err := s.Get(id); err == nil {
		for _, at := range rec.Attachments {
			names = append(names, at.SHA256)
		}
	}
	if err := s.Remove(id); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return &GCReport{}, nil
	}
	return s.releaseBlobs(names)
}

// releaseBlobs removes those of the named blobs that no record attaches,
// under the write lock.
func (s *Store) releaseBlobs(names []string) (*GCReport, error) {
	rep := &GCReport{}
	w, err := s.lockWriter()
	if err != nil {
		return nil, err
	}
	defer w.unlock()
	scan, err := s.scanRecords()
	if err != nil {
		return nil, err
	}
	if len(scan.bad) > 0 {
		return rep, fmt.Errorf("remove the record's attachments: %d %w (run store check)", len(scan.bad), ErrDamagedRecords)
	}
	sort.Strings(names)
	for i, name := range names {
		if i > 0 && names[i-1] == name || !validSHA256(name) || scan.refs[name] {
			continue
		}
		path := filepath.Join(s.blobDir(), name)
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return rep, fmt.Errorf("remove blob %s: %w", name, err)
		}
		if !fi.Mode().IsRegular() || time.Since(fi.ModTime()) < ReleaseGrace {
			continue
		}
		if err := os.Remove(path); err != nil {
			return rep, fmt.Errorf("remove blob %s: %w", name, err)
		}
		rep.Removed = append(rep.Removed, name)
		rep.Bytes += fi.Size()
	}
	return rep, s.syncRemoved(rep)
}

// CopyAttachment writes the blob of at to w, checking its content against
// at's SHA-256 and size as it goes: a blob that differs, or is missing, is
// an error (wrapping ErrNotFound when missing). What was written before a
// mismatch showed is the caller's to discard.
func (s *Store) CopyAttachment(w io.Writer, at handoff.Attachment) error {
	rc, size, err := s.OpenBlob(at.SHA256)
	if err != nil {
		return fmt.Errorf("attachment %q: %w", handoff.Shorten(at.Name, 60), err)
	}
	defer rc.Close()
	if size != at.Size {
		return fmt.Errorf("attachment %q: blob %s has %d bytes, the record says %d", handoff.Shorten(at.Name, 60), at.SHA256, size, at.Size)
	}
	n, err := io.Copy(w, io.LimitReader(rc, size+1))
	if err != nil {
		return fmt.Errorf("attachment %q: %w", handoff.Shorten(at.Name, 60), err)
	}
	if n != size {
		return fmt.Errorf("attachment %q: blob %s changed while it was read", handoff.Shorten(at.Name, 60), at.SHA256)
	}
	return nil
}

// FillOrigins sets each entry's Origin (handoff.Source.Origin). The index
// holds only the source's kind, so an imported record is read for its
// provenance; one that cannot be read is "unknown".
func (s *Store) FillOrigins(entries []Entry) {
	for i := range entries {
		e := &entries[i]
		if e.Source != handoff.SourceImport {
			e.Origin = handoff.Source{Kind: e.Source}.Origin()
			continue
		}
		e.Origin = "unknown"
		if rec, err := s.Get(e.ID); err == nil {
			e.Origin = rec.Source.Origin()
		}
	}
}

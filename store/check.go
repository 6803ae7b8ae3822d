package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// CheckReport is what Check found and, when repairing, did.
type CheckReport struct {
	// Records counts the record files that read and validate.
	Records int
	// Bad lists the record files that do not, sorted by file name.
	Bad []BadRecord
	// Strays lists other names found under records/ (left alone).
	Strays []string
	// IndexWasStale is set when the index was missing, damaged, or did not
	// agree with the record files; IndexProblem says how.
	IndexWasStale bool
	IndexProblem  string
	// IndexRebuilt is set when a stale index was written afresh from the
	// records.
	IndexRebuilt bool
	// IndexCompacted is set when a sound index was rewritten without its
	// superseded lines, because they outnumbered the live ones.
	IndexCompacted bool
	// PendingFound is set when a crashed writer's pending marker was
	// found; PendingRepaired when it was reconciled.
	PendingFound    bool
	PendingRepaired bool
	// TornLineRemoved is set when a torn final index line was cut off.
	TornLineRemoved bool
	// TempFound counts temporary files and staging directories left by
	// crashed writers and imports; TempRemoved those removed.
	TempFound   int
	TempRemoved int
	// Unreferenced lists the blobs no record attaches, by SHA-256,
	// sorted, and UnreferencedBytes their total size. Check only reports
	// them; GC removes them.
	Unreferenced      []string
	UnreferencedBytes int64
	// StaleSidecars lists the files of blobs/sidecars/ that are no
	// sidecar of a blob the store holds (its blob removed), by name,
	// sorted; StaleSidecarsRemoved is set when repairing removed them.
	StaleSidecars        []string
	StaleSidecarsRemoved bool
}

// Check reads every record file, validates each, and compares the index
// with them. With repair set it also reconciles a pending marker, rebuilds
// the index if it is stale (or compacts it if most of it is superseded),
// and removes temporary files left by crashes; without it, it changes
// nothing. It holds the write lock while it works. Damaged records are
// reported, never removed.
func (s *Store) Check(repair bool) (*CheckReport, error) {
	rep := &CheckReport{}
	if _, err := os.Stat(s.dir); errors.Is(err, fs.ErrNotExist) {
		return rep, nil
	} else if err != nil {
		return nil, fmt.Errorf("check store: %w", err)
	}
	w, err := s.lockWriter()
	if err != nil {
		return nil, err
	}
	defer w.unlock()

	rep.PendingFound = s.pendingActive()
	var scan *scanResult
	fresh := false // the index was just written from the records
	if repair {
		res, err := w.prepare("")
		if err != nil {
			return nil, err
		}
		rep.PendingRepaired, rep.TornLineRemoved = res.pendingRepaired, res.tornRemoved
		if res.rebuilt {
			scan, fresh = res.scan, true
			// Making the first index of a store with no records is not
			// a repair.
			if res.reason != reasonMissing || len(scan.entries) > 0 || len(scan.bad) > 0 {
				rep.IndexWasStale, rep.IndexProblem, rep.IndexRebuilt = true, res.reason, true
			}
		}
	}
	// The report validates every record against the schema, also when
	// the repair above rebuilt the index from a strict reading.
	if scan, err = s.scanRecordsFull(); err != nil {
		return nil, err
	}
	rep.Records = len(scan.entries)
	rep.Bad = scan.bad
	sort.Slice(rep.Bad, func(i, j int) bool { return rep.Bad[i].File < rep.Bad[j].File })
	rep.Strays = scan.strays

	if err := s.checkTemps(rep, scan, repair); err != nil {
		return nil, err
	}
	if err := s.checkStaging(rep, repair); err != nil {
		return nil, err
	}
	if rep.Unreferenced, rep.UnreferencedBytes, err = s.unreferencedBlobs(scan, 0, time.Time{}); err != nil {
		return nil, err
	}
	if rep.StaleSidecars, err = s.staleSidecars(repair); err != nil {
		return nil, err
	}
	rep.StaleSidecarsRemoved = repair && len(rep.StaleSidecars) > 0
	if fresh {
		return rep, nil
	}
	problem, compact, err := s.compareIndex(scan)
	if err != nil {
		return nil, err
	}
	if problem != "" {
		rep.IndexWasStale, rep.IndexProblem = true, problem
	}
	if repair && (problem != "" || compact) {
		if err := s.writeSearch(scan); err != nil {
			return nil, err
		}
		data := scan.indexBytes()
		if err := s.markIdentities(data); err != nil {
			return nil, err
		}
		if err := safefile.WriteFile(s.path(indexFile), data, filePerm); err != nil {
			return nil, fmt.Errorf("write index: %w", err)
		}
		rep.IndexRebuilt = problem != ""
		rep.IndexCompacted = problem == ""
	}
	return rep, nil
}

// compareIndex fully parses the index and compares its live entries with
// the good records. It returns the first disagreement (and how many more),
// and whether the index is worth compacting.
func (s *Store) compareIndex(scan *scanResult) (problem string, compact bool, err error) {
	buf, err := readIndexFile(s.path(indexFile), nil)
	if errors.Is(err, fs.ErrNotExist) {
		if len(scan.entries) == 0 {
			return "", false, nil
		}
		return reasonMissing, false, nil
	}
	if err != nil {
		if errors.Is(err, errCorruptIndex) {
			return err.Error(), false, nil
		}
		return "", false, err
	}
	nl := bytes.IndexByte(buf, '\n')
	if nl < 0 || string(buf[:nl]) != indexHeader {
		return "index " + headerReason(buf[:max(nl, 0)]), false, nil
	}
	type state struct {
		line []byte
		del  bool
	}
	final := make(map[handoff.ID]state, len(scan.entries))
	lines := 0
	for pos, lineNo := nl+1, 2; pos < len(buf); lineNo++ {
		n := bytes.IndexByte(buf[pos:], '\n')
		if n < 0 {
			break // a torn append, ignored like readers do
		}
		line := buf[pos : pos+n]
		pos += n + 1
		ie, del, err := parseLine(line)
		if err != nil {
			return fmt.Sprintf("index line %d: %v", lineNo, err), false, nil
		}
		lines++
		final[ie.ID] = state{line: line, del: del}
	}
	var problems []string
	var want []byte
	for i := range scan.entries {
		e := &scan.entries[i]
		want = appendLine(want[:0], e, "")
		got, ok := final[e.ID]
		switch {
		case !ok || got.del:
			problems = append(problems, fmt.Sprintf("index does not list %s", e.ID))
		case !bytes.Equal(got.line[1:], want[1:len(want)-1]): // "+" or "*", as the order of lines says
			problems = append(problems, fmt.Sprintf("index entry for %s does not match its record", e.ID))
		}
		delete(final, e.ID)
	}
	var extra []string
	for id, st := range final {
		if !st.del {
			extra = append(extra, string(id))
		}
	}
	sort.Strings(extra)
	for _, id := range extra {
		problems = append(problems, fmt.Sprintf("index lists %s, which is missing or damaged", id))
	}
	if len(problems) > 0 {
		problem = problems[0]
		if len(problems) > 1 {
			problem += fmt.Sprintf(" (and %d more)", len(problems)-1)
		}
	}
	live := len(scan.entries)
	compact = lines-live > max(live, 1000)
	return problem, compact, nil
}

// checkTemps counts temporary files left by crashes and, when repairing,
// removes them. The caller holds the write lock, so no temporary file of
// the store directory or records/ belongs to a live writer; a blob's may
// (blobs are written without the lock), and PutBlob holds a lock on its
// temporary file so that it is left alone.
func (s *Store) checkTemps(rep *CheckReport, scan *scanResult, repair bool) error {
	var temps []string
	for _, n := range scan.temps {
		temps = append(temps, filepath.Join(s.dir, recordsDir, n))
	}
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return safefile.Wrap("read", s.dir, err)
	}
	for _, de := range des {
		if safefile.IsTemp(de.Name()) {
			temps = append(temps, filepath.Join(s.dir, de.Name()))
		}
	}
	for _, p := range temps {
		rep.TempFound++
		if !repair {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove leftover %s: %w", p, err)
		}
		rep.TempRemoved++
	}
	if len(temps) > 0 && repair {
		for _, d := range []string{s.dir, filepath.Join(s.dir, recordsDir)} {
			if err := safefile.SyncDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}

	for _, dir := range []string{s.blobDir(), s.sidecarDir()} {
		if err := checkLockedTemps(rep, dir, repair); err != nil {
			return err
		}
	}
	return nil
}

// checkLockedTemps counts the dead temporary files of dir, a directory
// written without the store's lock (blobs, sidecars), and when repairing
// removes them: a live writer holds a lock on its temporary file.
func checkLockedTemps(rep *CheckReport, dir string, repair bool) error {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return safefile.Wrap("read", dir, err)
	}
	removed := false
	for _, de := range des {
		if !safefile.IsTemp(de.Name()) {
			continue
		}
		dead, err := deadBlobTemp(filepath.Join(dir, de.Name()), repair)
		if err != nil {
			return err
		}
		if !dead {
			continue // a PutBlob or PutSidecar in progress, or it finished meanwhile
		}
		rep.TempFound++
		if repair {
			rep.TempRemoved++
			removed = true
		}
	}
	if removed {
		return safefile.SyncDir(dir)
	}
	return nil
}

// unreferencedBlobs lists the blobs of the store that no good record of
// scan attaches, and their total size, leaving out blobs modified less
// than grace before now (an import adopts its blobs before it stores its
// record, and renaming a blob into place gives it a new time).
func (s *Store) unreferencedBlobs(scan *scanResult, grace time.Duration, now time.Time) ([]string, int64, error) {
	des, err := os.ReadDir(s.blobDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, safefile.Wrap("read", s.blobDir(), err)
	}
	var out []string
	var total int64
	for _, de := range des {
		name := de.Name()
		if !validSHA256(name) || scan.refs[name] || !de.Type().IsRegular() {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if grace > 0 && now.Sub(fi.ModTime()) < grace {
			continue
		}
		out = append(out, name)
		total += fi.Size()
	}
	return out, total, nil
}

// GCReport is what GC removed.
type GCReport struct {
	// Removed lists the blobs removed, by SHA-256, sorted; Bytes is their
	// total size.
	Removed []string
	Bytes   int64
}

// ErrDamagedRecords is wrapped by GC's error when some records cannot be
// read: the blobs they attach are unknown, so none is removed.
var ErrDamagedRecords = errors.New("damaged records: their attachments are unknown")

// GC removes the blobs no record attaches (bundles of earlier versions
// could bring blobs no record named, and a removed record leaves its
// blobs behind). It holds the write lock while it works. Blobs modified
// less than grace ago are kept, as an import in progress may have
// adopted them and not yet stored its record: an hour is plenty. It
// removes nothing, with an error wrapping ErrDamagedRecords, while any
// record file cannot be read.
func (s *Store) GC(grace time.Duration) (*GCReport, error) {
	rep := &GCReport{}
	if _, err := os.Stat(s.dir); errors.Is(err, fs.ErrNotExist) {
		return rep, nil
	}
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
		return nil, fmt.Errorf("collect unreferenced blobs: %d %w (run store check)", len(scan.bad), ErrDamagedRecords)
	}
	names, _, err := s.unreferencedBlobs(scan, grace, time.Now())
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		path := filepath.Join(s.blobDir(), name)
		fi, err := os.Lstat(path)
		if err != nil {
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

// syncRemoved makes the removal of rep's blobs durable, then removes the
// sidecars left without their blob.
func (s *Store) syncRemoved(rep *GCReport) error {
	if len(rep.Removed) > 0 {
		if err := safefile.SyncDir(s.blobDir()); err != nil {
			return err
		}
	}
	_, err := s.staleSidecars(true)
	return err
}

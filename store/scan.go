package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// BadRecord is a record file that cannot be used.
type BadRecord struct {
	// File is the path relative to the store directory, records/<name>.
	File string
	// Err says what is wrong, naming the file.
	Err error
}

// scanResult is what reading every record file found.
type scanResult struct {
	entries []indexEntry // good records, ascending by id
	bad     []BadRecord
	strays  []string // names in records/ that are neither records nor temporary files
	temps   []string // temporary files in records/
	// refs are the blobs the good records attach, by SHA-256.
	refs map[string]bool
}

// scanRecords reads and validates every record file, using all CPUs.
func (s *Store) scanRecords() (*scanResult, error) { return s.scanRecordsAs(false) }

// scanRecordsFull is scanRecords validating every record against the
// schema, as store check does.
func (s *Store) scanRecordsFull() (*scanResult, error) { return s.scanRecordsAs(true) }

func (s *Store) scanRecordsAs(full bool) (*scanResult, error) {
	res := &scanResult{}
	dir := filepath.Join(s.dir, recordsDir)
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	// os.ReadDir sorts by name, and canonical ids sort by name, so the
	// records come out in id order.
	var names []string
	for _, de := range des {
		name := de.Name()
		switch {
		case safefile.IsTemp(name):
			res.temps = append(res.temps, name)
		case !strings.HasSuffix(name, recordExt):
			res.strays = append(res.strays, name)
		default:
			id := strings.TrimSuffix(name, recordExt)
			if pid, err := handoff.ParseID(id); err != nil || string(pid) != id {
				res.bad = append(res.bad, BadRecord{File: relRecord(name), Err: fmt.Errorf("%s: file name is not a canonical handoff id", filepath.Join(dir, name))})
				continue
			}
			if !de.Type().IsRegular() {
				res.bad = append(res.bad, BadRecord{File: relRecord(name), Err: fmt.Errorf("%s: not a regular file", filepath.Join(dir, name))})
				continue
			}
			names = append(names, name)
		}
	}
	entries := make([]indexEntry, len(names))
	attached := make([][]string, len(names))
	errs := make([]error, len(names))
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(names))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(names) {
					return
				}
				id := handoff.ID(strings.TrimSuffix(names[i], recordExt))
				rec, err := readRecordAs(filepath.Join(dir, names[i]), full)
				if err == nil && rec.ID != id {
					err = fmt.Errorf("%s: holds handoff %s, not %s", filepath.Join(dir, names[i]), handoff.Shorten(string(rec.ID), 40), id)
				}
				if err != nil {
					errs[i] = err
					continue
				}
				entries[i] = entryFromRecord(rec)
				for _, a := range rec.Attachments {
					attached[i] = append(attached[i], a.SHA256)
				}
			}
		}()
	}
	wg.Wait()
	res.entries = make([]indexEntry, 0, len(names))
	res.refs = map[string]bool{}
	for i := range names {
		if errs[i] != nil {
			res.bad = append(res.bad, BadRecord{File: relRecord(names[i]), Err: errs[i]})
			continue
		}
		res.entries = append(res.entries, entries[i])
		for _, h := range attached[i] {
			res.refs[h] = true
		}
	}
	return res, nil
}

// indexBytes returns a compacted index of the good records.
func (r *scanResult) indexBytes() []byte {
	buf := make([]byte, 0, len(indexHeader)+1+len(r.entries)*256)
	buf = append(buf, indexHeader...)
	buf = append(buf, '\n')
	var greatest handoff.ID
	for i := range r.entries {
		buf = appendLine(buf, &r.entries[i], greatest)
		greatest = max(greatest, r.entries[i].ID)
	}
	return buf
}

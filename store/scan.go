package store

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
	entries []indexEntry // good records, in entry order (inEntryOrder)
	search  [][]byte     // their search cache lines, in the same order
	entered []int64      // when each entered this store, as far as it says (enteredMS)
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
		return nil, safefile.Wrap("read", dir, err)
	}
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
	entered := make([]int64, len(names))
	search := make([][]byte, len(names))
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
				entered[i] = enteredMS(rec)
				search[i] = appendSearchLine(nil, rec)
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
		res.entered = append(res.entered, entered[i])
		res.search = append(res.search, search[i])
		for _, h := range attached[i] {
			res.refs[h] = true
		}
	}
	// The index on disk, damaged or not, is where the entry order is
	// kept: read it before a rebuild replaces it.
	old, _ := readIndexFile(s.path(indexFile), nil)
	res.inEntryOrder(old)
	return res, nil
}

// enteredMS is when r entered this store, as far as the record says: the
// time this machine imported it, else its creation (a save or capture
// here, or a legacy file's date). A sender's id and created_at never
// count for an import.
func enteredMS(r *handoff.Record) int64 {
	if r.Source.Import != nil {
		return r.Source.Import.ImportedAt.UnixMilli()
	}
	return r.CreatedAt.UnixMilli()
}

// inEntryOrder sorts the records in the order they entered this store,
// the order a rebuilt index keeps: the order of their last lines in old,
// the index being replaced (every line of it that can still be read, a
// header of any version or none); a record old does not list (no index, a
// damaged line) goes among them by enteredMS, before the first listed
// record that entered later, and such records among themselves by
// enteredMS, then id.
func (r *scanResult) inEntryOrder(old []byte) {
	rank := map[handoff.ID]int{}
	for n := 0; len(old) > 0; n++ {
		nl := bytes.IndexByte(old, '\n')
		if nl < 0 {
			break // a torn append
		}
		line := old[:nl]
		old = old[nl+1:]
		id, del, ok := eventID(line)
		if !ok {
			continue // the header, or damage
		}
		if del {
			delete(rank, id)
		} else {
			rank[id] = n
		}
	}
	type rec struct {
		e       indexEntry
		search  []byte
		entered int64
		rank    int
	}
	var listed, unlisted []rec
	for i := range r.entries {
		x := rec{e: r.entries[i], search: r.search[i], entered: r.entered[i]}
		var ok bool
		if x.rank, ok = rank[x.e.ID]; ok {
			listed = append(listed, x)
		} else {
			unlisted = append(unlisted, x)
		}
	}
	slices.SortFunc(listed, func(a, b rec) int { return cmp.Compare(a.rank, b.rank) })
	slices.SortFunc(unlisted, func(a, b rec) int {
		return cmp.Or(cmp.Compare(a.entered, b.entered), cmp.Compare(a.e.ID, b.e.ID))
	})
	r.entries, r.search, r.entered = r.entries[:0], r.search[:0], r.entered[:0]
	for len(listed) > 0 || len(unlisted) > 0 {
		var x rec
		if len(listed) == 0 || len(unlisted) > 0 && unlisted[0].entered < listed[0].entered {
			x, unlisted = unlisted[0], unlisted[1:]
		} else {
			x, listed = listed[0], listed[1:]
		}
		r.entries, r.search, r.entered = append(r.entries, x.e), append(r.search, x.search), append(r.entered, x.entered)
	}
}

// indexBytes returns a compacted index of the good records, in entry
// order.
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

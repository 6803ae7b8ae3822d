package search

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/session-handoff/session-handoff/internal/jsonfast"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// The catch-up before a search lists every agent's sessions, which reads
// the start of the newest of them: a second or more on a large archive.
// A snapshot of what could have changed lets a search skip that when
// nothing did, at the cost of a few hundred stats whatever the archive's
// size: every directory under the agents' session directories (a file
// added, renamed or removed changes its directory's modification time),
// the files written in the last two days (a session still being written
// grows without a new file beside it), and the store's own files.
//
// A session older than that written again in place (a session resumed
// days later) with no file added beside it is not seen by this check:
// the next full catch-up (search --update, which the hooks run when a
// session ends) finds it.

// fingerprintName is the file that holds the snapshot of the sources as
// the last complete catch-up saw them.
const fingerprintName = "fingerprint"

// maxWalk bounds the directories and files a snapshot records: past it,
// the catch-up always runs.
const maxWalk = 1 << 16

// hotWindow is how recently a file must have been written for a snapshot
// to record it by itself.
const hotWindow = 48 * time.Hour

// racyWindow: a time this close to the snapshot's may be followed, in
// the same tick of the file system's clock, by a change that leaves it
// as it was; a snapshot holding one is not kept.
const racyWindow = 2 * time.Second

// Kinds of a snapshot's items.
const (
	itemDir    = "d" // a directory, by modification time
	itemFile   = "f" // a file, by size and modification time
	itemAbsent = "-" // a path that did not exist
)

// item is one path a snapshot records.
type item struct {
	Kind  string `json:"k"`
	Path  string `json:"p"`
	Size  int64  `json:"z,omitempty"`
	MTime int64  `json:"m,omitempty"`
}

// snapshot is what a quick catch-up compares with the file system.
type snapshot struct {
	Roots []string `json:"roots"`
	Flat  []string `json:"flat"`
	Items []item   `json:"items"`
	racy  bool
}

// takeSnapshot records roots (recursively: every directory, and the files
// written within hotWindow of now) and flat (the directory and every
// entry directly in it); nil when there are too many to record. The
// directories under roots are read through listed (nil: none), which
// keeps them for discovery.
func takeSnapshot(roots, flat []string, now time.Time, listed *transcript.Listings) *snapshot {
	s := &snapshot{Roots: roots, Flat: flat, Items: []item{}}
	for _, root := range roots {
		fi, err := os.Stat(root)
		switch {
		case err == nil && fi.Mode().IsRegular():
			// A root that is a file (a database named by itself).
			s.add(itemFile, root, fi, now)
			continue
		case err != nil || !fi.IsDir():
			s.Items = append(s.Items, item{Kind: itemAbsent, Path: root})
			continue
		}
		if !s.walk(root, fi, now, listed) {
			return nil
		}
	}
	for _, dir := range flat {
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			s.Items = append(s.Items, item{Kind: itemAbsent, Path: dir})
			continue
		}
		s.add(itemDir, dir, fi, now)
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if fi, err := de.Info(); err == nil && de.Name() != DirName {
				s.add(itemFile, filepath.Join(dir, de.Name()), fi, now)
			}
		}
	}
	if len(s.Items) > maxWalk {
		return nil
	}
	return s
}

// walk records dir (fi) and what is under it, read through listed; false
// past maxWalk.
func (s *snapshot) walk(dir string, fi fs.FileInfo, now time.Time, listed *transcript.Listings) bool {
	s.add(itemDir, dir, fi, now)
	des, err := listed.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, de := range des {
		if len(s.Items) > maxWalk {
			return false
		}
		p := filepath.Join(dir, de.Name())
		switch {
		case de.IsDir():
			if fi, err := de.Info(); err == nil && !s.walk(p, fi, now, listed) {
				return false
			}
		case de.Type().IsRegular():
			if fi, err := de.Info(); err == nil && now.Sub(fi.ModTime()) < hotWindow {
				s.add(itemFile, p, fi, now)
			}
		}
	}
	return true
}

func (s *snapshot) add(kind, path string, fi fs.FileInfo, now time.Time) {
	it := item{Kind: kind, Path: path, MTime: fi.ModTime().UnixNano()}
	if kind == itemFile {
		it.Size = fi.Size()
	}
	if now.Sub(fi.ModTime()) < racyWindow {
		s.racy = true
	}
	s.Items = append(s.Items, it)
}

// holds says the item is as the file system has it now.
func (it item) holds() bool {
	fi, err := os.Stat(it.Path)
	switch it.Kind {
	case itemAbsent:
		return errors.Is(err, fs.ErrNotExist)
	case itemDir:
		return err == nil && fi.IsDir() && fi.ModTime().UnixNano() == it.MTime
	case itemFile:
		return err == nil && fi.Mode().IsRegular() && fi.Size() == it.Size && fi.ModTime().UnixNano() == it.MTime
	}
	return false
}

// maxSnapshot bounds the snapshot file read.
const maxSnapshot = 64 << 20

// Unchanged says nothing under roots and in flat changed since the last
// complete catch-up saved its snapshot (SetFresh), as far as the
// directories and recent files it recorded tell: a stat of each.
func (ix *Index) Unchanged(roots, flat []string) bool {
	b, err := safefile.ReadFile(filepath.Join(ix.dir, fingerprintName), maxSnapshot)
	if err != nil {
		return false
	}
	// jsonfast decodes as encoding/json does, three times faster: the
	// snapshot of a large archive is thousands of items, read before
	// every search.
	var s snapshot
	if jsonfast.Unmarshal(b, &s) != nil || !slices.Equal(s.Roots, roots) || !slices.Equal(s.Flat, flat) {
		return false
	}
	return allHold(s.Items)
}

// allHold says every item still holds: the items are stated on every CPU
// (a search waits for this), each part stopping once another found a
// change.
func allHold(items []item) bool {
	workers := min(runtime.GOMAXPROCS(0), (len(items)+511)/512)
	if workers <= 1 {
		for _, it := range items {
			if !it.holds() {
				return false
			}
		}
		return true
	}
	var changed atomic.Bool
	var wg sync.WaitGroup
	per := (len(items) + workers - 1) / workers
	for part := range slices.Chunk(items, per) {
		wg.Go(func() {
			for _, it := range part {
				if changed.Load() {
					return
				}
				if !it.holds() {
					changed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	return !changed.Load()
}

// SetFresh records s as what the last complete catch-up saw; a snapshot
// that could miss a change (nil, or racy) is not kept, and the next
// catch-up lists the sessions again.
func (ix *Index) SetFresh(s *snapshot) error {
	path := filepath.Join(ix.dir, fingerprintName)
	if s == nil || s.racy {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, b, 0o600)
}

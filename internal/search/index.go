package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// The files of an index directory.
const (
	manifestName = "manifest.json"
	lockName     = "lock"
	segPrefix    = "seg-"
	segSuffix    = ".six"
	// manifestVersion is the manifest's format; another is rebuilt.
	manifestVersion = 1
	// maxManifest bounds the manifest read.
	maxManifest = 512 << 20
	// batchBytes is how much a writer gathers in memory before it writes
	// a segment: the bound on an indexer's memory, whatever the archive.
	batchBytes = 32 << 20
	// maxSegments is how many segments an index keeps before they are
	// merged into one.
	maxSegments = 8
)

// Stamp is what says a source changed: a transcript's size, modification
// time and a hash of its tail; a handoff's id and time.
type Stamp struct {
	Size  int64  `json:"z,omitempty"`
	MTime int64  `json:"m,omitempty"`
	Tail  string `json:"t,omitempty"`
}

// entry is one source in the manifest: its stamp when indexed and where
// its document lies (Seg empty: it could not be read, and is not retried
// until it changes).
type entry struct {
	Stamp
	Seg string `json:"s,omitempty"`
	Doc int    `json:"d,omitempty"`
}

// manifest lists an index's segments and its live documents.
type manifest struct {
	Version  int              `json:"version"`
	Next     int              `json:"next"`
	Segments []string         `json:"segments"`
	Live     map[string]entry `json:"live"`
}

// Index is a search index in a directory of its own.
type Index struct {
	dir string
}

// Open is the index in dir; nothing is read or created until used.
func Open(dir string) *Index { return &Index{dir: dir} }

// Dir is the index's directory.
func (ix *Index) Dir() string { return ix.dir }

func (ix *Index) readManifest() (*manifest, error) {
	raw, err := safefile.ReadFile(filepath.Join(ix.dir, manifestName), maxManifest)
	if errors.Is(err, fs.ErrNotExist) {
		return &manifest{Version: manifestVersion, Live: map[string]entry{}}, nil
	}
	if err != nil {
		return nil, err
	}
	m := &manifest{}
	if err := json.Unmarshal(raw, m); err != nil || m.Version != manifestVersion || m.Live == nil {
		return nil, fmt.Errorf("%s: not an index manifest of this version", filepath.Join(ix.dir, manifestName))
	}
	for _, s := range m.Segments {
		if !validSegName(s) {
			return nil, fmt.Errorf("%s: bad segment name", filepath.Join(ix.dir, manifestName))
		}
	}
	return m, nil
}

func validSegName(s string) bool {
	return strings.HasPrefix(s, segPrefix) && strings.HasSuffix(s, segSuffix) && !strings.ContainsAny(s, `/\`) && len(s) < 64
}

func (ix *Index) writeManifest(m *manifest) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return safefile.WriteFile(filepath.Join(ix.dir, manifestName), raw, 0o600)
}

// Source is one session or handoff the index should hold.
type Source struct {
	Key   string
	Stamp Stamp
	// Load reads the source's document; an error leaves it out until it
	// changes.
	Load func() (*Doc, error)
}

// Progress is how far an update has gone.
type Progress struct {
	Done, Total int
	Bytes       int64 // source bytes read so far (transcripts' sizes)
}

// UpdateStats says what an update did.
type UpdateStats struct {
	Added, Removed, Failed, Unchanged int
	Merged                            bool
}

// Update makes the index hold exactly sources: a source whose stamp is
// new or changed is (re)read, one no longer listed leaves. With rebuild,
// everything is read again. progress, when not nil, is called after each
// source read. Writers are serialised by a lock; a kill at any point
// leaves the index answering with what the last manifest lists.
func (ix *Index) Update(sources []Source, rebuild bool, progress func(Progress)) (UpdateStats, error) {
	var st UpdateStats
	if err := os.MkdirAll(ix.dir, 0o700); err != nil {
		return st, err
	}
	lk, err := safefile.LockFile(filepath.Join(ix.dir, lockName))
	if err != nil {
		return st, fmt.Errorf("lock the search index: %w", err)
	}
	defer lk.Unlock()
	m, err := ix.readManifest()
	if err != nil || rebuild {
		// A manifest that cannot be read is started afresh: the index
		// is a cache of what the sources say.
		m = &manifest{Version: manifestVersion, Live: map[string]entry{}}
	}
	want := make(map[string]bool, len(sources))
	var todo []Source
	for _, s := range sources {
		if want[s.Key] {
			continue
		}
		want[s.Key] = true
		if e, ok := m.Live[s.Key]; ok && e.Stamp == s.Stamp {
			st.Unchanged++
			continue
		}
		todo = append(todo, s)
	}
	changed := false
	for k := range m.Live {
		if !want[k] {
			delete(m.Live, k)
			st.Removed++
			changed = true
		}
	}
	b := newBuilder()
	var pending []Source
	var prog Progress
	prog.Total = len(todo)
	flush := func() error {
		if len(b.recs) == 0 && len(pending) == 0 {
			return nil
		}
		if len(b.recs) > 0 {
			name := fmt.Sprintf("%s%06d%s", segPrefix, m.Next, segSuffix)
			m.Next++
			if err := b.write(filepath.Join(ix.dir, name)); err != nil {
				return fmt.Errorf("write search index segment: %w", err)
			}
			m.Segments = append(m.Segments, name)
			for i, s := range pending {
				m.Live[s.Key] = entry{Stamp: s.Stamp, Seg: name, Doc: i}
			}
		}
		pending, b = nil, newBuilder()
		return ix.commit(m)
	}
	for _, s := range todo {
		d, err := s.Load()
		prog.Done++
		prog.Bytes += s.Stamp.Size
		if err != nil || d == nil {
			st.Failed++
			m.Live[s.Key] = entry{Stamp: s.Stamp}
		} else {
			d.Key = s.Key
			// The entry changes when its segment is written; until then
			// the old document (if any) still answers.
			b.add(d)
			pending = append(pending, s)
			st.Added++
		}
		changed = true
		if progress != nil {
			progress(prog)
		}
		if b.size >= batchBytes {
			if err := flush(); err != nil {
				return st, err
			}
		}
	}
	if err := flush(); err != nil {
		return st, err
	}
	if len(m.Segments) > maxSegments || ix.mostlyDead(m) {
		if err := ix.merge(m); err != nil {
			return st, err
		}
		st.Merged = true
		changed = true
	}
	if changed || rebuild {
		return st, ix.commit(m)
	}
	ix.removeStray(m)
	return st, nil
}

// commit drops the segments no live document lies in, writes the
// manifest, and removes every segment file it does not list.
func (ix *Index) commit(m *manifest) error {
	used := map[string]bool{}
	for _, e := range m.Live {
		if e.Seg != "" {
			used[e.Seg] = true
		}
	}
	kept := m.Segments[:0]
	for _, s := range m.Segments {
		if used[s] {
			kept = append(kept, s)
		}
	}
	m.Segments = kept
	if err := ix.writeManifest(m); err != nil {
		return fmt.Errorf("write search index manifest: %w", err)
	}
	ix.removeStray(m)
	return nil
}

// removeStray removes segment files m does not list: those of a writer
// killed before its manifest, and those a merge replaced.
func (ix *Index) removeStray(m *manifest) {
	listed := map[string]bool{}
	for _, s := range m.Segments {
		listed[s] = true
	}
	des, err := os.ReadDir(ix.dir)
	if err != nil {
		return
	}
	for _, de := range des {
		n := de.Name()
		if (validSegName(n) && !listed[n]) || safefile.IsTemp(n) {
			os.Remove(filepath.Join(ix.dir, n))
		}
	}
}

// mostlyDead says most documents of m's segments have been replaced.
func (ix *Index) mostlyDead(m *manifest) bool {
	if len(m.Segments) < 2 {
		return false
	}
	total := 0
	for _, s := range m.Segments {
		seg, err := openSegment(filepath.Join(ix.dir, s), s)
		if err != nil {
			return true
		}
		total += seg.ndocs
		seg.close()
	}
	live := 0
	for _, e := range m.Live {
		if e.Seg != "" {
			live++
		}
	}
	return live*2 < total
}

// merge rewrites m's live documents into new segments, a batch at a
// time, and points m at them; the caller commits.
func (ix *Index) merge(m *manifest) error {
	bySeg := map[string][]string{}
	for k, e := range m.Live {
		if e.Seg != "" {
			bySeg[e.Seg] = append(bySeg[e.Seg], k)
		}
	}
	b := newBuilder()
	var keys []string
	var segs []string
	moved := map[string]entry{}
	flush := func() error {
		if len(b.recs) == 0 {
			return nil
		}
		name := fmt.Sprintf("%s%06d%s", segPrefix, m.Next, segSuffix)
		m.Next++
		if err := b.write(filepath.Join(ix.dir, name)); err != nil {
			return fmt.Errorf("merge search index: %w", err)
		}
		segs = append(segs, name)
		for i, k := range keys {
			e := m.Live[k]
			e.Seg, e.Doc = name, i
			moved[k] = e
		}
		b, keys = newBuilder(), nil
		return nil
	}
	for _, s := range m.Segments {
		ks := bySeg[s]
		sort.Slice(ks, func(i, j int) bool { return m.Live[ks[i]].Doc < m.Live[ks[j]].Doc })
		seg, err := openSegment(filepath.Join(ix.dir, s), s)
		if err != nil {
			// A segment that cannot be read: its sources are read again
			// next time.
			for _, k := range ks {
				delete(m.Live, k)
			}
			continue
		}
		for _, k := range ks {
			d, err := seg.doc(m.Live[k].Doc)
			if err != nil {
				delete(m.Live, k)
				continue
			}
			b.add(d)
			keys = append(keys, k)
			if b.size >= batchBytes {
				if err := flush(); err != nil {
					seg.close()
					return err
				}
			}
		}
		seg.close()
	}
	if err := flush(); err != nil {
		return err
	}
	for k, e := range moved {
		m.Live[k] = e
	}
	m.Segments = segs
	return nil
}

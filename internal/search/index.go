package search

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// The files of an index directory.
const (
	manifestName = "manifest.json"
	lockName     = "lock"
	segPrefix    = "seg-"
	segSuffix    = ".six"
	// manifestVersion is the manifest's format; another is rebuilt.
	manifestVersion = 2
	// maxManifest bounds the manifest read.
	maxManifest = 512 << 20
	// batchBytes is how much a writer gathers in memory before it writes
	// a segment: the bound on an indexer's memory, whatever the archive.
	batchBytes = 32 << 20
	// maxSegments is how many small segments (smaller than a full
	// batch's, fullSegment) an index keeps before they are merged.
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

// manifest lists an index's segments and its live documents. On disk
// (manifest.json) its first line is the header a search reads, a JSON
// object with the segments, each with its number of documents and those
// of them that no longer answer; then one line per source, a JSON array
// [key, size, mtime, tail, segment, doc], that only writers read.
type manifest struct {
	Version  int
	Next     int
	Segments []string
	Docs     map[string]int  // documents per segment
	Spans    map[string]span // the times of each segment's documents
	Live     map[string]entry
}

// span is the oldest and the newest time of a segment's documents, in
// Unix seconds: a search reads the newest segments first and stops when
// the rest can only hold older documents. The zero span is unknown.
type span struct {
	Oldest int64 `json:"oldest,omitempty"`
	Newest int64 `json:"newest,omitempty"`
}

// header is the manifest's first line.
type header struct {
	Version  int         `json:"version"`
	Next     int         `json:"next"`
	Segments []segHeader `json:"segments"`
}

type segHeader struct {
	Name string `json:"name"`
	Docs int    `json:"docs"`
	span
	Dead []int `json:"dead,omitempty"`
}

// maxSourceLine bounds one source's line of the manifest.
const maxSourceLine = 1 << 20

func newManifest() *manifest {
	return &manifest{Version: manifestVersion, Docs: map[string]int{}, Spans: map[string]span{}, Live: map[string]entry{}}
}

func (ix *Index) manifestPath() string { return filepath.Join(ix.dir, manifestName) }

// readHeader reads the manifest's first line: what a search needs.
func (ix *Index) readHeader() (*header, *bufio.Reader, *os.File, error) {
	f, _, err := safefile.OpenRegular(ix.manifestPath())
	if err != nil {
		return nil, nil, nil, err
	}
	br := bufio.NewReaderSize(io.LimitReader(f, maxManifest), 64<<10)
	line, err := readLine(br, maxManifest)
	if err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("%s: %w", ix.manifestPath(), err)
	}
	h := &header{}
	if err := json.Unmarshal(line, h); err != nil || h.Version != manifestVersion {
		f.Close()
		return nil, nil, nil, fmt.Errorf("%s: not an index manifest of this version", ix.manifestPath())
	}
	for _, sg := range h.Segments {
		if !validSegName(sg.Name) || sg.Docs < 0 {
			f.Close()
			return nil, nil, nil, fmt.Errorf("%s: bad segment %q", ix.manifestPath(), sg.Name)
		}
	}
	return h, br, f, nil
}

// readLine reads one line of at most limit bytes, without its newline;
// io.EOF at the end.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > limit {
			return nil, errors.New("a line is too long")
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(line) > 0 {
			return line, nil
		}
		if err != nil {
			return nil, err
		}
		return line[:len(line)-1], nil
	}
}

// readManifest reads the whole manifest, for a writer; an index not yet
// built has an empty one.
func (ix *Index) readManifest() (*manifest, error) {
	h, br, f, err := ix.readHeader()
	if errors.Is(err, fs.ErrNotExist) {
		return newManifest(), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := newManifest()
	m.Next = h.Next
	for _, sg := range h.Segments {
		m.Segments = append(m.Segments, sg.Name)
		m.Docs[sg.Name] = sg.Docs
		m.Spans[sg.Name] = sg.span
	}
	for {
		line, err := readLine(br, maxSourceLine)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ix.manifestPath(), err)
		}
		key, e, ok := parseRow(line)
		if !ok {
			var row []any
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.UseNumber() // a time in nanoseconds is past a float64's precision
			if dec.Decode(&row) != nil || len(row) != 6 || !decodeRow(row, &key, &e) {
				return nil, fmt.Errorf("%s: a source line is not [key, size, mtime, tail, segment, doc]", ix.manifestPath())
			}
		}
		if e.Seg != "" && (e.Doc < 0 || e.Doc >= m.Docs[e.Seg]) {
			return nil, fmt.Errorf("%s: a source lies outside its segment", ix.manifestPath())
		}
		m.Live[key] = e
	}
	return m, nil
}

// parseRow reads a source line as writeManifest writes it,
// ["key",size,mtime,"tail","segment",doc], without encoding/json: the
// manifest of a large index has a line per session, and a catch-up reads
// it twice (a fifth of its time at 20,000 sessions). A line it does not
// take (a string with an escape, any other spelling) is left to
// encoding/json (decodeRow): ok is false.
func parseRow(line []byte) (key string, e entry, ok bool) {
	r := rowScanner{p: line, ok: true}
	r.sep('[')
	key = r.str()
	r.sep(',')
	z := r.num()
	r.sep(',')
	mt := r.num()
	r.sep(',')
	t := r.str()
	r.sep(',')
	sg := r.str()
	r.sep(',')
	d := r.num()
	r.sep(']')
	if !r.ok || len(r.p) != 0 || (sg != "" && !validSegName(sg)) || d < 0 || d > 1<<31 {
		return "", entry{}, false
	}
	return key, entry{Stamp: Stamp{Size: z, MTime: mt, Tail: t}, Seg: sg, Doc: int(d)}, true
}

// rowScanner reads a manifest's source line a field at a time; once a
// field is not as writeManifest writes it, ok is false and every later
// read gives nothing.
type rowScanner struct {
	p  []byte
	ok bool
}

// sep reads the byte c.
func (r *rowScanner) sep(c byte) {
	if !r.ok || len(r.p) == 0 || r.p[0] != c {
		r.ok = false
		return
	}
	r.p = r.p[1:]
}

// str reads a string with no escape in it.
func (r *rowScanner) str() string {
	if !r.ok || len(r.p) == 0 || r.p[0] != '"' {
		r.ok = false
		return ""
	}
	end := bytes.IndexByte(r.p[1:], '"')
	if end < 0 || bytes.IndexByte(r.p[1:1+end], '\\') >= 0 || !utf8.Valid(r.p[1:1+end]) {
		r.ok = false
		return ""
	}
	v := string(r.p[1 : 1+end])
	r.p = r.p[2+end:]
	return v
}

// num reads an integer.
func (r *rowScanner) num() int64 {
	if !r.ok {
		return 0
	}
	i := 0
	for i < len(r.p) && (r.p[i] == '-' || r.p[i] >= '0' && r.p[i] <= '9') {
		i++
	}
	n, err := strconv.ParseInt(string(r.p[:i]), 10, 64)
	r.p = r.p[i:]
	r.ok = err == nil
	return n
}

func decodeRow(row []any, key *string, e *entry) bool {
	num := func(v any) (int64, bool) {
		n, ok := v.(json.Number)
		if !ok {
			return 0, false
		}
		i, err := n.Int64()
		return i, err == nil
	}
	k, ok1 := row[0].(string)
	z, ok2 := num(row[1])
	mt, ok3 := num(row[2])
	t, ok4 := row[3].(string)
	sg, ok5 := row[4].(string)
	d, ok6 := num(row[5])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || (sg != "" && !validSegName(sg)) || d < 0 || d > 1<<31 {
		return false
	}
	*key = k
	*e = entry{Stamp: Stamp{Size: z, MTime: mt, Tail: t}, Seg: sg, Doc: int(d)}
	return true
}

func validSegName(s string) bool {
	return strings.HasPrefix(s, segPrefix) && strings.HasSuffix(s, segSuffix) && !strings.ContainsAny(s, `/\`) && len(s) < 64
}

// writeManifest writes m atomically.
func (ix *Index) writeManifest(m *manifest) error {
	live := map[string]map[int]bool{}
	for _, e := range m.Live {
		if e.Seg != "" {
			if live[e.Seg] == nil {
				live[e.Seg] = map[int]bool{}
			}
			live[e.Seg][e.Doc] = true
		}
	}
	h := header{Version: manifestVersion, Next: m.Next, Segments: []segHeader{}}
	for _, s := range m.Segments {
		sg := segHeader{Name: s, Docs: m.Docs[s], span: m.Spans[s]}
		for d := range sg.Docs {
			if !live[s][d] {
				sg.Dead = append(sg.Dead, d)
			}
		}
		h.Segments = append(h.Segments, sg)
	}
	keys := make([]string, 0, len(m.Live))
	for k := range m.Live {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return safefile.Write(ix.manifestPath(), 0o600, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(h); err != nil {
			return err
		}
		for _, k := range keys {
			e := m.Live[k]
			if err := enc.Encode([]any{k, e.Size, e.MTime, e.Tail, e.Seg, e.Doc}); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

// Index is a search index in a directory of its own.
type Index struct {
	dir string
}

// Open is the index in dir; nothing is read or created until used.
func Open(dir string) *Index { return &Index{dir: dir} }

// Dir is the index's directory.
func (ix *Index) Dir() string { return ix.dir }

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
	return ix.update(sources, rebuild, progress, true)
}

// ErrBusy says another process is updating the index.
var ErrBusy = errors.New("another process is updating the search index")

// update is Update; without wait, it returns ErrBusy at once when another
// writer holds the lock.
func (ix *Index) update(sources []Source, rebuild bool, progress func(Progress), wait bool) (UpdateStats, error) {
	var st UpdateStats
	if err := os.MkdirAll(ix.dir, 0o700); err != nil {
		return st, err
	}
	lockPath := filepath.Join(ix.dir, lockName)
	var lk *safefile.Lock
	var err error
	if wait {
		lk, err = safefile.LockFile(lockPath)
	} else if lk, err = safefile.TryLockFile(lockPath); err == nil && lk == nil {
		return st, ErrBusy
	}
	if err != nil {
		return st, fmt.Errorf("lock the search index: %w", err)
	}
	defer lk.Unlock()
	m, err := ix.readManifest()
	if err != nil || rebuild {
		// A manifest that cannot be read is started afresh: the index
		// is a cache of what the sources say.
		m = newManifest()
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
	// Oldest first: each segment then holds documents of a span of time
	// of its own, and a search, which reads the newest segments first,
	// stops early (a stamp's time is the session's last write, its
	// document's time the last activity its transcript records).
	slices.SortStableFunc(todo, func(a, b Source) int { return cmp.Compare(a.Stamp.MTime, b.Stamp.MTime) })
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
			m.Docs[name] = len(b.recs)
			m.Spans[name] = b.span()
			for i, s := range pending {
				m.Live[s.Key] = entry{Stamp: s.Stamp, Seg: name, Doc: i}
			}
		}
		pending, b = nil, newBuilder()
		if err := ix.commit(m); err != nil {
			return err
		}
		changed = false // committed: no need to write it again
		return nil
	}
	loaded, stop := loadAll(todo)
	defer stop()
	for _, s := range todo {
		r := <-loaded
		d, err := r.doc, r.err
		prog.Done++
		prog.Bytes += s.Stamp.Size
		if err != nil || d == nil {
			st.Failed++
			m.Live[s.Key] = entry{Stamp: s.Stamp}
		} else {
			// The entry changes when its segment is written; until then
			// the old document (if any) still answers.
			b.add(d, r.rec)
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
	if pick := ix.toMerge(m); pick != nil {
		if err := ix.merge(m, pick); err != nil {
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
	for s := range m.Docs {
		if !used[s] {
			delete(m.Docs, s)
			delete(m.Spans, s)
		}
	}
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

// fullSegment is the size from which a segment is a full batch's (a
// full index writes them, batchBytes of documents each): merges leave it
// alone unless most of its documents were replaced. A variable for tests.
var fullSegment = int64(batchBytes / 2)

// toMerge lists the segments a merge rewrites, nil when none is due: past
// maxSegments small ones, those and the segments most of whose documents
// were replaced; when most documents of the index were, every segment.
// The full segments of a large index are never rewritten for a small
// change (at 5 GiB, every update rewrote 445 MiB of index).
func (ix *Index) toMerge(m *manifest) map[string]bool {
	if ix.mostlyDead(m) {
		all := map[string]bool{}
		for _, s := range m.Segments {
			all[s] = true
		}
		return all
	}
	live := map[string]int{}
	for _, e := range m.Live {
		if e.Seg != "" {
			live[e.Seg]++
		}
	}
	pick := map[string]bool{}
	small := 0
	for _, s := range m.Segments {
		fi, err := os.Stat(filepath.Join(ix.dir, s))
		if err == nil && fi.Size() < fullSegment {
			small++
			pick[s] = true
		} else if live[s]*2 < m.Docs[s] {
			pick[s] = true
		}
	}
	if small <= maxSegments {
		return nil
	}
	return pick
}

// mostlyDead says most documents of m's segments have been replaced.
func (ix *Index) mostlyDead(m *manifest) bool {
	if len(m.Segments) < 2 {
		return false
	}
	total, live := 0, 0
	for _, s := range m.Segments {
		total += m.Docs[s]
	}
	for _, e := range m.Live {
		if e.Seg != "" {
			live++
		}
	}
	return live*2 < total
}

// merge rewrites the live documents of the segments in pick into new
// segments, a batch at a time, and points m at them; the caller commits.
func (ix *Index) merge(m *manifest, pick map[string]bool) error {
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
		m.Docs[name] = len(b.recs)
		m.Spans[name] = b.span()
		for i, k := range keys {
			e := m.Live[k]
			e.Seg, e.Doc = name, i
			moved[k] = e
		}
		b, keys = newBuilder(), nil
		return nil
	}
	var kept []string
	for _, s := range m.Segments {
		if !pick[s] {
			kept = append(kept, s)
			continue
		}
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
			b.add(d, encodeDoc(d))
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
	m.Segments = append(kept, segs...)
	return nil
}

// loaded is one source's document and its record, or why it could not
// be read.
type loaded struct {
	doc *Doc
	rec []byte
	err error
}

// loadAll reads the documents of sources on every CPU, each keyed by its
// source and encoded as its record (compressing it is a good part of an
// index's work), and delivers them in order; at most a few per CPU are read ahead, so memory stays bounded
// by the largest documents, not by their number. The caller receives one
// result per source, or calls stop to give up the rest.
func loadAll(sources []Source) (results <-chan loaded, stop func()) {
	workers := max(1, runtime.GOMAXPROCS(0))
	out := make(chan loaded, workers)
	done := make(chan struct{})
	// Each source's result has a channel of its own; a window of them
	// is in flight at a time.
	slots := make(chan chan loaded, 2*workers)
	go func() {
		defer close(slots)
		sem := make(chan struct{}, workers)
		for _, s := range sources {
			c := make(chan loaded, 1)
			select {
			case slots <- c:
			case <-done:
				return
			}
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				d, err := s.Load()
				var rec []byte
				if err == nil && d != nil {
					d.Key = s.Key
					rec = encodeDoc(d)
				}
				c <- loaded{d, rec, err}
			}()
		}
	}()
	go func() {
		defer close(out)
		for c := range slots {
			select {
			case out <- <-c:
			case <-done:
			}
		}
	}()
	var once sync.Once
	return out, func() { once.Do(func() { close(done) }) }
}

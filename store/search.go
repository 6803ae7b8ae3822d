package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Search is List with f.Query looked for in every text field of the
// records (handoff.Record.SearchText: the whole summary, decisions, next
// steps, questions, tags, files…), not only in what the index holds. The
// other conditions are the index's, as for List. The text comes from the
// search cache (see searchcache.go); a record whose cached text was cut,
// or that has none, is read. With f.Latest the match that entered the
// store last is returned, as List's latest. Without a cache (a writer
// holds the lock while it is missing, or the query holds a tab or a line
// break) every candidate's record is read, in List's order.
func (s *Store) Search(f Filter) ([]Entry, error) {
	q := strings.ToLower(strings.TrimSpace(f.Query))
	if q == "" {
		f.Query = ""
		return s.List(f)
	}
	limit := f.Limit
	if f.Latest {
		limit = 1
	}
	base := f
	base.Query, base.Limit, base.Latest = "", 0, false
	if searchable(q) {
		out, ok, err := s.searchCached(base, q, limit, f.Latest)
		if err != nil || ok {
			return out, err
		}
	}
	cands, err := s.List(base)
	if err != nil {
		return nil, err
	}
	raw := rawSearchable(q)
	var out []Entry
	for _, e := range cands {
		ok, err := s.entryContains(e, q, raw)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		out = append(out, e)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// searchCached is Search through the search cache: the index gives the
// candidates (newest first, base's conditions), the cache's line of each
// its text; only a record whose line was cut, or that has none, is read.
// Neither file is held whole: the index is read in chunks, keeping a
// lineRef of each line, and the lines of the matches are read again one
// by one, so memory stays flat in the size of the store (issue 49:
// 100,000 handoffs within 20 MiB). ok is false when there is no cache to
// use, or the index is damaged and no rebuild could be written (a writer
// holds the lock): the caller then reads the records.
func (s *Store) searchCached(base Filter, q string, limit int, lastEntered bool) (out []Entry, ok bool, err error) {
	out, ok, err = s.searchCachedOnce(base, q, limit, lastEntered)
	if !errors.Is(err, errCorruptIndex) {
		return out, ok, err
	}
	// Rebuild the index (withIndex does, when no writer holds the lock),
	// then read it again; damaged still, the caller reads the records.
	if err := s.withIndex(func(*parsedIndex) error { return nil }); err != nil {
		return nil, false, err
	}
	out, ok, err = s.searchCachedOnce(base, q, limit, lastEntered)
	if errors.Is(err, errCorruptIndex) {
		return nil, false, nil
	}
	return out, ok, err
}

// searchCachedOnce is searchCached on the index as it is: damage is an
// error wrapping errCorruptIndex.
func (s *Store) searchCachedOnce(base Filter, q string, limit int, lastEntered bool) (out []Entry, ok bool, err error) {
	m, err := newMatcher(base)
	if err != nil {
		return nil, false, err
	}
	// An id is upper-case ASCII: only an ASCII query can be in one.
	idASCII := isASCII([]byte(q))
	mark := func(line []byte, r *lineRef) error {
		if r.del {
			return nil
		}
		match, err := m.match(line)
		if err != nil {
			return err
		}
		r.matched = match
		r.idHit = match && idASCII && indexFoldASCII(line[2:tombstoneLen], q)
		return nil
	}
	ix, f, err := s.streamIndex(mark)
	if err != nil || f == nil {
		return nil, err == nil, err
	}
	defer f.Close()
	// ix.live is ascending by id: each cache line finds its entry by a
	// binary search, or at once when it follows the previous line's (the
	// cache is in the index's order, and that is mostly the ids'); the
	// last line for an id is the one left.
	next := 0
	cached, err := s.loadSearch(q, func(id [2]uint64, st byte) {
		i, found := next, next < len(ix.live) && ix.live[next].hi == id[0] && ix.live[next].lo == id[1]
		if !found {
			i, found = findLive(ix.live, id[0], id[1])
		}
		if found {
			ix.live[i].cached = st
			next = i + 1
		}
	})
	if err != nil || !cached {
		return nil, false, err
	}
	raw := rawSearchable(q)
	var line []byte
	for k := len(ix.live) - 1; k >= 0; k-- {
		r := &ix.live[ix.entered(k)]
		if !r.matched {
			continue
		}
		hit := r.idHit || r.cached == searchFound
		if !hit && r.cached == searchMiss {
			continue
		}
		if line, err = readLine(f, r, line); err != nil {
			return nil, false, safefile.Wrap("read", s.path(indexFile), err)
		}
		ie, _, err := parseLine(line)
		if err != nil {
			return nil, false, &indexError{Reason: err.Error() + " (found searching)"}
		}
		e := ie.toEntry()
		if !hit {
			if hit, err = s.entryContains(e, q, raw); err != nil {
				return nil, false, err
			}
		}
		if !hit {
			continue
		}
		out = append(out, e)
		if lastEntered || limit > 0 && len(out) == limit {
			break
		}
	}
	return out, true, nil
}

// streamIndex reads the index in chunks and returns its lineRefs, with
// mark called on every line (refScanner.onLine), and the file, open, for
// reading lines again; the parsedIndex holds no bytes. A missing index
// with no records gives no file and no error; a damaged or missing one
// an error wrapping errCorruptIndex.
func (s *Store) streamIndex(mark func(line []byte, r *lineRef) error) (*parsedIndex, *os.File, error) {
	if s.pendingActive() {
		s.tryRepair()
	}
	path := s.path(indexFile)
	f, size, err := openIndexFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		has, err := s.hasRecords()
		if err != nil || !has {
			return nil, nil, err
		}
		return nil, nil, &indexError{Reason: "missing while records exist"}
	}
	if err != nil {
		return nil, nil, err
	}
	sc := refScanner{onLine: mark}
	buf := make([]byte, min(size, indexChunk))
	have, off := 0, 0 // bytes of buf in use; the file offset of buf[0]
	for read := 0; int64(read) < size; {
		n, err := f.ReadAt(buf[have:min(int64(len(buf)), size-int64(off))], int64(read))
		if n == 0 && err != nil {
			f.Close()
			return nil, nil, safefile.Wrap("read", path, err)
		}
		read += n
		have += n
		data := buf[:have]
		start := 0
		if off == 0 {
			nl := bytes.IndexByte(data, '\n')
			if nl < 0 || string(data[:nl]) != indexHeader {
				f.Close()
				return nil, nil, &indexError{Line: 1, Reason: headerReason(data[:max(nl, 0)])}
			}
			start, sc.lineNo = nl+1, 1
		}
		done := sc.lines(data[start:], off+start) - off
		if off == 0 && done > start {
			// Room for every line, as dense as the first chunk's, and a
			// tenth more: the refs are not copied as they grow.
			est := int64(len(sc.refs)) * (size - int64(start)) / int64(done-start)
			sc.refs = slices.Grow(sc.refs, int(min(est+est/10+16, size/tombstoneLen)))
		}
		if sc.err != nil {
			f.Close()
			return nil, nil, sc.err
		}
		if done == 0 && have == len(buf) {
			// A line longer than the chunk: read on with a larger one.
			buf = slices.Grow(buf, len(buf))[:2*len(buf)]
			continue
		}
		// What is left is the start of a line (or a torn append at the end).
		have = copy(buf, data[done:])
		off += done
	}
	ix := &parsedIndex{refs: sc.refs, lines: len(sc.refs)}
	ix.live, ix.inFileOrder = sc.live()
	return ix, f, nil
}

// indexChunk is how much of the index streamIndex reads at a time.
const indexChunk = 256 << 10

// readLine reads the line of r from the index file f into buf.
func readLine(f *os.File, r *lineRef, buf []byte) ([]byte, error) {
	buf = slices.Grow(buf[:0], int(r.end-r.off))[:r.end-r.off]
	if _, err := f.ReadAt(buf, int64(r.off)); err != nil {
		return nil, err
	}
	return buf, nil
}

// entryContains reports whether the record of e holds q (lower case): from
// the index fields when they do, else from the record. With raw, the
// record file's bytes are looked at first, and a file that does not hold
// q at all is not decoded (most records, for most queries). A record that
// cannot be read is left out with a warning, as a rebuilt index leaves it
// out.
func (s *Store) entryContains(e Entry, q string, raw bool) (bool, error) {
	if e.Matches(q) {
		return true, nil
	}
	if raw {
		data, err := readRegular(s.recordPath(e.ID), handoff.MaxRecordSz)
		if err == nil && !containsFold(data, q) {
			return false, nil
		}
	}
	rec, err := s.Get(e.ID)
	if errors.Is(err, ErrNotFound) {
		return false, nil // removed since the index was read
	}
	if err != nil {
		s.warnf(fmt.Errorf("search: %s left out: %w", e.ID, err))
		return false, nil
	}
	return strings.Contains(rec.SearchText(), q), nil
}

// rawSearchable reports whether q (lower case) appears in a record file's
// bytes wherever it appears in the record's text: true when q holds no
// character the JSON encoder may escape (quote, backslash, <, >, &,
// control characters, U+2028, U+2029), since the encoder writes every
// other character as it is.
func rawSearchable(q string) bool {
	for _, r := range q {
		if r < 0x20 || r == '"' || r == '\\' || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return q != ""
}

// containsFold reports whether data, lower-cased, contains q (lower case).
func containsFold(data []byte, q string) bool {
	if isASCII([]byte(q)) {
		return indexFoldASCII(data, q) || !isASCII(data) && bytes.Contains(bytes.ToLower(data), []byte(q))
	}
	return bytes.Contains(bytes.ToLower(data), []byte(q))
}

// ResolveLegacy finds the record an earlier version knew by ref
// (source.legacy_id, as import --legacy keeps it, 20260312-101112): the
// one whose old id is ref, or else the only one whose old id starts with
// ref. No match wraps ErrNotFound; several give an *AmbiguousError. Only
// the index's legacy entries are read.
func (s *Store) ResolveLegacy(ref string) (handoff.ID, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", fmt.Errorf("old id %q: %w", ref, ErrNotFound)
	}
	es, err := s.legacyMatches(ref, Filter{})
	if err != nil {
		return "", err
	}
	var exact []legacyEntry
	for _, e := range es {
		if e.legacyID == ref {
			exact = append(exact, e)
		}
	}
	if len(exact) == 1 {
		es = exact
	}
	switch len(es) {
	case 0:
		return "", fmt.Errorf("old id %q: %w", handoff.Shorten(ref, 40), ErrNotFound)
	case 1:
		return es[0].ID, nil
	}
	amb := &AmbiguousError{Prefix: ref}
	for _, e := range es {
		amb.Candidates = append(amb.Candidates, e.Entry)
	}
	return "", amb
}

// legacyEntry is an entry with the old id its record keeps.
type legacyEntry struct {
	Entry
	legacyID string
}

// legacyMatches returns the legacy records whose old id starts with
// prefix and that match f (but for its id prefix and limit), newest first.
func (s *Store) legacyMatches(prefix string, f Filter) ([]legacyEntry, error) {
	f.IDPrefix, f.Limit, f.Latest = "", 0, false
	es, err := s.Search(f)
	if err != nil {
		return nil, err
	}
	var out []legacyEntry
	for _, e := range es {
		if e.Source != handoff.SourceLegacy {
			continue
		}
		rec, err := s.Get(e.ID)
		if err != nil {
			continue // removed meanwhile, or damaged: store check reports it
		}
		if strings.HasPrefix(rec.Source.LegacyID, prefix) {
			out = append(out, legacyEntry{e, rec.Source.LegacyID})
		}
	}
	return out, nil
}

// ListLegacy is Search with f.IDPrefix read as the beginning of the id an
// earlier version gave the records (list --id 20260312), newest first;
// with f.Latest, the newest only.
func (s *Store) ListLegacy(f Filter) ([]Entry, error) {
	es, err := s.legacyMatches(strings.TrimSpace(f.IDPrefix), f)
	if err != nil {
		return nil, err
	}
	limit := f.Limit
	if f.Latest {
		limit = 1
	}
	var out []Entry
	for _, e := range es {
		out = append(out, e.Entry)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

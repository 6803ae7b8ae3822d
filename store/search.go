package store

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
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
// ok is false when there is no cache to use.
func (s *Store) searchCached(base Filter, q string, limit int, lastEntered bool) (out []Entry, ok bool, err error) {
	hits, err := s.loadSearch(q)
	if err != nil || hits == nil {
		return nil, false, err
	}
	m, err := newMatcher(base)
	if err != nil {
		return nil, false, err
	}
	m.limit = 0
	raw := rawSearchable(q)
	// An id is upper-case ASCII: only an ASCII query can be in one.
	idASCII := isASCII([]byte(q))
	err = s.withIndex(func(ix *parsedIndex) error {
		out = out[:0]
		best := -1 // with lastEntered: the match whose line comes last
		for k := len(ix.live) - 1; k >= 0; k-- {
			i := ix.entered(k)
			if lastEntered && best >= 0 && ix.live[i].off < ix.live[best].off {
				continue
			}
			line := ix.line(i)
			match, err := m.match(line)
			if err != nil {
				return &indexError{Line: ix.lineNumber(i), Reason: err.Error()}
			}
			if !match {
				continue
			}
			r := ix.live[i]
			st, has := hits.lookup([2]uint64{r.hi, r.lo})
			hit := idASCII && indexFoldASCII(line[2:tombstoneLen], q) || has && st == searchFound
			if !hit && (!has || st == searchCut) {
				e, err := ix.entry(i)
				if err != nil {
					return err
				}
				if hit, err = s.entryContains(e, q, raw); err != nil {
					return err
				}
			}
			if !hit {
				continue
			}
			if lastEntered {
				best = i
				continue
			}
			e, err := ix.entry(i)
			if err != nil {
				return err
			}
			out = append(out, e)
			if limit > 0 && len(out) == limit {
				break
			}
		}
		if best >= 0 {
			e, err := ix.entry(best)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err == nil, err
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

package sqlitefile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// Reading one session of a database shared by many (OpenCode's part
// table holds every session's parts) by scanning the whole table made
// reading all of them quadratic. An index whose first column is the one
// a reader filters on (session_id) leads to the rows at the cost of the
// index pages on the way (§1.6, index b-trees; §2.6, an index's entry in
// sqlite_schema).

// maxIndexRows bounds the rowids one ScanEqual collects.
const maxIndexRows = 1 << 20

// ScanEqual calls fn with the rows of t whose column col is one of
// values (text), in rowid order, each once, until fn returns an error.
// When an index of t begins with col (in ascending order, of the binary
// collation, not partial), only the index entries of those values and
// their rows are read; otherwise, or when the index cannot be read, every
// row is scanned and fn gets those whose col is one of values.
func (t *Table) ScanEqual(col string, values []string, fn func(r *Row) error) error {
	c := t.Column(col)
	if c < 0 {
		return fmt.Errorf("table %s: %w: %s", t.Name, ErrNoColumn, col)
	}
	if root := t.indexOn(col); root != 0 {
		if rowids, err := t.seekAll(root, values); err == nil {
			return t.rows(rowids, fn)
		}
	}
	return t.Scan(func(r *Row) error {
		v, err := r.Value(c)
		if s, ok := v.(string); err != nil || !ok || !slices.Contains(values, s) {
			return nil
		}
		return fn(r)
	})
}

// HasEqual says which of values (text) column col of t holds in some row,
// reading only an index of t that begins with col (as ScanEqual takes
// one): a few pages a value, not the table. ok is false when there is no
// such index or it cannot be read: the caller scans.
func (t *Table) HasEqual(col string, values []string) (has map[string]bool, ok bool) {
	root := t.indexOn(col)
	if root == 0 {
		return nil, false
	}
	has = map[string]bool{}
	s := &scan{db: t.db, firstOnly: true} // a seek a value, each visiting its pages afresh
	for _, v := range values {
		var ids []int64
		s.reset()
		if err := s.seek(root, 0, v, &ids); err != nil && !errors.Is(err, errStop) {
			return nil, false
		}
		if len(ids) > 0 {
			has[v] = true
		}
	}
	return has, true
}

// indexOn is the root page of an index of t whose first column is col,
// ascending, of the binary collation and not partial; 0 when there is
// none.
func (t *Table) indexOn(col string) uint32 {
	schema := schemaTable
	schema.db = t.db
	var root uint32
	err := schema.Scan(func(r *Row) error {
		typ, _ := r.Value(0)
		tbl, _ := r.Value(2)
		sql, _ := r.Value(4)
		rp, _ := r.Value(3)
		if typ != "index" || !isString(tbl) || !strings.EqualFold(tbl.(string), t.Name) || !isString(sql) {
			return nil
		}
		n, ok := rp.(int64)
		if !ok || n <= 1 || n > int64(t.db.pages) || !indexLeads(sql.(string), col) {
			return nil
		}
		root = uint32(n)
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return 0
	}
	return root
}

// indexLeads says whether the CREATE INDEX statement sql indexes col
// first, ascending, with the binary collation, over every row.
func indexLeads(sql, col string) bool {
	toks := tokens(stripComments(sql))
	on := indexFold(toks, "ON")
	if on < 0 || on+2 >= len(toks) || indexFold(toks, "WHERE") >= 0 {
		return false
	}
	list := toks[on+2]
	if !strings.HasPrefix(list, "(") || !strings.HasSuffix(list, ")") {
		return false
	}
	first := splitTop(list[1 : len(list)-1])
	if len(first) == 0 {
		return false
	}
	words := tokens(first[0])
	if len(words) == 0 || !strings.EqualFold(unquote(words[0]), col) {
		return false
	}
	for rest := words[1:]; len(rest) > 0; {
		switch {
		case strings.EqualFold(rest[0], "ASC"):
			rest = rest[1:]
		case strings.EqualFold(rest[0], "COLLATE") && len(rest) > 1 && strings.EqualFold(unquote(rest[1]), "BINARY"):
			rest = rest[2:]
		default:
			return false
		}
	}
	return true
}

// seekAll collects the rowids of the index entries (root) whose first
// value is one of values, sorted, each once.
func (t *Table) seekAll(root uint32, values []string) ([]int64, error) {
	var out []int64
	s := &scan{db: t.db}
	for _, v := range values {
		s.reset()
		if err := s.seek(root, 0, v, &out); err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// seek adds to out the rowids of the entries of the index b-tree page n
// (and below) whose first value is v. A child holds the entries between
// the keys either side of it: it is read only when v may lie there.
func (s *scan) seek(n uint32, depth int, v string, out *[]int64) error {
	pg, err := s.btreePage(n, depth, false)
	if err != nil {
		return err
	}
	first, err := s.firstAtLeast(pg, n, v)
	if err != nil {
		return err
	}
	for i := first; i < pg.ncells; i++ {
		cell, err := pg.cell(i)
		if err != nil {
			return err
		}
		child := uint32(0)
		if pg.interior {
			if len(cell) < 4 {
				return corrupt("page %d: cell %d cut short", n, i)
			}
			child, cell = binary.BigEndian.Uint32(cell), cell[4:]
		}
		cmp, rowid, err := s.indexKey(n, i, cell, v)
		if err != nil {
			return err
		}
		// Every key before this one is at most v (a greater one
		// returned): its left child may hold v when its key is at
		// least v.
		if child != 0 && cmp >= 0 {
			if err := s.seek(child, depth+1, v, out); err != nil {
				return err
			}
		}
		if cmp == 0 {
			if len(*out) >= maxIndexRows {
				return corrupt("over %d index entries", maxIndexRows)
			}
			*out = append(*out, rowid)
			if s.firstOnly {
				return errStop
			}
		}
		if cmp > 0 {
			return nil // every later key, and the right child, is above v
		}
	}
	if pg.interior {
		return s.seek(pg.right(), depth+1, v, out)
	}
	return nil
}

// firstAtLeast is the first cell of the index b-tree page pg (page n)
// whose key is at least v, ncells when none is: a page's keys are in
// order, and it is found by halves, a few cells read rather than every
// one before it. Every key before it is below v, and so is every entry
// of their children. A key that overflows its page is read through a
// walk of its own (the seek reads it again), its chain still visited
// once.
func (s *scan) firstAtLeast(pg btreePage, n uint32, v string) (int, error) {
	lo, hi := 0, pg.ncells
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		cell, err := pg.cell(mid)
		if err != nil {
			return 0, err
		}
		if pg.interior {
			if len(cell) < 4 {
				return 0, corrupt("page %d: cell %d cut short", n, mid)
			}
			cell = cell[4:]
		}
		peek := scan{db: s.db} // a walk of its own, on the stack
		cmp, _, err := peek.indexKey(n, mid, cell, v)
		if err != nil {
			return 0, err
		}
		if cmp < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// keyReads counts the index entries compared (tests).
var keyReads atomic.Int64

// indexKey compares the first value of the index entry in cell with v
// (SQLite's order: NULL and numbers before text, blobs after; text by
// its bytes) and reads the entry's rowid, its last value.
func (s *scan) indexKey(n uint32, i int, cell []byte, v string) (cmp int, rowid int64, err error) {
	keyReads.Add(1)
	size, a := varint(cell)
	if a == 0 || size > uint64(s.db.lim.MaxRecord) {
		return 0, 0, corrupt("page %d: cell %d: payload size", n, i)
	}
	body := cell[a:]
	local := s.db.indexLocalSize(size)
	var payload []byte
	if uint64(local) == size {
		if uint64(len(body)) < size {
			return 0, 0, corrupt("page %d: cell %d: payload past the page's end", n, i)
		}
		payload = body[:size]
	} else {
		if len(body) < local+4 {
			return 0, 0, corrupt("page %d: cell %d: payload past the page's end", n, i)
		}
		if payload, err = s.payload(body[:local], size, binary.BigEndian.Uint32(body[local:])); err != nil {
			return 0, 0, err
		}
	}
	// An entry is a few values: its header read into an array here, and
	// its key compared where it lies (a seek compares thousands).
	var buf [2*8 + 1]uint64
	h, err := parseHeaderIn(payload, size, buf[:])
	if err != nil || len(h.types) < 2 {
		return 0, 0, corrupt("page %d: cell %d: an index entry", n, i)
	}
	last := len(h.types) - 1
	if h.offsets[last+1] > uint64(len(payload)) || h.offsets[1] > uint64(len(payload)) {
		return 0, 0, corrupt("page %d: cell %d: an index entry past its payload", n, i)
	}
	idBytes := payload[h.offsets[last]:h.offsets[last+1]]
	r, ok := intValue(h.types[last], idBytes)
	if !ok {
		id, err := decodeValue(h.types[last], idBytes)
		if err != nil {
			return 0, 0, err
		}
		return 0, 0, corrupt("page %d: cell %d: an index entry's rowid is %s", n, i, describe(id))
	}
	switch t, key := h.types[0], payload[h.offsets[0]:h.offsets[1]]; {
	case t >= 13 && t%2 == 1: // text, by its bytes
		switch {
		case string(key) < v:
			return -1, r, nil
		case string(key) > v:
			return 1, r, nil
		}
		return 0, r, nil
	case t >= 12: // a blob
		return 1, r, nil
	}
	return -1, r, nil // NULL, an integer or a real
}

// indexLocalSize is how much of an index b-tree cell's payload of size
// bytes is stored on its page (§1.6: X is (U-12)*64/255-23 for an
// index).
func (db *DB) indexLocalSize(size uint64) int {
	return db.localPart(size, (uint64(db.usable)-12)*64/255-23)
}

// rows calls fn with the rows of rowids (sorted), each found by its
// rowid; a rowid the table does not hold is passed over.
func (t *Table) rows(rowids []int64, fn func(r *Row) error) error {
	// One scan and one row serve every rowid in turn: a row is valid
	// only while fn runs, and each rowid's descent visits its pages
	// afresh.
	s := &scan{db: t.db}
	r := &Row{t: t, s: s}
	for _, id := range rowids {
		s.reset()
		err := s.find(t.root, 0, id, func(rowid int64, local []byte, size uint64, overflow uint32) error {
			*r = Row{Rowid: rowid, t: t, s: s, local: local, size: size, overflow: overflow}
			return fn(r)
		})
		if err != nil {
			if errors.Is(err, errStop) {
				return err
			}
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
	}
	return nil
}

// find calls fn with the row of rowid in the table b-tree page n (and
// below), if there is one.
func (s *scan) find(n uint32, depth int, rowid int64, fn rowFunc) error {
	if depth == 0 {
		if rowid < s.lastRowid {
			s.hints = [len(s.hints)]findHint{}
		}
		s.lastRowid = rowid
	}
	pg, err := s.btreePage(n, depth, true)
	if err != nil {
		return err
	}
	start, hinted := 0, pg.interior && depth < len(s.hints)
	if h := &s.hints[min(depth, len(s.hints)-1)]; hinted && len(h.p) > 0 && &h.p[0] == &pg.p[0] {
		start = h.cell
	}
	for i := start; i < pg.ncells; i++ {
		cell, err := pg.cell(i)
		if err != nil {
			return err
		}
		if pg.interior {
			// A 4-byte left child (rowids up to the key), then the key.
			if len(cell) < 5 {
				return corrupt("page %d: cell %d cut short", n, i)
			}
			key, k := varint(cell[4:])
			if k == 0 {
				return corrupt("page %d: cell %d cut short", n, i)
			}
			if rowid <= int64(key) {
				if hinted {
					s.hints[depth] = findHint{pg.p, i}
				}
				return s.find(binary.BigEndian.Uint32(cell), depth+1, rowid, fn)
			}
			continue
		}
		_, a := varint(cell)
		id, b := varint(cell[min(a, len(cell)):])
		if a == 0 || b == 0 {
			return corrupt("page %d: cell %d cut short", n, i)
		}
		if int64(id) == rowid {
			return s.leafCell(n, i, cell, fn)
		}
	}
	if pg.interior {
		if hinted {
			s.hints[depth] = findHint{pg.p, pg.ncells}
		}
		return s.find(pg.right(), depth+1, rowid, fn)
	}
	return nil
}

// findHint is where a descent left an interior page: every cell before
// cell holds a key below the rowid it looked for. A scan that looks
// rowids up in ascending order (rows) starts the next descent through
// the same page there: on the very same bytes (a page the cache holds),
// the cells before it are ones the descent would pass, each checked and
// found below again, so the answer, and the error, are those of a walk
// from the first cell.
type findHint struct {
	p    []byte
	cell int
}

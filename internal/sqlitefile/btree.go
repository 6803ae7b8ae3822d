package sqlitefile

import (
	"encoding/binary"
	"errors"
	"slices"
)

// The b-tree page types (§1.6, the page header's first byte).
const (
	interiorIndex = 0x02
	interiorTable = 0x05
	leafIndex     = 0x0a
	leafTable     = 0x0d
)

// errStop ends a scan early without an error.
var errStop = errors.New("stop")

// scan is one walk of a table b-tree: the pages it visited, so that no
// page is read twice (a cycle in a hostile file, or two parents sharing
// a child, is corruption, not a loop).
type scan struct {
	db *DB
	// visited holds the pages visited: the first few in few (a
	// descent to one row visits a handful), the rest in more.
	few  [8]uint32
	nfew int
	more map[uint32]bool
	// firstOnly ends an index seek at its first entry (HasEqual).
	firstOnly bool
	// row is the header of the row last read (Row.Value), its lists in
	// rowBuf while they fit: read row after row without allocating.
	row    recordHeader
	rowBuf [2*16 + 1]uint64
	// hints are where find's last descent left each interior page on
	// its way, by depth, and lastRowid the rowid it looked for (index.go).
	hints     [8]findHint
	lastRowid int64
}

// reset forgets the pages visited, for the next descent of a scan that
// serves several.
func (s *scan) reset() {
	s.nfew = 0
	clear(s.more)
}

func (s *scan) visit(n uint32) error {
	if slices.Contains(s.few[:s.nfew], n) || s.more[n] {
		return corrupt("page %d reached twice (a cycle)", n)
	}
	if s.nfew < len(s.few) {
		s.few[s.nfew] = n
		s.nfew++
		return nil
	}
	if s.more == nil {
		s.more = map[uint32]bool{}
	}
	s.more[n] = true
	return nil
}

// rowFunc receives each row of a table in rowid order: its rowid, the
// part of its payload stored on the leaf, the payload's whole size, and
// the first overflow page (0 when it all fits on the leaf).
type rowFunc func(rowid int64, local []byte, size uint64, overflow uint32) error

// walk calls fn for every row of the table b-tree rooted at page n, in
// rowid order (§1.6).
func (s *scan) walk(n uint32, depth int, fn rowFunc) error {
	pg, err := s.btreePage(n, depth, true)
	if err != nil {
		return err
	}
	for i := 0; i < pg.ncells; i++ {
		cell, err := pg.cell(i)
		if err != nil {
			return err
		}
		if pg.interior {
			// A 4-byte left child page, then the key (a rowid varint).
			if len(cell) < 4 {
				return corrupt("page %d: cell %d cut short", n, i)
			}
			if err := s.walk(binary.BigEndian.Uint32(cell), depth+1, fn); err != nil {
				return err
			}
			continue
		}
		if err := s.leafCell(n, i, cell, fn); err != nil {
			return err
		}
	}
	if pg.interior {
		return s.walk(pg.right(), depth+1, fn)
	}
	return nil
}

// btreePage is a b-tree page (§1.6) whose header and cell pointers were
// checked: its cells are read with cell, its right-most child with right.
type btreePage struct {
	n        uint32
	p        []byte
	hdr      int // where the header starts: 100 on page 1
	interior bool
	ncells   int
	cellsAt  int // the cell pointer array
	usable   int
}

// btreePage reads page n, depth pages below a root, as a page of a table
// b-tree (table) or of an index's: the depth is bounded, the page is
// visited once in the scan, its kind must be one of the tree's and its
// cell pointer array must lie within the page.
func (s *scan) btreePage(n uint32, depth int, table bool) (btreePage, error) {
	if depth > s.db.lim.MaxDepth {
		return btreePage{}, corrupt("b-tree deeper than %d pages", s.db.lim.MaxDepth)
	}
	if err := s.visit(n); err != nil {
		return btreePage{}, err
	}
	p, cached := s.db.cache.get(n)
	if !cached {
		var err error
		if p, err = s.db.page(n); err != nil {
			return btreePage{}, err
		}
	}
	pg := btreePage{n: n, p: p, usable: s.db.usable}
	if n == 1 {
		pg.hdr = 100 // page 1 begins with the database header
	}
	if len(p) < pg.hdr+12 {
		return btreePage{}, corrupt("page %d: too short for a b-tree header", n)
	}
	kind := p[pg.hdr]
	leaf, interior, want := byte(leafTable), byte(interiorTable), "a table's"
	if !table {
		leaf, interior, want = leafIndex, interiorIndex, "an index's"
	}
	switch {
	case kind == leaf:
	case kind == interior:
		pg.interior = true
	case table && (kind == interiorIndex || kind == leafIndex):
		return btreePage{}, corrupt("page %d: an index b-tree page where a table's is expected (an index, or a WITHOUT ROWID table, is not read)", n)
	default:
		return btreePage{}, corrupt("page %d: b-tree page type %#x where %s is expected", n, kind, want)
	}
	pg.ncells = int(binary.BigEndian.Uint16(p[pg.hdr+3:]))
	pg.cellsAt = pg.hdr + 8
	if pg.interior {
		pg.cellsAt = pg.hdr + 12
	}
	if pg.cellsAt+2*pg.ncells > pg.usable {
		return btreePage{}, corrupt("page %d: %d cells overflow the page", n, pg.ncells)
	}
	if !cached {
		s.db.cache.keep(n, p, pg.interior)
	}
	return pg, nil
}

// cell is cell i of the page, from its start to the page's usable end.
func (pg *btreePage) cell(i int) ([]byte, error) {
	c := int(binary.BigEndian.Uint16(pg.p[pg.cellsAt+2*i:]))
	if c < pg.cellsAt+2*pg.ncells || c >= pg.usable {
		return nil, corrupt("page %d: cell %d at offset %d", pg.n, i, c)
	}
	return pg.p[c:pg.usable], nil
}

// right is an interior page's right-most child.
func (pg *btreePage) right() uint32 { return binary.BigEndian.Uint32(pg.p[pg.hdr+8:]) }

// leafCell decodes one cell of a table leaf (§1.6): the payload's size
// and the rowid, varints, then the payload's local part and, when it
// overflows, the first overflow page.
func (s *scan) leafCell(n uint32, i int, cell []byte, fn rowFunc) error {
	size, a := varint(cell)
	if a == 0 {
		return corrupt("page %d: cell %d: payload size cut short", n, i)
	}
	rowid, b := varint(cell[a:])
	if b == 0 {
		return corrupt("page %d: cell %d: rowid cut short", n, i)
	}
	body := cell[a+b:]
	local := s.db.localSize(size)
	if uint64(local) == size {
		if uint64(len(body)) < size {
			return corrupt("page %d: cell %d: payload past the page's end", n, i)
		}
		return fn(int64(rowid), body[:size], size, 0)
	}
	if len(body) < local+4 {
		return corrupt("page %d: cell %d: payload past the page's end", n, i)
	}
	return fn(int64(rowid), body[:local], size, binary.BigEndian.Uint32(body[local:]))
}

// localSize is how much of a table leaf's payload of size bytes is
// stored on the leaf itself; the rest is on overflow pages (§1.6: X is
// U-35 for a table leaf).
func (db *DB) localSize(size uint64) int {
	return db.localPart(size, uint64(db.usable)-35)
}

// localPart is how much of a payload of size bytes is stored on its page
// when at most x bytes may be (§1.6: M is (U-12)*32/255-23, K is
// M+((P-M)%(U-4)), and K is kept when it is at most X, else M).
func (db *DB) localPart(size, x uint64) int {
	u := uint64(db.usable)
	if size <= x {
		return int(size)
	}
	m := (u-12)*32/255 - 23
	k := m + (size-m)%(u-4)
	if k <= x {
		return int(k)
	}
	return int(m)
}

// payload joins a payload's local part with its overflow chain, size
// bytes in all (§1.6: each overflow page is a 4-byte next page number,
// then up to usable-4 bytes of content).
func (s *scan) payload(local []byte, size uint64, overflow uint32) ([]byte, error) {
	out := make([]byte, 0, size)
	out = append(out, local...)
	var p []byte // each overflow page in turn, copied from
	for next := overflow; uint64(len(out)) < size; {
		if next == 0 {
			return nil, corrupt("overflow chain ends %d bytes short of its %d-byte record", size-uint64(len(out)), size)
		}
		if err := s.visit(next); err != nil {
			return nil, err
		}
		var err error
		if p, err = s.db.readPage(next, p); err != nil {
			return nil, err
		}
		take := min(uint64(s.db.usable-4), size-uint64(len(out)))
		out = append(out, p[4:4+take]...)
		next = binary.BigEndian.Uint32(p)
	}
	return out, nil
}

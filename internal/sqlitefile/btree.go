package sqlitefile

import (
	"encoding/binary"
	"errors"
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
	db      *DB
	visited map[uint32]bool
	// firstOnly ends an index seek at its first entry (HasEqual).
	firstOnly bool
}

func (s *scan) visit(n uint32) error {
	if s.visited[n] {
		return corrupt("page %d reached twice (a cycle)", n)
	}
	s.visited[n] = true
	return nil
}

// rowFunc receives each row of a table in rowid order: its rowid, the
// part of its payload stored on the leaf, the payload's whole size, and
// the first overflow page (0 when it all fits on the leaf).
type rowFunc func(rowid int64, local []byte, size uint64, overflow uint32) error

// walk calls fn for every row of the table b-tree rooted at page n, in
// rowid order (§1.6).
func (s *scan) walk(n uint32, depth int, fn rowFunc) error {
	if depth > s.db.lim.MaxDepth {
		return corrupt("b-tree deeper than %d pages", s.db.lim.MaxDepth)
	}
	if err := s.visit(n); err != nil {
		return err
	}
	p, err := s.db.page(n)
	if err != nil {
		return err
	}
	hdr := 0
	if n == 1 {
		hdr = 100 // page 1 begins with the database header
	}
	if len(p) < hdr+8 {
		return corrupt("page %d: too short for a b-tree header", n)
	}
	kind := p[hdr]
	ncells := int(binary.BigEndian.Uint16(p[hdr+3:]))
	cellsAt := hdr + 8
	switch kind {
	case leafTable:
	case interiorTable:
		cellsAt = hdr + 12
	case interiorIndex, leafIndex:
		return corrupt("page %d: an index b-tree page where a table's is expected (an index, or a WITHOUT ROWID table, is not read)", n)
	default:
		return corrupt("page %d: b-tree page type %#x", n, kind)
	}
	if cellsAt+2*ncells > s.db.usable {
		return corrupt("page %d: %d cells overflow the page", n, ncells)
	}
	for i := 0; i < ncells; i++ {
		c := int(binary.BigEndian.Uint16(p[cellsAt+2*i:]))
		if c < cellsAt+2*ncells || c >= s.db.usable {
			return corrupt("page %d: cell %d at offset %d", n, i, c)
		}
		cell := p[c:s.db.usable]
		if kind == interiorTable {
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
	if kind == interiorTable {
		return s.walk(binary.BigEndian.Uint32(p[hdr+8:]), depth+1, fn)
	}
	return nil
}

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
// stored on the leaf itself; the rest is on overflow pages (§1.6).
func (db *DB) localSize(size uint64) int {
	u := uint64(db.usable)
	x := u - 35
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
	for next := overflow; uint64(len(out)) < size; {
		if next == 0 {
			return nil, corrupt("overflow chain ends %d bytes short of its %d-byte record", size-uint64(len(out)), size)
		}
		if err := s.visit(next); err != nil {
			return nil, err
		}
		p, err := s.db.page(next)
		if err != nil {
			return nil, err
		}
		take := min(uint64(s.db.usable-4), size-uint64(len(out)))
		out = append(out, p[4:4+take]...)
		next = binary.BigEndian.Uint32(p)
	}
	return out, nil
}

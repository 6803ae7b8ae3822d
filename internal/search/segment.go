package search

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"sort"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// A segment file holds the documents of one batch and their inverted
// index (docs/SEARCH.md gives the layout):
//
//	magic "SHSEG02\n"
//	documents    one record each: uvarint length, then the record
//	doc table    per document: 8-byte offset of its record, 8-byte time
//	postings     per term: entries of (doc delta, unit<<3|kind, positions)
//	terms        sorted, in blocks of termsPerBlock: term, postings offset,
//	             length and entry count
//	block index  per block: its first term, offset and length
//	footer       8-byte fields: ndocs, doc table, postings, terms, block
//	             index offsets, block index length, CRC-32 of all before,
//	             then magic again
//
// Every number in a record or a posting is a uvarint. A segment is written
// once, to a temporary file renamed into place, and never changed.

const (
	segMagic      = "SHSEG02\n"
	footerSize    = 8 * 8
	termsPerBlock = 64
	// maxRecord bounds one document record as read back.
	maxRecord = 64 << 20
	// maxBlockIndex bounds the block index read when a segment opens.
	maxBlockIndex = 256 << 20
)

// errCorrupt says a segment is not what its writer wrote.
var errCorrupt = errors.New("corrupt segment")

// builder gathers the documents of one segment in memory.
type builder struct {
	recs  [][]byte
	times []int64
	post  map[string]*plist
	size  int // bytes held, roughly
	// scratch, reused per unit
	unit  int // serial of the unit being added
	order []*plist
	buf   []byte
}

type plist struct {
	buf     []byte
	lastDoc int
	n       int
	// seen is the serial of the last unit the term was found in, and ps
	// its positions there.
	seen int
	ps   []uint32
}

func newBuilder() *builder {
	return &builder{post: map[string]*plist{}, buf: make([]byte, 0, maxTerm)}
}

// span is the times of the builder's documents.
func (b *builder) span() span {
	if len(b.times) == 0 {
		return span{}
	}
	return span{Oldest: slices.Min(b.times), Newest: slices.Max(b.times)}
}

// add indexes d, whose record is rec (encodeDoc's, made wherever there
// is a CPU to spare), as the builder's next document and returns its
// number.
func (b *builder) add(d *Doc, rec []byte) int {
	n := len(b.recs)
	b.recs = append(b.recs, rec)
	b.times = append(b.times, d.Time.Unix())
	b.size += len(rec) + 64
	positions := 0
	for u, unit := range d.Units {
		if positions >= maxPositions {
			break
		}
		b.unit++
		b.order = b.order[:0]
		p := uint32(0)
		scanTerms(unit.Text, b.buf, func(term []byte, _, _ int) bool {
			if positions >= maxPositions || p >= maxUnitPositions {
				return false
			}
			positions++
			pl := b.post[string(term)]
			if pl == nil {
				pl = &plist{}
				b.post[string(term)] = pl
				b.size += len(term) + 64
			}
			if pl.seen != b.unit {
				pl.seen, pl.ps = b.unit, pl.ps[:0]
				b.order = append(b.order, pl)
			}
			pl.ps = append(pl.ps, p)
			p++
			return true
		})
		for _, pl := range b.order {
			before := len(pl.buf)
			pl.buf = binary.AppendUvarint(pl.buf, uint64(n-pl.lastDoc))
			pl.buf = binary.AppendUvarint(pl.buf, uint64(u)<<3|uint64(unit.Kind))
			pl.buf = binary.AppendUvarint(pl.buf, uint64(len(pl.ps)))
			last := uint32(0)
			for _, q := range pl.ps {
				pl.buf = binary.AppendUvarint(pl.buf, uint64(q-last))
				last = q
			}
			pl.lastDoc = n
			pl.n++
			b.size += len(pl.buf) - before
			if cap(pl.ps) > 1024 {
				// A flood of one term in one unit keeps no scratch.
				pl.ps = nil
			}
		}
	}
	return n
}

// countingWriter counts and checksums what passes through it.
type countingWriter struct {
	w   *bufio.Writer
	n   int64
	crc uint32
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.crc = crc32.Update(c.crc, crc32.IEEETable, p)
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) uvarint(v uint64) {
	var tmp [binary.MaxVarintLen64]byte
	c.Write(binary.AppendUvarint(tmp[:0], v))
}

func (c *countingWriter) u64(v uint64) {
	var tmp [8]byte
	binary.LittleEndian.PutUint64(tmp[:], v)
	c.Write(tmp[:])
}

// write writes the segment to path atomically.
func (b *builder) write(path string) error {
	return safefile.Write(path, 0o600, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		c := &countingWriter{w: bw}
		c.Write([]byte(segMagic))
		offs := make([]int64, len(b.recs))
		for i, r := range b.recs {
			offs[i] = c.n
			c.uvarint(uint64(len(r)))
			c.Write(r)
		}
		docTable := c.n
		for i := range b.recs {
			c.u64(uint64(offs[i]))
			c.u64(uint64(b.times[i]))
		}
		termsSorted := make([]string, 0, len(b.post))
		for t := range b.post {
			termsSorted = append(termsSorted, t)
		}
		slices.Sort(termsSorted)
		postings := c.n
		postOff := make([]int64, len(termsSorted))
		for i, t := range termsSorted {
			postOff[i] = c.n - postings
			c.Write(b.post[t].buf)
		}
		termsAt := c.n
		type blockRef struct {
			first    string
			off, len int64
		}
		var blocks []blockRef
		for i, t := range termsSorted {
			if i%termsPerBlock == 0 {
				if len(blocks) > 0 {
					blocks[len(blocks)-1].len = c.n - termsAt - blocks[len(blocks)-1].off
				}
				blocks = append(blocks, blockRef{first: t, off: c.n - termsAt})
			}
			pl := b.post[t]
			c.uvarint(uint64(len(t)))
			c.Write([]byte(t))
			c.uvarint(uint64(postOff[i]))
			c.uvarint(uint64(len(pl.buf)))
			c.uvarint(uint64(pl.n))
		}
		if len(blocks) > 0 {
			blocks[len(blocks)-1].len = c.n - termsAt - blocks[len(blocks)-1].off
		}
		blockIndex := c.n
		for _, bl := range blocks {
			c.uvarint(uint64(len(bl.first)))
			c.Write([]byte(bl.first))
			c.uvarint(uint64(bl.off))
			c.uvarint(uint64(bl.len))
		}
		blockLen := c.n - blockIndex
		for _, v := range []int64{int64(len(b.recs)), docTable, postings, termsAt, blockIndex, blockLen} {
			c.u64(uint64(v))
		}
		crc := c.crc
		c.u64(uint64(crc))
		c.Write([]byte(segMagic))
		return bw.Flush()
	})
}

// segment is an open segment file.
type segment struct {
	name      string
	f         segFile
	size      int64
	ndocs     int
	docTable  int64
	postings  int64
	termsAt   int64
	blockAt   int64
	blocks    []blockEntry
	crcStored uint32
}

// segFile is what a segment is read from: its file (or, in tests, its
// bytes).
type segFile interface {
	io.ReaderAt
	io.Closer
}

type blockEntry struct {
	first    string
	off, len int64
}

// openSegment opens the segment at path and reads its block index.
func openSegment(path, name string) (*segment, error) {
	f, size, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	s := &segment{name: name, f: f, size: size}
	if err := s.load(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func (s *segment) load() error {
	if s.size < int64(len(segMagic))+footerSize {
		return errCorrupt
	}
	foot := make([]byte, footerSize)
	if _, err := s.f.ReadAt(foot, s.size-footerSize); err != nil {
		return err
	}
	if string(foot[footerSize-8:]) != segMagic {
		return errCorrupt
	}
	v := func(i int) int64 { return int64(binary.LittleEndian.Uint64(foot[i*8:])) }
	ndocs, docTable, postings, termsAt, blockAt, blockLen := v(0), v(1), v(2), v(3), v(4), v(5)
	s.crcStored = uint32(v(6))
	end := s.size - footerSize
	if ndocs < 0 || docTable < int64(len(segMagic)) || docTable > end || ndocs > (end-docTable)/16 ||
		postings != docTable+16*ndocs || termsAt < postings || blockAt < termsAt || blockLen < 0 ||
		blockLen > maxBlockIndex || blockAt+blockLen != end {
		return errCorrupt
	}
	s.ndocs, s.docTable, s.postings, s.termsAt, s.blockAt = int(ndocs), docTable, postings, termsAt, blockAt
	raw := make([]byte, blockLen)
	if _, err := s.f.ReadAt(raw, blockAt); err != nil {
		return err
	}
	r := bytes.NewReader(raw)
	for r.Len() > 0 {
		first, err := readString(r, maxTerm*4)
		if err != nil {
			return err
		}
		off, err1 := binary.ReadUvarint(r)
		n, err2 := binary.ReadUvarint(r)
		if err1 != nil || err2 != nil || int64(off) > blockAt-termsAt || int64(n) > blockAt-termsAt-int64(off) {
			return errCorrupt
		}
		s.blocks = append(s.blocks, blockEntry{first: first, off: int64(off), len: int64(n)})
	}
	return nil
}

// verify reads the whole segment and checks its checksum.
func (s *segment) verify() error {
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(s.f, 0, s.size-16)); err != nil {
		return err
	}
	if h.Sum32() != s.crcStored {
		return errCorrupt
	}
	return nil
}

func (s *segment) close() error { return s.f.Close() }

func readString(r *bytes.Reader, limit int) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(limit) || n > uint64(r.Len()) {
		return "", errCorrupt
	}
	b := make([]byte, n)
	r.Read(b)
	return string(b), nil
}

// termEntry is one term of the dictionary.
type termEntry struct {
	term    string
	off, ln int64
	n       int
}

// block reads the terms of block i.
func (s *segment) block(i int) ([]termEntry, error) {
	bl := s.blocks[i]
	raw := make([]byte, bl.len)
	if _, err := s.f.ReadAt(raw, s.termsAt+bl.off); err != nil {
		return nil, err
	}
	r := bytes.NewReader(raw)
	var out []termEntry
	for r.Len() > 0 {
		t, err := readString(r, maxTerm*4)
		if err != nil {
			return nil, err
		}
		off, e1 := binary.ReadUvarint(r)
		ln, e2 := binary.ReadUvarint(r)
		n, e3 := binary.ReadUvarint(r)
		// Every entry takes at least a byte of its posting list.
		if e1 != nil || e2 != nil || e3 != nil || int64(off) > s.termsAt-s.postings || int64(ln) > s.termsAt-s.postings-int64(off) || n > ln {
			return nil, errCorrupt
		}
		out = append(out, termEntry{term: t, off: int64(off), ln: int64(ln), n: int(n)})
	}
	return out, nil
}

// terms lists the terms equal to t, or starting with it when prefix,
// at most limit of them.
func (s *segment) terms(t string, prefix bool, limit int) ([]termEntry, error) {
	// The last block whose first term is <= t holds t, or the first
	// terms with the prefix.
	i := sort.Search(len(s.blocks), func(i int) bool { return s.blocks[i].first > t }) - 1
	if i < 0 {
		i = 0
	}
	var out []termEntry
	for ; i < len(s.blocks); i++ {
		ts, err := s.block(i)
		if err != nil {
			return nil, err
		}
		for _, e := range ts {
			switch {
			case e.term < t:
				continue
			case e.term == t:
				out = append(out, e)
				if !prefix {
					return out, nil
				}
			case prefix && len(e.term) > len(t) && e.term[:len(t)] == t:
				out = append(out, e)
			default:
				return out, nil
			}
			if len(out) >= limit {
				return out, nil
			}
		}
	}
	return out, nil
}

// posting is one entry of a posting list: a unit of a document and where
// in it the term lies.
type posting struct {
	doc, unit int
	kind      Kind
	pos       []uint32
}

// postings decodes the posting list of e.
func (s *segment) postingsOf(e termEntry) ([]posting, error) {
	raw := make([]byte, e.ln)
	if _, err := s.f.ReadAt(raw, s.postings+e.off); err != nil {
		return nil, err
	}
	out := make([]posting, 0, e.n)
	// The positions of all entries share one array: at most one
	// position a byte of the list.
	all := make([]uint32, 0, len(raw)/2)
	doc := 0
	for p := 0; p < len(raw); {
		var vals [3]uint64
		for i := range vals {
			v, n := binary.Uvarint(raw[p:])
			if n <= 0 {
				return nil, errCorrupt
			}
			vals[i], p = v, p+n
		}
		doc += int(vals[0])
		if doc >= s.ndocs || vals[2] > uint64(len(raw)-p) {
			return nil, errCorrupt
		}
		from := len(all)
		last := uint32(0)
		for range vals[2] {
			v, n := binary.Uvarint(raw[p:])
			if n <= 0 {
				return nil, errCorrupt
			}
			p += n
			last += uint32(v)
			all = append(all, last)
		}
		out = append(out, posting{doc: doc, unit: int(vals[1] >> 3), kind: Kind(vals[1] & 7), pos: all[from:len(all):len(all)]})
	}
	return out, nil
}

// docTimes are the times of the segment's documents, in Unix seconds.
func (s *segment) docTimes() ([]int64, error) {
	raw := make([]byte, 16*s.ndocs)
	if _, err := s.f.ReadAt(raw, s.docTable); err != nil {
		return nil, err
	}
	out := make([]int64, s.ndocs)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(raw[16*i+8:]))
	}
	return out, nil
}

// doc reads document n, with its units.
func (s *segment) doc(n int) (*Doc, error) {
	rec, err := s.record(n)
	if err != nil {
		return nil, err
	}
	d, units, err := decodeDoc(rec)
	if err != nil {
		return nil, err
	}
	if d.Units, err = decodeUnits(units); err != nil {
		return nil, err
	}
	return d, nil
}

// record reads the record of document n.
func (s *segment) record(n int) ([]byte, error) {
	if n < 0 || n >= s.ndocs {
		return nil, errCorrupt
	}
	var b [16]byte
	if _, err := s.f.ReadAt(b[:], s.docTable+int64(n)*16); err != nil {
		return nil, err
	}
	off := int64(binary.LittleEndian.Uint64(b[:]))
	if off < int64(len(segMagic)) || off >= s.docTable {
		return nil, errCorrupt
	}
	head := make([]byte, binary.MaxVarintLen64)
	k, _ := s.f.ReadAt(head, off)
	ln, m := binary.Uvarint(head[:k])
	if m <= 0 || ln > maxRecord || int64(ln) > s.docTable-off-int64(m) {
		return nil, errCorrupt
	}
	rec := make([]byte, ln)
	if _, err := s.f.ReadAt(rec, off+int64(m)); err != nil {
		return nil, err
	}
	return rec, nil
}

package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// countingReader counts the reads of each page of a database file.
type countingReader struct {
	r        *bytes.Reader
	pageSize int64
	reads    map[int64]int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	if c.pageSize > 0 && len(p) == int(c.pageSize) {
		c.reads[off/c.pageSize+1]++
	}
	return c.r.ReadAt(p, off)
}

// Reading every session of testdata/indexed.db through its index reads
// each interior page of the table and of the index from the file once,
// though every seek and every row's descent passes through them (they
// were read, and allocated, on every descent); the leaves are read as
// before, and the rows are those a scan finds (TestScanEqualAgreesWithScan).
func TestDescentsReadInteriorPagesOnce(t *testing.T) {
	b, err := os.ReadFile("testdata/indexed.db")
	if err != nil {
		t.Fatal(err)
	}
	c := &countingReader{r: bytes.NewReader(b), reads: map[int64]int{}}
	db, err := OpenReaderAt(c, int64(len(b)), nil, 0, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c.pageSize = int64(db.PageSize())
	tbl, err := db.Table("part")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for i := range 40 {
		s := fmt.Sprintf("ses_%03d", i)
		if i == 7 {
			s += strings.Repeat("x", 1500)
		}
		if err := tbl.ScanEqual("session_id", []string{s}, func(r *Row) error {
			rows++
			_, err := r.Text(tbl.Column("data"))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if rows < 2900 {
		t.Fatalf("%d rows read", rows)
	}
	interior := 0
	for n, k := range c.reads {
		page := b[(n-1)*c.pageSize : n*c.pageSize]
		if n == 1 {
			page = page[100:]
		}
		if page[0] != interiorTable && page[0] != interiorIndex {
			continue
		}
		interior++
		if k > 1 {
			t.Errorf("interior page %d (type %#x) read %d times", n, page[0], k)
		}
	}
	if interior < 3 {
		t.Fatalf("%d interior pages read: the fixture's b-trees are not deep", interior)
	}
	if db.cache.bytes > maxCachedInterior {
		t.Errorf("%d bytes of interior pages kept, more than %d", db.cache.bytes, maxCachedInterior)
	}
}

// The cache keeps interior pages up to its bound and no further, and
// only the last few leaves.
func TestPageCacheBounded(t *testing.T) {
	var c pageCache
	page := make([]byte, 65536)
	for n := uint32(1); n <= 2*maxCachedInterior/65536; n++ {
		c.keep(n, page, true)
		c.keep(n+1<<20, page, false)
	}
	if c.bytes > maxCachedInterior || len(c.interior) != maxCachedInterior/65536 {
		t.Errorf("%d interior pages, %d bytes kept", len(c.interior), c.bytes)
	}
	if _, ok := c.get(1); !ok {
		t.Error("the first interior page read is not kept")
	}
	if _, ok := c.get(2 * maxCachedInterior / 65536); ok {
		t.Error("an interior page past the bound is kept")
	}
	if _, ok := c.get(1 + 1<<20); ok {
		t.Error("an old leaf is kept")
	}
	if _, ok := c.get(2*maxCachedInterior/65536 + 1<<20); !ok {
		t.Error("the last leaf read is not kept")
	}
}

// rows, one scan looking rowids up in order and starting each descent
// through an interior page where the last one left it, finds what a
// fresh descent a rowid finds, row for row and error for error, also
// when the file's interior pages are out of order or damaged.
func TestRowsAgreeWithFreshDescents(t *testing.T) {
	orig, err := os.ReadFile("testdata/indexed.db")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 60 {
		b := slices.Clone(orig)
		ps := 512
		var interior []int
		for n := 1; n*ps <= len(b); n++ {
			hdr := (n - 1) * ps
			if n == 1 {
				hdr += 100
			}
			if b[hdr] == interiorTable {
				interior = append(interior, hdr)
			}
		}
		if len(interior) < 3 {
			t.Fatalf("%d interior table pages", len(interior))
		}
		// Swap two cell pointers (keys out of order), or damage a byte.
		for range 1 + round%4 {
			hdr := interior[rng.IntN(len(interior))]
			ncells := int(binary.BigEndian.Uint16(b[hdr+3:]))
			if ncells == 0 || hdr+12+2*ncells > len(b) {
				continue
			}
			i, j := hdr+12+2*rng.IntN(ncells), hdr+12+2*rng.IntN(ncells)
			if round%3 == 2 {
				b[hdr+rng.IntN(ps-(hdr%ps))] ^= byte(1 + rng.IntN(255))
				continue
			}
			b[i], b[i+1], b[j], b[j+1] = b[j], b[j+1], b[i], b[i+1]
		}
		db, err := OpenReaderAt(bytes.NewReader(b), int64(len(b)), nil, 0, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := db.Table("part")
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for id := int64(-2); id < 3010; id += int64(1 + rng.IntN(3)) {
			ids = append(ids, id)
		}
		var got []int64
		gotErr := tbl.rows(ids, func(r *Row) error { got = append(got, r.Rowid); return nil })
		var want []int64
		var wantErr error
		for _, id := range ids {
			s := &scan{db: db}
			if err := s.find(tbl.root, 0, id, func(rowid int64, _ []byte, _ uint64, _ uint32) error {
				want = append(want, rowid)
				return nil
			}); err != nil {
				wantErr = fmt.Errorf("table %s: %w", tbl.Name, err)
				break
			}
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !slices.Equal(got, want) {
			t.Errorf("round %d: rows gives %d rows (%v), fresh descents %d (%v)", round, len(got), gotErr, len(want), wantErr)
		}
	}
}

// TextBytes gives Text's value, and Text's error, for every column of
// every row of every table of the fixtures (text, NULL, integers, reals,
// blobs, a rowid's alias, values on overflow pages, a column out of
// range).
func TestTextBytesAgreesWithText(t *testing.T) {
	for _, f := range []string{"testdata/indexed.db", "testdata/plain.db", "testdata/tiny.db", "testdata/wal.db"} {
		db, err := Open(f, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		schema, err := db.Schema()
		if err != nil {
			t.Fatal(err)
		}
		cells := 0
		for name := range schema {
			tbl, err := db.Table(name)
			if err != nil {
				continue
			}
			if err := tbl.Scan(func(r *Row) error {
				for i := -1; i <= len(tbl.Columns); i++ {
					s, serr := r.Text(i)
					b, berr := r.TextBytes(i)
					if string(b) != s || fmt.Sprint(serr) != fmt.Sprint(berr) || serr == nil && s == "" && b != nil {
						t.Errorf("%s %s row %d column %d: TextBytes %.20q (%v), Text %.20q (%v)", f, name, r.Rowid, i, b, berr, s, serr)
					}
					cells++
				}
				return nil
			}); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatal(err) // a WITHOUT ROWID table is refused as not a rowid table's
			}
		}
		db.Close()
		if cells < 20 {
			t.Errorf("%s: %d values compared", f, cells)
		}
	}
}

package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
)

// readAll opens a database from memory and reads every value of every
// table sqlite_schema names, returning the first error.
func readAll(main, wal []byte, lim Limits) error {
	var w *bytes.Reader
	if wal != nil {
		w = bytes.NewReader(wal)
	}
	var db *DB
	var err error
	if w != nil {
		db, err = OpenReaderAt(bytes.NewReader(main), int64(len(main)), w, int64(len(wal)), lim)
	} else {
		db, err = OpenReaderAt(bytes.NewReader(main), int64(len(main)), nil, 0, lim)
	}
	if err != nil {
		return err
	}
	schema := schemaTable
	schema.db = db
	var names []string
	if err := schema.Scan(func(r *Row) error {
		if typ, _ := r.Value(0); typ == "table" {
			if s, err := r.Text(1); err == nil {
				names = append(names, s)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for _, n := range names {
		t, err := db.Table(n)
		if err != nil {
			return err
		}
		if err := t.Scan(func(r *Row) error {
			for i := range t.Columns {
				if _, err := r.Value(i); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// pageOf returns a copy of page n of a database in memory.
func pageOf(b []byte, ps int, n uint32) []byte {
	return b[int(n-1)*ps : int(n)*ps]
}

// leftmostLeaf follows the first child from the root down to a leaf.
func leftmostLeaf(b []byte, ps int, root uint32) uint32 {
	for n := root; ; {
		p := pageOf(b, ps, n)
		if p[0] == leafTable {
			return n
		}
		cell := int(binary.BigEndian.Uint16(p[12:]))
		n = binary.BigEndian.Uint32(p[cell:])
	}
}

// resum rewrites every frame checksum of a WAL after a change, as a
// writer would have written them.
func resum(wal []byte, ps int) {
	order := binary.ByteOrder(binary.LittleEndian)
	if binary.BigEndian.Uint32(wal) == walMagicBE {
		order = binary.BigEndian
	}
	s0, s1 := walChecksum(order, wal[:24], 0, 0)
	binary.BigEndian.PutUint32(wal[24:], s0)
	binary.BigEndian.PutUint32(wal[28:], s1)
	for off := walHeaderSize; off+walFrameHeaderSize+ps <= len(wal); off += walFrameHeaderSize + ps {
		s0, s1 = walChecksum(order, wal[off:off+8], s0, s1)
		s0, s1 = walChecksum(order, wal[off+walFrameHeaderSize:off+walFrameHeaderSize+ps], s0, s1)
		binary.BigEndian.PutUint32(wal[off+16:], s0)
		binary.BigEndian.PutUint32(wal[off+20:], s1)
	}
}

// TestHostile: damaged and malicious files are errors (ErrCorrupt where
// the content is at fault), never a panic, a loop or an unbounded read.
func TestHostile(t *testing.T) {
	plain, err := os.ReadFile("testdata/plain.db")
	if err != nil {
		t.Fatal(err)
	}
	const ps = 512
	db, err := OpenReaderAt(bytes.NewReader(plain), int64(len(plain)), nil, 0, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := db.Table("t")
	if err != nil {
		t.Fatal(err)
	}
	root := tbl.root
	var overflowed uint32 // the first overflow page of the 20,000-byte row
	if err := tbl.Scan(func(r *Row) error {
		if r.Rowid == 7 {
			overflowed = r.overflow
		}
		return nil
	}); err != nil || overflowed == 0 {
		t.Fatalf("the fixture: %v, overflow page %d", err, overflowed)
	}
	if p := pageOf(plain, ps, root); p[0] != interiorTable {
		t.Fatalf("the fixture's root page %d is not interior", root)
	}
	mutate := func(f func(b []byte)) []byte {
		b := append([]byte(nil), plain...)
		f(b)
		return b
	}
	cases := []struct {
		name string
		main []byte
		lim  Limits
		want string
	}{
		{"empty", nil, Limits{}, "shorter than its header"},
		{"not sqlite", []byte(strings.Repeat("x", 200)), Limits{}, "not a SQLite database"},
		{"truncated in the header", plain[:50], Limits{}, "shorter than its header"},
		{"truncated after a page", plain[:1500], Limits{}, ""},
		{"page size 3000", mutate(func(b []byte) { binary.BigEndian.PutUint16(b[16:], 3000) }), Limits{}, "page size 3000"},
		{"UTF-16", mutate(func(b []byte) { binary.BigEndian.PutUint32(b[56:], 2) }), Limits{}, "only UTF-8"},
		{"root is its own child", mutate(func(b []byte) {
			binary.BigEndian.PutUint32(pageOf(b, ps, root)[8:], root)
		}), Limits{}, "reached twice"},
		{"overflow chain cycle", mutate(func(b []byte) {
			binary.BigEndian.PutUint32(pageOf(b, ps, overflowed), overflowed)
		}), Limits{}, "reached twice"},
		{"child out of range", mutate(func(b []byte) {
			binary.BigEndian.PutUint32(pageOf(b, ps, root)[8:], 1<<30)
		}), Limits{}, "out of range"},
		{"huge varint payload size", mutate(func(b []byte) {
			p := pageOf(b, ps, leftmostLeaf(b, ps, root))
			cell := int(binary.BigEndian.Uint16(p[8:]))
			copy(p[cell:], bytes.Repeat([]byte{0xff}, 9))
		}), Limits{}, "past the page's end"},
		{"cell pointer past the page", mutate(func(b []byte) {
			p := pageOf(b, ps, leftmostLeaf(b, ps, root))
			binary.BigEndian.PutUint16(p[8:], 0xfff0)
		}), Limits{}, "cell 0 at offset"},
		{"too many cells", mutate(func(b []byte) {
			binary.BigEndian.PutUint16(pageOf(b, ps, leftmostLeaf(b, ps, root))[3:], 0xffff)
		}), Limits{}, "overflow the page"},
		{"unknown page type", mutate(func(b []byte) { pageOf(b, ps, root)[0] = 0x07 }), Limits{}, "page type"},
		{"deeper than allowed", plain, Limits{MaxDepth: 1}, "deeper than 1"},
		{"file larger than allowed", plain, Limits{MaxFile: 1000}, "more than the 1000 read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := readAll(c.main, nil, c.lim)
			if err == nil {
				t.Fatal("no error")
			}
			if c.want != "" && !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to say %q", err, c.want)
			}
			// UTF-16 is not corrupt, only not read.
			if c.lim == (Limits{}) && c.name != "UTF-16" && !errors.Is(err, ErrCorrupt) {
				t.Errorf("error %q is not ErrCorrupt", err)
			}
		})
	}
}

// TestTooLarge: a record larger than MaxRecord is still scanned; the
// values on its page read, those beyond it are ErrTooLarge, and no
// overflow page is read.
func TestTooLarge(t *testing.T) {
	db, err := Open("testdata/plain.db", Limits{MaxRecord: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl, err := db.Table("t")
	if err != nil {
		t.Fatal(err)
	}
	rows, large := 0, 0
	if err := tbl.Scan(func(r *Row) error {
		rows++
		id, err := r.Value(0) // the rowid
		if err != nil || id != r.Rowid {
			t.Errorf("rowid %d: id %v, %v", r.Rowid, id, err)
		}
		_, err = r.Value(1) // the name: 3,000 or 20,000 bytes in the large rows
		if r.TooLarge() {
			large++
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("rowid %d: %v", r.Rowid, err)
			}
			return nil
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if rows != 1000 || large != 5 {
		t.Errorf("%d rows, %d too large; want 1000 and 5 (rowid 7 and every 250th)", rows, large)
	}
}

// TestWALOfAnotherGeneration: frames whose salts are not the header's
// are left over from before a checkpoint restarted the log, however
// right their checksums: the log ends at the first of them.
func TestWALOfAnotherGeneration(t *testing.T) {
	main, wal := readPair(t, "testdata/wal.db")
	// The frame after the commit of rows 1-100 (the second commit).
	off := afterCommit(t, wal, 2)
	bad := append([]byte(nil), wal...)
	binary.BigEndian.PutUint32(bad[off+8:], binary.BigEndian.Uint32(bad[off+8:])+1)
	resum(bad, walPage)
	if n := scanT(t, main, bad, func(*Row) {}); n != 100 {
		t.Errorf("%d rows, want the 100 committed before the frame of another generation", n)
	}
	// The same change with the salt left alone, re-summed: all 200.
	good := append([]byte(nil), wal...)
	resum(good, walPage)
	if err := readAll(main, good, Limits{}); err != nil {
		t.Fatal(err)
	}
}

// FuzzOpen: any main file and WAL are read without a panic, within the
// limits.
func FuzzOpen(f *testing.F) {
	main, err := os.ReadFile("testdata/tiny.db")
	if err != nil {
		f.Fatal(err)
	}
	wal, err := os.ReadFile("testdata/tiny.db-wal")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(main, wal)
	f.Add(main, []byte(nil))
	f.Add(main[:600], wal[:100])
	f.Fuzz(func(t *testing.T, main, wal []byte) {
		_ = readAll(main, wal, Limits{MaxFile: 1 << 20, MaxRecord: 1 << 16, MaxDepth: 8})
	})
}

package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// ScanEqual through an index finds exactly the rows a whole scan finds,
// in rowid order: for every session id of testdata/indexed.db (among them
// ids whose index entries overflow their page), for a value no row has,
// and for several at once; and it reads the index, not every row.
func TestScanEqualAgreesWithScan(t *testing.T) {
	db, err := Open("testdata/indexed.db", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl, err := db.Table("part")
	if err != nil {
		t.Fatal(err)
	}
	if tbl.indexOn("session_id") == 0 {
		t.Fatal("the index on (session_id, id) is not found")
	}
	// What a whole scan says.
	bySession := map[string][]int64{}
	if err := tbl.Scan(func(r *Row) error {
		v, err := r.Value(tbl.Column("session_id"))
		if s, ok := v.(string); err == nil && ok {
			bySession[s] = append(bySession[s], r.Rowid)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(bySession) != 41 {
		t.Fatalf("%d sessions in the fixture, want 41", len(bySession))
	}
	got := func(values ...string) []int64 {
		t.Helper()
		var out []int64
		err := tbl.ScanEqual("session_id", values, func(r *Row) error {
			d, err := r.Text(tbl.Column("data"))
			if err != nil || !strings.HasPrefix(d, "data ") {
				t.Errorf("row %d: data %.20q, %v", r.Rowid, d, err)
			}
			out = append(out, r.Rowid)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	var all []int64
	var some []string
	root := tbl.indexOn("session_id")
	for s, want := range bySession {
		// The index itself answers: no fall back to a scan.
		if ids, err := tbl.seekAll(root, []string{s}); err != nil || !slices.Equal(ids, want) {
			t.Errorf("session %.12s: the index gives %d rowids (%v), a scan %d", s, len(ids), err, len(want))
		}
		if g := got(s); !slices.Equal(g, want) {
			t.Errorf("session %.12s: %d rows through the index, %d by a scan", s, len(g), len(want))
		}
		if len(some) < 3 {
			some = append(some, s)
			all = append(all, want...)
		}
	}
	slices.Sort(all)
	if g := got(some...); !slices.Equal(g, all) {
		t.Errorf("three sessions at once: %d rows, want %d", len(g), len(all))
	}
	if g := got("ses_none"); len(g) != 0 {
		t.Errorf("a session no row has: %v", g)
	}
	// HasEqual: which values some row holds, from the index alone.
	has, ok := tbl.HasEqual("session_id", append(some, "ses_none"))
	if !ok || len(has) != len(some) || has["ses_none"] {
		t.Errorf("HasEqual(%d sessions and one no row has) = %v, %v", len(some), has, ok)
	}
	// A descending or partial index is not used; a column no index
	// leads is scanned.
	other, err := db.Table("other")
	if err != nil {
		t.Fatal(err)
	}
	if other.indexOn("k") != 0 || other.indexOn("v") != 0 {
		t.Error("a descending or a partial index taken for a plain one")
	}
	n := 0
	if err := other.ScanEqual("k", []string{"k3", "k7"}, func(*Row) error { n++; return nil }); err != nil || n != 2 {
		t.Errorf("a scan of an unindexed column: %d rows, %v", n, err)
	}
}

func TestIndexLeads(t *testing.T) {
	for sql, want := range map[string]bool{
		"CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`)": true,
		"CREATE INDEX idx_messages_session_id ON messages (session_id)":                                      true,
		"create index if not exists x on t(session_id collate binary asc, y)":                                true,
		"CREATE INDEX x ON t (session_id DESC)":                                                              false,
		"CREATE INDEX x ON t (session_id COLLATE NOCASE)":                                                    false,
		"CREATE INDEX x ON t (session_id) WHERE session_id IS NOT NULL":                                      false,
		"CREATE INDEX x ON t (lower(session_id))":                                                            false,
		"CREATE INDEX x ON t (id, session_id)":                                                               false,
		"CREATE INDEX x ON t":                                                                                false,
	} {
		if got := indexLeads(sql, "session_id"); got != want {
			t.Errorf("indexLeads(%q) = %v, want %v", sql, got, want)
		}
	}
}

// A damaged or lying index is never a panic or a loop: an index that
// cannot be read falls back to scanning the table (the same rows), and
// bytes changed anywhere in the file give rows or an error.
func TestScanEqualHostile(t *testing.T) {
	orig, err := os.ReadFile("testdata/indexed.db")
	if err != nil {
		t.Fatal(err)
	}
	const ps = 512
	open := func(b []byte) (*Table, error) {
		db, err := OpenReaderAt(bytes.NewReader(b), int64(len(b)), nil, 0, Limits{})
		if err != nil {
			return nil, err
		}
		return db.Table("part")
	}
	tbl, err := open(orig)
	if err != nil {
		t.Fatal(err)
	}
	root := tbl.indexOn("session_id")
	if p := pageOf(orig, ps, root); p[0] != interiorIndex {
		t.Fatalf("the fixture's index root %d is not interior", root)
	}
	count := func(b []byte) (int, error) {
		tbl, err := open(b)
		if err != nil {
			return 0, err
		}
		n := 0
		err = tbl.ScanEqual("session_id", []string{"ses_001", "ses_002", "ses_003"}, func(r *Row) error {
			n++
			_, err := r.Value(2)
			return err
		})
		// HasEqual, its interior pages kept from one value to the
		// next, answers or says it cannot.
		if has, ok := tbl.HasEqual("session_id", []string{"ses_001", "ses_002", "ses_003", "zzz"}); ok && has["zzz"] {
			t.Errorf("HasEqual found a value no row holds")
		}
		return n, err
	}
	want, err := count(orig)
	if err != nil || want != 225 {
		t.Fatalf("the fixture: %d rows, %v", want, err)
	}
	// The index's root is its own right child: a cycle, read as a scan.
	cyc := append([]byte(nil), orig...)
	binary.BigEndian.PutUint32(pageOf(cyc, ps, root)[8:], root)
	if n, err := count(cyc); err != nil || n != want {
		t.Errorf("an index whose root is its own child: %d rows, %v; want %d by a scan", n, err, want)
	}
	if tc, err := open(cyc); err != nil {
		t.Fatal(err)
	} else if has, ok := tc.HasEqual("session_id", []string{"ses_001", "zzz"}); ok {
		t.Errorf("HasEqual through an index whose root is its own child = %v, want it refused", has)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		b := append([]byte(nil), orig...)
		for range 1 + r.IntN(8) {
			b[r.IntN(len(b))] = byte(r.IntN(256))
		}
		if _, err := count(b); err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) && !strings.Contains(err.Error(), "not text") {
			t.Errorf("changed bytes: %v", err)
		}
	}
}

// StateKey names a database's files as they were opened: the same while
// they stay, another once one changes, none while they were just written
// (a reader keeps nothing of those) or when opened from readers.
func TestStateKey(t *testing.T) {
	b, err := os.ReadFile("testdata/plain.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.db")
	os.WriteFile(path, b, 0o600)
	key := func() string {
		t.Helper()
		db, err := Open(path, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		return db.StateKey()
	}
	if k := key(); k != "" {
		t.Errorf("a file just written has a key: %q", k)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	k1 := key()
	if k1 == "" || key() != k1 {
		t.Errorf("a settled file: keys %q, %q", k1, key())
	}
	os.WriteFile(path, append(b, make([]byte, 512)...), 0o600)
	os.Chtimes(path, old, old)
	if k2 := key(); k2 == "" || k2 == k1 {
		t.Errorf("a changed file keeps its key: %q", k2)
	}
	db, err := OpenReaderAt(bytes.NewReader(b), int64(len(b)), nil, 0, Limits{})
	if err != nil || db.StateKey() != "" {
		t.Errorf("opened from a reader: key %q, %v", db.StateKey(), err)
	}
}

// HasEqual reads the index's interior pages once for all its values, and
// finds a value in a page by halves: a few keys a page, not every key
// before it (on the fixture, whose keys are long, half the pages and
// keys; on a database of 2,001 OpenCode sessions, 2,057 pages and 40,570
// keys where it read 6,008 and 160,232).
func TestHasEqualReadsLittle(t *testing.T) {
	db, err := Open("testdata/indexed.db", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl, err := db.Table("part")
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	seen := map[string]bool{}
	if err := tbl.Scan(func(r *Row) error {
		v, err := r.Text(tbl.Column("session_id"))
		if v != "" && !seen[v] {
			seen[v] = true
			values = append(values, v)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	values = append(values, "ses_none")
	pages, keys := pageReads.Load(), keyReads.Load()
	has, ok := tbl.HasEqual("session_id", values)
	pages, keys = pageReads.Load()-pages, keyReads.Load()-keys
	if !ok || len(has) != len(values)-1 || has["ses_none"] {
		t.Fatalf("HasEqual = %d values held (%v), want %d", len(has), ok, len(values)-1)
	}
	// Every key before the value and the interior pages again for each
	// value: 269 pages and 1,002 keys.
	if pages > 150 || keys > 700 {
		t.Errorf("HasEqual of %d values read %d pages and %d keys, want at most 150 and 700", len(values), pages, keys)
	}
}

// A record's header is read in one allocation: discovery reads one for
// every index key it compares and every session row it lists.
func TestParseHeaderAllocatesOnce(t *testing.T) {
	// Header of 4 bytes: text of 3 bytes (serial type 19), an integer of
	// one byte (1), NULL (0); then the values.
	rec := []byte{4, 19, 1, 0, 'a', 'b', 'c', 7}
	allocs := testing.AllocsPerRun(100, func() {
		if h, err := parseHeader(rec, uint64(len(rec))); err != nil || len(h.types) != 3 || h.offsets[3] != 8 {
			t.Fatalf("parseHeader = %+v, %v", h, err)
		}
	})
	if allocs > 1 {
		t.Errorf("parseHeader allocates %.0f times, want once", allocs)
	}
}

// Comparing an index entry's key allocates nothing: a seek compares a
// few keys a page, HasEqual thousands.
func TestIndexKeyAllocatesNothing(t *testing.T) {
	s := &scan{db: &DB{usable: 4096, lim: Limits{MaxRecord: 1 << 20}}}
	// Header of 3 bytes: text of 5 bytes (serial type 23), a one-byte
	// integer (1); then "hello" and the rowid 5.
	payload := []byte{3, 23, 1, 'h', 'e', 'l', 'l', 'o', 5}
	cell := append([]byte{byte(len(payload))}, payload...)
	for v, want := range map[string]int{"hello": 0, "help": -1, "hell": 1} {
		if cmp, rowid, err := s.indexKey(2, 0, cell, v); err != nil || cmp != want || rowid != 5 {
			t.Errorf("indexKey against %q = %d, %d, %v; want %d, 5", v, cmp, rowid, err, want)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { s.indexKey(2, 0, cell, "help") }); allocs != 0 {
		t.Errorf("indexKey allocates %.0f times, want none", allocs)
	}
}

// BenchmarkScanEqual reads every session's rows of testdata/indexed.db
// through its index, as OpenCode's reader reads a session's parts: a
// seek a value, then a descent a row.
func BenchmarkScanEqual(b *testing.B) {
	db, err := Open("testdata/indexed.db", Limits{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tbl, err := db.Table("part")
	if err != nil {
		b.Fatal(err)
	}
	var sessions []string
	for i := range 40 {
		s := fmt.Sprintf("ses_%03d", i)
		if i == 7 {
			s += strings.Repeat("x", 1500)
		}
		sessions = append(sessions, s)
	}
	data := tbl.Column("data")
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, s := range sessions {
			if err := tbl.ScanEqual("session_id", []string{s}, func(r *Row) error {
				_, err := r.Text(data)
				n++
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
		if n < 2900 {
			b.Fatalf("%d rows", n)
		}
	}
}

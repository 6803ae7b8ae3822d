package sqlitefile

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The fixtures in testdata were written by SQLite itself (Python's
// sqlite3, testdata/make.py), and by OpenCode 1.18.33
// (../agents/opencode/testdata/real-e2e); the JSON files beside them are
// every row as SQLite read them back: the oracle.

// oracle reads a JSON dump of make.py: table name to rows, each row the
// rowid then the columns, each value [type, text].
func oracle(t *testing.T, name string) map[string][][][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string][][][]string
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// sameValue says whether v is the value SQLite dumped as want.
func sameValue(v Value, want []string) bool {
	switch want[0] {
	case "null":
		return v == nil
	case "int":
		n, err := strconv.ParseInt(want[1], 10, 64)
		return err == nil && v == n
	case "real":
		f, err := strconv.ParseFloat(want[1], 64)
		return err == nil && v == f
	case "text":
		return v == want[1]
	case "blob":
		b, ok := v.([]byte)
		return ok && hex.EncodeToString(b) == want[1]
	}
	return false
}

// checkTables reads every table of the oracle from db and compares each
// row and value.
func checkTables(t *testing.T, db *DB, want map[string][][][]string) {
	t.Helper()
	for name, rows := range want {
		tbl, err := db.Table(name)
		if err != nil {
			t.Fatalf("Table(%s): %v", name, err)
		}
		i := 0
		err = tbl.Scan(func(r *Row) error {
			if i >= len(rows) {
				t.Fatalf("%s: more than the %d rows SQLite reads", name, len(rows))
			}
			w := rows[i]
			if !sameValue(r.Rowid, w[0]) {
				t.Fatalf("%s: row %d: rowid %d, want %v", name, i, r.Rowid, w[0])
			}
			if len(tbl.Columns) != len(w)-1 {
				t.Fatalf("%s: columns %v, want %d", name, tbl.Columns, len(w)-1)
			}
			for c := range tbl.Columns {
				v, err := r.Value(c)
				if err != nil {
					t.Fatalf("%s: rowid %d: column %s: %v", name, r.Rowid, tbl.Columns[c], err)
				}
				if !sameValue(v, w[c+1]) {
					t.Fatalf("%s: rowid %d: column %s is %.80q (%s), want %.80q", name, r.Rowid, tbl.Columns[c], v, describe(v), w[c+1])
				}
			}
			i++
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if i != len(rows) {
			t.Errorf("%s: %d rows, want %d", name, i, len(rows))
		}
	}
}

func open(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(path, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestPlain: a rollback-journal database three levels deep, with values
// of every serial type, records overflowing onto one and many pages, an
// INTEGER PRIMARY KEY, quoted names and a column added by ALTER TABLE
// (NULL in the row written before), reads as SQLite reads it.
func TestPlain(t *testing.T) {
	db := open(t, "testdata/plain.db")
	if db.PageSize() != 512 {
		t.Errorf("page size %d, want 512", db.PageSize())
	}
	want := oracle(t, "plain.json")
	if len(want["t"]) != 1000 || len(want["quoted"]) != 2 {
		t.Fatalf("the oracle has %d and %d rows", len(want["t"]), len(want["quoted"]))
	}
	checkTables(t, db, want)
	q, err := db.Table("QUOTED")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(q.Columns, ","); got != "id,data,n,extra" {
		t.Errorf("columns of quoted: %s", got)
	}
	if q.Column("Data") != 1 || q.Column("nope") != -1 {
		t.Errorf("Column: %d %d", q.Column("Data"), q.Column("nope"))
	}
}

// TestRefused: a WITHOUT ROWID table (an index b-tree) and a missing
// table are errors, not empty tables.
func TestRefused(t *testing.T) {
	db := open(t, "testdata/plain.db")
	w, err := db.Table("w")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Scan(func(*Row) error { return nil }); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "WITHOUT ROWID") {
		t.Errorf("scan of a WITHOUT ROWID table: %v", err)
	}
	if _, err := db.Table("missing"); err == nil || !strings.Contains(err.Error(), "no table missing") {
		t.Errorf("Table(missing): %v", err)
	}
}

// TestWAL: a database whose content is all in its -wal file reads as of
// its last commit: the committed update shows, the frames of the
// transaction still open (no commit frame) do not. Without the WAL the
// same main file has no table at all.
func TestWAL(t *testing.T) {
	db := open(t, "testdata/wal.db")
	want := oracle(t, "wal.json")
	if len(want["t"]) != 200 {
		t.Fatalf("the oracle has %d rows", len(want["t"]))
	}
	checkTables(t, db, want)

	main, err := os.ReadFile("testdata/wal.db")
	if err != nil {
		t.Fatal(err)
	}
	bare, err := OpenReaderAt(bytes.NewReader(main), int64(len(main)), nil, 0, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.Table("t"); err == nil {
		t.Error("the main file alone has table t: the test shows nothing")
	}
}

// TestWALFramesAfterABadOne: a frame whose checksum is wrong ends the
// log: neither it nor any later frame, committed or not, is read, as
// SQLite's recovery reads it.
func TestWALFramesAfterABadOne(t *testing.T) {
	main, wal := readPair(t, "testdata/wal.db")
	// Spoil the content of the frame just after the commit of rows
	// 1-100.
	bad := append([]byte(nil), wal...)
	bad[afterCommit(t, wal, 2)+walFrameHeaderSize+100] ^= 0xff
	n := scanT(t, main, bad, func(r *Row) {
		if s, _ := r.Text(1); !strings.HasPrefix(s, "first ") {
			t.Errorf("rowid %d: %q, want the first rows' text", r.Rowid, s)
		}
	})
	if n != 100 {
		t.Errorf("%d rows, want the first 100", n)
	}
	// A WAL header whose checksum is wrong is no WAL at all.
	bad = append([]byte(nil), wal...)
	bad[16] ^= 1 // salt-1
	db, err := OpenReaderAt(bytes.NewReader(main), int64(len(main)), bytes.NewReader(bad), int64(len(bad)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Table("t"); err == nil {
		t.Error("a WAL with a spoilt header was read")
	}
}

// walPage is the page size of testdata/wal.db.
const walPage = 1024

// afterCommit is the offset of the frame after the n-th commit frame of
// testdata/wal.db's WAL, whose commits are the CREATE TABLE, rows 1-100,
// rows 101-200 and the update of rows 1-10.
func afterCommit(t *testing.T, wal []byte, n int) int {
	t.Helper()
	commits, at := 0, 0
	for off := walHeaderSize; off+walFrameHeaderSize+walPage <= len(wal); off += walFrameHeaderSize + walPage {
		if binary.BigEndian.Uint32(wal[off+4:]) != 0 {
			if commits++; commits == n {
				at = off + walFrameHeaderSize + walPage
			}
		}
	}
	if commits != 4 {
		t.Fatalf("the fixture's WAL has %d commits, not 4", commits)
	}
	return at
}

// scanT reads table t of a database and WAL in memory, calling fn with
// each row, and returns the number of rows.
func scanT(t *testing.T, main, wal []byte, fn func(*Row)) int {
	t.Helper()
	db, err := OpenReaderAt(bytes.NewReader(main), int64(len(main)), bytes.NewReader(wal), int64(len(wal)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := db.Table("t")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := tbl.Scan(func(r *Row) error { n++; fn(r); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func readPair(t *testing.T, path string) (main, wal []byte) {
	t.Helper()
	main, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wal, err = os.ReadFile(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return main, wal
}

// gunzipTo decompresses src into dst.
func gunzipTo(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, z); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenCode: the databases OpenCode 1.18.33 wrote, most of them only
// in the WAL, one WAL holding frames of an older generation, read as
// SQLite reads them: every row of session, message, part and todo.
func TestOpenCode(t *testing.T) {
	for _, name := range []string{"work", "compaction", "subagent", "briefed", "mcp"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join("..", "agents", "opencode", "testdata", "real-e2e", name)
			for _, f := range []string{"opencode.db", "opencode.db-wal"} {
				gunzipTo(t, filepath.Join(src, f+".gz"), filepath.Join(dir, f))
			}
			db := open(t, filepath.Join(dir, "opencode.db"))
			checkTables(t, db, oracle(t, "opencode-"+name+".json"))
		})
	}
}

// TestReadOnly: reading writes nothing: no -shm, no journal, no
// checkpoint; the files keep their bytes, and no other file appears.
func TestReadOnly(t *testing.T) {
	dir := t.TempDir()
	main, wal := readPair(t, "testdata/wal.db")
	p := filepath.Join(dir, "x.db")
	if err := os.WriteFile(p, main, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p+"-wal", wal, 0o400); err != nil {
		t.Fatal(err)
	}
	db := open(t, p)
	checkTables(t, db, oracle(t, "wal.json"))
	db.Close()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 {
		t.Errorf("the directory holds %d files after reading, want the 2 it had", len(ents))
	}
	m2, w2 := readPair(t, p)
	if !bytes.Equal(m2, main) || !bytes.Equal(w2, wal) {
		t.Error("reading changed the database")
	}
}

// TestHasHeader recognises a database by its first bytes.
func TestHasHeader(t *testing.T) {
	main, _ := readPair(t, "testdata/wal.db")
	if !HasHeader(main[:100]) || HasHeader([]byte("SQLite format 2\x00")) || HasHeader(nil) {
		t.Error("HasHeader")
	}
}

// TestColumnsWithComments: sqlite_schema keeps a CREATE TABLE as it was
// written, comments and all (Crush's sessions table has "-- Unix
// timestamp in milliseconds" after a column's comma): a comment is no
// column and hides none.
func TestColumnsWithComments(t *testing.T) {
	sql := "CREATE TABLE sessions (\n    id TEXT PRIMARY KEY, -- the id, (a uuid)\n    title TEXT NOT NULL,\n" +
		"    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds\n    created_at INTEGER NOT NULL   -- Unix timestamp\n" +
		", /* a, block ( comment */ cost REAL, note TEXT DEFAULT '-- not a comment', \"odd--name\" TEXT)"
	cols, real, _, err := parseColumns(sql)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "title", "updated_at", "created_at", "cost", "note", "odd--name"}
	if strings.Join(cols, ",") != strings.Join(want, ",") {
		t.Fatalf("columns %q, want %q", cols, want)
	}
	if !real[4] || real[3] {
		t.Errorf("affinities %v: cost is REAL, created_at not", real)
	}
}

// TestTableColumns: a table's columns read by name; a column the table
// lacks is ErrNoColumn, naming it.
func TestTableColumns(t *testing.T) {
	db := open(t, "testdata/plain.db")
	q, err := db.TableColumns("quoted", "id", "data")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	if err := q.Scan(func(r *Row) error {
		rows++
		if _, err := q.Text(r, "data"); err != nil {
			return err
		}
		if _, err := q.Text(r, "extra"); err == nil {
			t.Error("a column not asked for read")
		}
		return nil
	}); err != nil || rows != 2 {
		t.Fatalf("scan: %d rows, %v", rows, err)
	}
	if _, err := db.TableColumns("quoted", "id", "nope"); !errors.Is(err, ErrNoColumn) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("a missing column: %v", err)
	}
}

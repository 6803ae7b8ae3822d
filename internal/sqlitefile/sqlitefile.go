// Package sqlitefile reads rows of a SQLite database file, read-only and
// bounded, without SQLite: enough of the file format
// (https://www.sqlite.org/fileformat2.html) to read an agent's own
// database (OpenCode keeps its sessions in one) as of its last commit,
// while the agent may still be writing it.
//
// It reads the database header (§1.3), table b-tree pages, interior and
// leaf (§1.6), overflow chains (§1.6, "cell payload overflow"), the record
// format (§2.1), sqlite_schema (§2.6) to find a table's root page and
// columns, and the write-ahead log (§4): committed frames whose salts and
// checksums are valid override the main file's pages, as SQLite's own
// recovery of a WAL does, so that a database whose -wal file the writer
// has not checkpointed reads as of its last commit.
//
// It opens the files read-only and writes nothing: no -shm, no lock, no
// checkpoint. A reader holds no lock either, so a checkpoint that runs
// while it reads may show it a torn state; it then fails with a clear
// error, or reads a consistent older or newer commit.
//
// Every input is untrusted: the file sizes, the page count, a record's
// size and the b-tree's depth are bounded (Limits), every page is visited
// at most once per scan (a page cycle in a hostile file is an error, not
// a loop), and every offset is checked before use. It never panics on
// any input (FuzzOpen). It reads rowid tables only: an index or a
// WITHOUT ROWID table is refused, UTF-16 databases too.
package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"time"
)

// Limits bound what a database may make the reader do; zero fields take
// the defaults.
type Limits struct {
	// MaxFile is the largest main file, and the largest WAL file, read
	// (default 2 GiB).
	MaxFile int64
	// MaxRecord is the largest record (a row's payload) read (default
	// 64 MiB).
	MaxRecord int64
	// MaxDepth is the deepest b-tree descended (default 32; SQLite's own
	// cursors go no deeper than 20).
	MaxDepth int
}

// Defaults of Limits.
const (
	DefaultMaxFile   = 2 << 30
	DefaultMaxRecord = 64 << 20
	DefaultMaxDepth  = 32
)

func (l Limits) withDefaults() Limits {
	if l.MaxFile <= 0 {
		l.MaxFile = DefaultMaxFile
	}
	if l.MaxRecord <= 0 {
		l.MaxRecord = DefaultMaxRecord
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// ErrCorrupt is wrapped by every error about the file's content (as
// opposed to reading it).
var ErrCorrupt = errors.New("malformed database")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// headerMagic opens every SQLite database file (§1.3.1).
const headerMagic = "SQLite format 3\x00"

// DB is an open database: its main file and, when it has one, its WAL.
type DB struct {
	main     io.ReaderAt
	wal      io.ReaderAt
	closers  []io.Closer
	lim      Limits
	pageSize int
	usable   int    // page size less the reserved bytes at each page's end
	pages    uint32 // the database's size in pages
	// walPages maps a page number to the offset in the WAL of its newest
	// committed frame's content.
	walPages map[uint32]int64
	state    string // StateKey
	// cache keeps the b-tree pages that descents read again (cache.go).
	cache pageCache
}

// Open opens the database at path read-only, with path+"-wal" when that
// exists. Errors name the file.
func Open(path string, lim Limits) (*DB, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	db := &DB{closers: []io.Closer{f}}
	var wal io.ReaderAt
	var walSize int64
	if w, err := openRegular(path + "-wal"); err == nil {
		db.closers = append(db.closers, w)
		wi, err := w.Stat()
		if err != nil {
			db.Close()
			return nil, err
		}
		wal, walSize = w, wi.Size()
	} else if !os.IsNotExist(err) {
		db.Close()
		return nil, err
	}
	if err := db.open(f, fi.Size(), wal, walSize, lim); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	db.state = stateKey(path, fi, walSize)
	return db, nil
}

// settleTime: a file written this recently may change again within the
// same tick of the file system's clock, its size and time as they were.
const settleTime = 2 * time.Second

// stateKey names the content of the database at path (fi) and its WAL
// (walSize bytes) as opened: its path, sizes and modification times; ""
// when either was written within settleTime, or the WAL changed since it
// was opened.
func stateKey(path string, fi os.FileInfo, walSize int64) string {
	now := time.Now()
	if now.Sub(fi.ModTime()) < settleTime {
		return ""
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", path, fi.Size(), fi.ModTime().UnixNano())
	if walSize > 0 {
		wi, err := os.Stat(path + "-wal")
		if err != nil || wi.Size() != walSize || now.Sub(wi.ModTime()) < settleTime {
			return ""
		}
		key += fmt.Sprintf("\x00%d\x00%d", wi.Size(), wi.ModTime().UnixNano())
	}
	return key
}

// StateKey names the content the database was opened with (its path,
// and its files' sizes and modification times), for a reader that keeps
// what it read of it while that holds; "" when it cannot be told (opened
// from readers, or written within the last 2 seconds): keep nothing.
func (db *DB) StateKey() string { return db.state }

// OpenReaderAt opens a database held by main (size bytes), with its WAL
// in wal (walSize bytes; nil when there is none). The readers must stay
// valid until the DB is no longer used.
func OpenReaderAt(main io.ReaderAt, size int64, wal io.ReaderAt, walSize int64, lim Limits) (*DB, error) {
	db := &DB{}
	if err := db.open(main, size, wal, walSize, lim); err != nil {
		return nil, err
	}
	return db, nil
}

// Close closes the files Open opened and lets go of the pages kept.
func (db *DB) Close() error {
	var first error
	for _, c := range db.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	db.closers = nil
	db.cache.drop()
	return first
}

// PageSize is the database's page size in bytes.
func (db *DB) PageSize() int { return db.pageSize }

// Pages is the database's size in pages, as of the last commit read.
func (db *DB) Pages() uint32 { return db.pages }

func (db *DB) open(main io.ReaderAt, size int64, wal io.ReaderAt, walSize int64, lim Limits) error {
	db.main, db.lim = main, lim.withDefaults()
	if size > db.lim.MaxFile {
		return fmt.Errorf("database of %d bytes, more than the %d read", size, db.lim.MaxFile)
	}
	var h [100]byte
	if size < int64(len(h)) {
		return corrupt("not a SQLite database: %d bytes, shorter than its header", size)
	}
	if _, err := main.ReadAt(h[:], 0); err != nil {
		return fmt.Errorf("read the header: %w", err)
	}
	if string(h[:16]) != headerMagic {
		return corrupt("not a SQLite database: no %q header", headerMagic[:15])
	}
	// §1.3.2: a power of two from 512 to 32768, or 1 for 65536.
	ps := int(binary.BigEndian.Uint16(h[16:18]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
		return corrupt("page size %d", ps)
	}
	db.pageSize = ps
	// §1.3.4: the usable size is at least 480.
	db.usable = ps - int(h[20])
	if db.usable < 480 {
		return corrupt("usable page size %d (page size %d, %d reserved)", db.usable, ps, h[20])
	}
	// §1.3.13: 1 is UTF-8; 2 and 3 are UTF-16 (0 in an empty database).
	if enc := binary.BigEndian.Uint32(h[56:60]); enc != 1 && enc != 0 {
		return fmt.Errorf("text encoding %d: only UTF-8 databases are read", enc)
	}
	// §1.3.7: the in-header size is valid only when the change counter
	// matches the version-valid-for number; otherwise the file's size
	// says it.
	db.pages = uint32(size / int64(ps))
	if n := binary.BigEndian.Uint32(h[28:32]); n > 0 && binary.BigEndian.Uint32(h[24:28]) == binary.BigEndian.Uint32(h[92:96]) && int64(n) <= size/int64(ps) {
		db.pages = n
	}
	if wal != nil && walSize > 0 {
		if err := db.readWAL(wal, walSize); err != nil {
			return fmt.Errorf("WAL: %w", err)
		}
	}
	if db.pages == 0 {
		return corrupt("no pages")
	}
	return nil
}

// page reads page n (1-based), from the WAL when a committed frame holds
// it, else from the main file.
func (db *DB) page(n uint32) ([]byte, error) { return db.readPage(n, nil) }

// readPage is page, read into buf when it is a page's size (an overflow
// chain, copied from page by page, needs one buffer), else into a new one.
func (db *DB) readPage(n uint32, buf []byte) ([]byte, error) {
	if n == 0 || n > db.pages {
		return nil, corrupt("page %d out of range 1-%d", n, db.pages)
	}
	pageReads.Add(1)
	if len(buf) != db.pageSize {
		buf = make([]byte, db.pageSize)
	}
	var err error
	if off, ok := db.walPages[n]; ok {
		_, err = db.wal.ReadAt(buf, off)
	} else {
		_, err = db.main.ReadAt(buf, int64(n-1)*int64(db.pageSize))
	}
	if errors.Is(err, io.EOF) {
		return nil, corrupt("page %d beyond the end of the file", n)
	}
	if err != nil {
		return nil, fmt.Errorf("read page %d: %w", n, err)
	}
	return buf, nil
}

// pageReads counts the pages read (tests).
var pageReads atomic.Int64

// HasHeader says whether b, a file's first bytes, starts as a SQLite
// database does (§1.3.1).
func HasHeader(b []byte) bool { return bytes.HasPrefix(b, []byte(headerMagic)) }

// ErrNotRegular is wrapped when a database or its WAL is not a regular
// file: a FIFO would block the open for ever, a device never end.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens the regular file at path, refusing anything else
// before it opens it (safefile.OpenRegular's rule, for this leaf package
// that imports nothing of ours).
func openRegular(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, nil
}

package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// The search cache lets a full-text search (Search) answer from one file
// instead of reading every record: 100,000 records in tens of
// milliseconds, not seconds (issue 19's list --query goal beside issue
// 20's search of every text field). It is a cache like the index: the
// records are the truth, and it is rebuilt with the index.
//
// Its first line is searchHeader; every other line is
//
//	id TAB mark TAB text
//
// where text is the record's SearchText (lower case) with every newline,
// carriage return and tab made a NUL byte, so that a line holds one
// record's text and a query (which never holds those characters here) can
// match only inside it. mark is "=" when text is whole, "~" when it was
// cut at searchCap bytes (a miss must then read the record). The last line
// for an id wins; lines of ids the index does not list are ignored.
//
// A writer appends the line after the record file is durable and before
// the index line, each fsynced, so a line never describes content that
// was not stored; an operation interrupted in between is reconciled from
// the record file like the index line. A missing file is not appended
// to: the next search rebuilds it whole.
const (
	searchFile   = "search"
	searchHeader = "session-handoff-search 1"
	// searchCap bounds the text one line keeps.
	searchCap = 32 << 10
)

// appendSearchLine appends r's search line, with its newline, to dst.
func appendSearchLine(dst []byte, r *handoff.Record) []byte {
	text := r.SearchText()
	mark := byte('=')
	if len(text) > searchCap {
		text, mark = prefixUTF8(text, searchCap), '~'
	}
	dst = append(dst, r.ID...)
	dst = append(dst, '\t', mark, '\t')
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n', '\r', '\t':
			dst = append(dst, 0)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '\n')
}

// searchable reports whether the search cache can answer q: not when q
// holds a character its lines do not keep.
func searchable(q string) bool {
	return q != "" && !bytes.ContainsAny([]byte(q), "\n\r\t\x00")
}

// appendSearch appends one line to the search cache and fsyncs it. A
// missing cache is left missing (the next search rebuilds it whole).
func (w *writer) appendSearch(line []byte) error {
	err := appendSynced(w.s.path(searchFile), "search cache", line, true)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no cache: the next search rebuilds it whole
	}
	return err
}

// searchBytes returns a search cache of the scanned good records.
func (r *scanResult) searchBytes() []byte {
	n := len(searchHeader) + 1
	for _, l := range r.search {
		n += len(l)
	}
	buf := make([]byte, 0, n)
	buf = append(buf, searchHeader...)
	buf = append(buf, '\n')
	for _, l := range r.search {
		buf = append(buf, l...)
	}
	return buf
}

// writeSearch replaces the search cache with the scan's.
func (s *Store) writeSearch(scan *scanResult) error {
	if err := safefile.WriteFile(s.path(searchFile), scan.searchBytes(), filePerm); err != nil {
		return fmt.Errorf("write search cache: %w", err)
	}
	return nil
}

// What the search cache says of one id's last line.
const (
	searchMiss  byte = iota + 1 // the whole text does not hold the query (0: no line)
	searchFound                 // the text holds it
	searchCut                   // the text, cut, does not hold it: read the record
)

// loadSearch reads the search cache and calls state with what each line
// says of q (lower case, searchable), in the file's order: the last line
// for an id is the one that counts. It returns false when there is no
// cache: a missing or damaged cache is rebuilt from the records when no
// writer holds the lock, and when that cannot be done the caller reads
// records. Damaged lines are skipped: their ids have no answer, and their
// records are read.
func (s *Store) loadSearch(q string, state func(id [2]uint64, st byte)) (bool, error) {
	f, err := s.openSearch()
	if err != nil || f == nil {
		return false, err
	}
	defer f.Close()
	qn := needle{b: []byte(q)}
	// Read in chunks, so that memory does not grow with the store; a line
	// is at most searchCap bytes of text and its id, well within a chunk.
	size := int64(searchChunk)
	if st, err := f.Stat(); err == nil {
		size = max(64<<10, min(size, st.Size()))
	}
	buf := make([]byte, size)
	have := 0
	for first := true; ; first = false {
		n, rerr := io.ReadFull(f, buf[have:])
		have += n
		data := buf[:have]
		if first {
			qn.anchor(countBytes(data))
		}
		done := bytes.LastIndexByte(data, '\n') + 1
		searchLines(data[:done], qn, state)
		// What is left is the start of a line (or a torn append at the end).
		have = copy(buf, data[done:])
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			return true, nil
		}
		if rerr != nil {
			return false, safefile.Wrap("read", s.path(searchFile), rerr)
		}
		if have == len(buf) {
			return false, fmt.Errorf("%s: a line longer than %d bytes", s.path(searchFile), len(buf))
		}
	}
}

// searchChunk is how much of the search cache is read at a time.
const searchChunk = 256 << 10

// searchLines tells state what each line of data (whole lines) says of
// the query q: the query is looked for in data at once, not line by line,
// so that a query found nowhere costs one pass of bytes.IndexByte. A query
// with a newline is looked for line by line (a line's text holds none).
func searchLines(data []byte, q needle, state func(id [2]uint64, st byte)) {
	const textAt = handoff.IDLength + 3 // "ID\tMARK\t"
	multiline := bytes.IndexByte(q.b, '\n') >= 0
	next := -1 // the offset of an occurrence at or after the current line's text, or -1
	if !multiline {
		next = q.index(data)
	}
	for start := 0; start < len(data); {
		end := start + bytes.IndexByte(data[start:], '\n')
		line := data[start:end]
		found := false
		if multiline {
			found = len(line) >= textAt && bytes.Contains(line[textAt:], q.b)
		} else if next >= 0 && len(line) >= textAt {
			if next < start+textAt {
				// An occurrence in the id or the mark, or in an earlier
				// line: look again from this line's text.
				if i := q.index(data[start+textAt:]); i >= 0 {
					next = start + textAt + i
				} else {
					next = -1
				}
			}
			found = next >= 0 && next+len(q.b) <= end
		}
		searchLineState(line, found, state)
		start = end + 1
	}
}

// openSearch opens the search cache past its header. A missing or damaged
// one is rebuilt from the records when no writer holds the lock; when that
// cannot be done it returns nil.
func (s *Store) openSearch() (*os.File, error) {
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(s.path(searchFile), os.O_RDONLY|safefile.OpenNonBlock, 0) // a named pipe must not block
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if err == nil {
			hdr := make([]byte, len(searchHeader)+1)
			st, serr := f.Stat()
			if n, _ := io.ReadFull(f, hdr); serr == nil && st.Mode().IsRegular() && n == len(hdr) && string(hdr) == searchHeader+"\n" {
				return f, nil
			}
			f.Close()
		}
		if attempt > 0 {
			return nil, nil
		}
		w, lerr := s.tryLockWriter()
		if lerr != nil || w == nil {
			return nil, nil
		}
		scan, serr := s.scanRecords()
		if serr == nil {
			serr = s.writeSearch(scan)
		}
		w.unlock()
		if serr != nil {
			s.warnf(fmt.Errorf("rebuild the search cache: %w", serr))
			return nil, nil
		}
	}
}

// searchLineState tells state what one line of the search cache says
// of the query, which its text holds when found. A damaged line is
// skipped.
func searchLineState(line []byte, found bool, state func(id [2]uint64, st byte)) {
	if len(line) < handoff.IDLength+3 || line[handoff.IDLength] != '\t' || line[handoff.IDLength+2] != '\t' {
		return
	}
	hi, lo, ok := decodeID(line[:handoff.IDLength])
	if !ok {
		return
	}
	mark := line[handoff.IDLength+1]
	if mark != '=' && mark != '~' {
		return
	}
	st := searchMiss
	switch {
	case found:
		st = searchFound
	case mark == '~':
		st = searchCut
	}
	state([2]uint64{hi, lo}, st)
}

package store

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"io"
	"io/fs"
	"os"

	"github.com/session-handoff/session-handoff/handoff"
)

const (
	// tailChunk is how much of the index a backward scan reads at a time.
	tailChunk = 64 << 10
	// tailBudget is how much of the index a backward scan reads before it
	// gives way to the full read, which is faster over the whole file
	// (the backward scan must remember every id it passes).
	tailBudget = 1 << 20
	// projectTailBudget is what LatestForProject reads backward before it
	// asks whether the index holds the project at all.
	projectTailBudget = 128 << 10
)

// errTailGaveUp says the backward scan read tailBudget without an answer.
var errTailGaveUp = errors.New("no answer near the end of the index")

// scanLiveBackward calls fn with the live "+" lines of the index, last line
// first, reading the file from its end in chunks, until fn says stop. A line
// is live when no later line names the same id (the last line for an id
// wins) and it is not a removal. It is how "latest" is found without
// reading the whole index: the newest entries are at its end.
//
// Only the lines read are checked. A damaged line, a missing index beside
// records, or a bad header is an error wrapping errCorruptIndex, on which
// callers fall back to the full read that rebuilds the index. A torn final
// line is ignored, as the full read does. After tailBudget bytes without
// fn saying stop, it returns errTailGaveUp.
func (s *Store) scanLiveBackward(fn func(line []byte, ref lineRef) (stop bool, err error)) error {
	return s.scanLiveBackwardWithin(tailBudget, fn)
}

// scanLiveBackwardWithin is scanLiveBackward giving up after budget bytes.
func (s *Store) scanLiveBackwardWithin(budget int64, fn func(line []byte, ref lineRef) (stop bool, err error)) error {
	if s.pendingActive() {
		s.tryRepair()
	}
	path := s.path(indexFile)
	f, size, err := openIndexFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		has, err := s.hasRecords()
		if err != nil {
			return err
		}
		if has {
			return &indexError{Reason: "missing while records exist"}
		}
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	hdrLen := int64(len(indexHeader) + 1)
	hdr := make([]byte, hdrLen)
	if n, _ := f.ReadAt(hdr, 0); int64(n) < hdrLen || string(hdr) != indexHeader+"\n" {
		return &indexError{Line: 1, Reason: fmt.Sprintf("header is not %q", indexHeader)}
	}

	end, err := lastNewline(f, hdrLen, size)
	if err != nil {
		return safefile.Wrap("read", path, err)
	}

	seen := make(map[[2]uint64]struct{})
	return linesBackward(f, path, hdrLen, end, budget, func(line []byte) (bool, error) {
		ref, reason := checkLine(line)
		if reason != "" {
			return false, &indexError{Reason: reason + " (found reading the index backward)"}
		}
		key := [2]uint64{ref.hi, ref.lo}
		if _, later := seen[key]; later {
			return false, nil
		}
		seen[key] = struct{}{}
		if ref.del {
			return false, nil
		}
		return fn(line, ref)
	})
}

// linesBackward calls fn with each line (without its newline) of the file
// f at path between floor and end, which must follow a newline, last line
// first, reading chunks from the end, until fn says stop. After budget
// bytes (0: no bound) without that, it returns errTailGaveUp.
func linesBackward(f *os.File, path string, floor, end, budget int64, fn func(line []byte) (stop bool, err error)) error {
	buf := make([]byte, tailChunk)
	var carry []byte // a line whose start is in an earlier chunk, with its newline
	for read := int64(0); end > floor; read += tailChunk {
		if budget > 0 && read >= budget {
			return errTailGaveUp
		}
		start := max(floor, end-tailChunk)
		chunk := buf[:end-start]
		if _, err := f.ReadAt(chunk, start); err != nil && err != io.EOF {
			return safefile.Wrap("read", path, err)
		}
		// rest ends with a newline. Walk its lines backward; the first
		// segment is incomplete unless the chunk began at floor.
		rest := append(chunk, carry...)
		carry = nil
		for len(rest) > 0 {
			nl := bytes.LastIndexByte(rest[:len(rest)-1], '\n')
			if nl < 0 && start > floor {
				carry = append([]byte(nil), rest...)
				break
			}
			line := rest[nl+1 : len(rest)-1]
			rest = rest[:nl+1]
			stop, err := fn(line)
			if err != nil || stop {
				return err
			}
		}
		end = start
	}
	return nil
}

// lastNewline returns the offset just after the last newline of the file at
// or after min (the end of the header), or min when there is none: a final
// line without its newline is a torn append and is not read. Appends after
// the caller's stat are not seen.
func lastNewline(f *os.File, floor, size int64) (int64, error) {
	buf := make([]byte, 4096)
	for end := size; end > floor; {
		start := max(floor, end-int64(len(buf)))
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return floor, nil
}

// tailLatest returns, for each matcher, the live entry that entered the
// store last among those it matches (nil where none does), in one backward
// pass that stops as soon as the first matcher has its answer: the others
// are fallbacks, wanted only when it has none.
func (s *Store) tailLatest(ms ...*matcher) ([]*Entry, error) {
	return s.tailLatestWithin(tailBudget, ms...)
}

// tailLatestWithin is tailLatest giving up after budget bytes.
func (s *Store) tailLatestWithin(budget int64, ms ...*matcher) ([]*Entry, error) {
	out := make([]*Entry, len(ms))
	err := s.scanLiveBackwardWithin(budget, func(line []byte, _ lineRef) (bool, error) {
		for i, m := range ms {
			if out[i] != nil {
				continue
			}
			ok, err := m.match(line)
			if err != nil {
				return false, &indexError{Reason: err.Error()}
			}
			if !ok {
				continue
			}
			ie, _, err := parseLine(line)
			if err != nil {
				return false, &indexError{Reason: err.Error()}
			}
			e := ie.toEntry()
			out[i] = &e
		}
		return out[0] != nil, nil
	})
	return out, err
}

// lackChunk is how much of the index indexLacksFields reads at a time.
const lackChunk = 1 << 20

// indexLacksFields reports whether no line of the index has a field whose
// whole value is one of values: none holds the value, escaped as the index
// writes it, between two tabs (a tab inside a field is escaped, so the
// bytes cannot come from elsewhere in a line). It reads the index in
// chunks, without parsing it; a damaged line is not noticed here (the next
// full read of the index finds it).
func (s *Store) indexLacksFields(values ...string) (bool, error) {
	needles := make([]needle, len(values))
	longest := 0
	for i, v := range values {
		needles[i] = fieldNeedle(v)
		longest = max(longest, len(needles[i].b))
	}
	path := s.path(indexFile)
	f, _, err := openIndexFile(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, lackChunk+longest)
	kept := 0 // bytes carried over from the previous chunk, that a needle may start in
	for first := true; ; first = false {
		n, err := io.ReadFull(f, buf[kept:])
		data := buf[:kept+n]
		if first {
			counts := countBytes(data)
			for i := range needles {
				needles[i].anchor(counts)
			}
		}
		for _, nd := range needles {
			if nd.index(data) >= 0 {
				return false, nil
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return true, nil
		}
		if err != nil {
			return false, safefile.Wrap("read", path, err)
		}
		kept = min(len(data), longest-1)
		copy(buf, data[len(data)-kept:])
	}
}

// needle is a byte string looked for, in the index or the search cache,
// by the byte of it least common in what is searched (at), so that most
// of the text is passed over at the speed of bytes.IndexByte; a common
// first byte (a tab, a path's "/") would stop at nearly every line.
type needle struct {
	b  []byte
	at int
}

// fieldNeedle is a field value as indexLacksFields looks for it: escaped,
// between tabs.
func fieldNeedle(value string) needle {
	return needle{b: append(appendEscaped([]byte{'\t'}, value), '\t')}
}

// anchor chooses at: the needle's byte with the fewest counts in a sample
// of the text.
func (n *needle) anchor(counts *[256]int) {
	for i, c := range n.b {
		if counts[c] < counts[n.b[n.at]] {
			n.at = i
		}
	}
}

// countBytes counts the bytes of a sample of data, for anchor.
func countBytes(data []byte) *[256]int {
	var counts [256]int
	for _, c := range data[:min(len(data), 64<<10)] {
		counts[c]++
	}
	return &counts
}

// index returns the offset of the needle's first occurrence in data, or -1.
func (n needle) index(data []byte) int {
	if len(n.b) == 0 {
		return 0
	}
	c := n.b[n.at]
	for pos := n.at; pos < len(data); {
		i := bytes.IndexByte(data[pos:], c)
		if i < 0 {
			return -1
		}
		start := pos + i - n.at
		if start+len(n.b) <= len(data) && bytes.Equal(data[start:start+len(n.b)], n.b) {
			return start
		}
		pos += i + 1
	}
	return -1
}

// unknownGreatest stands for a greatest id that could not be read: every
// id is below it, so appendLine writes "*", which promises nothing.
const unknownGreatest handoff.ID = "\xff"

// greatestID returns the greatest id the index names: that of its last "+"
// line, since every later line has a smaller id (see the index format). It
// is empty for an index without records. It reads backward from the end,
// usually one small chunk. The caller holds the lock, after prepare.
func (w *writer) greatestID() (handoff.ID, error) {
	path := w.s.path(indexFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("open index: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", safefile.Wrap("stat", path, err)
	}
	floor := int64(len(indexHeader) + 1)
	end, err := lastNewline(f, floor, st.Size())
	if err != nil {
		return "", safefile.Wrap("read", path, err)
	}
	var greatest handoff.ID
	err = linesBackward(f, path, floor, end, 0, func(line []byte) (bool, error) {
		if len(line) < tombstoneLen || line[0] != '+' || line[1] != '\t' {
			return false, nil
		}
		if _, _, ok := decodeID(line[2:tombstoneLen]); !ok {
			return false, &indexError{Reason: "not a canonical handoff id (found reading the index backward)"}
		}
		greatest = handoff.ID(line[2:tombstoneLen])
		return true, nil
	})
	return greatest, err
}

// tailNewest returns the m.limit live entries matching m that entered the
// store last, last first, as List does, reading the index from its end:
// the first m.limit live matches it meets. It needs m.limit > 0.
func (s *Store) tailNewest(m *matcher) ([]Entry, error) {
	var out []Entry
	err := s.scanLiveBackward(func(line []byte, _ lineRef) (bool, error) {
		ok, err := m.match(line)
		if err != nil {
			return false, &indexError{Reason: err.Error()}
		}
		if !ok {
			return false, nil
		}
		ie, _, err := parseLine(line)
		if err != nil {
			return false, &indexError{Reason: err.Error()}
		}
		out = append(out, ie.toEntry())
		return len(out) == m.limit, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

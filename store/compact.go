package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// The index and the search cache are appended to on every write, and a
// replaced record leaves its earlier lines behind: the same session
// captured 200 times made a 6.56 MB search cache for one record (issue
// 49). A writer compacts both as it goes: after its write, when either
// file has more than doubled since the last look (and passed a floor), it
// drops the lines no reader would use. Each look costs what the files
// hold, and comes only after they have grown by as much again, so the
// cost per write is bounded (amortised) and the files stay within about
// twice what is live.
//
// The sizes after the last look are kept in compactedFile:
//
//	session-handoff-compacted 1
//	INDEX_BYTES SEARCH_BYTES
//
// A missing or unreadable file reads as zero sizes: the next write looks.
const (
	compactedFile   = "compacted"
	compactedHeader = "session-handoff-compacted 1"
)

// Below these sizes the files are never looked at: a small store costs
// nothing. Tests lower them.
var (
	compactIndexFloor  int64 = 256 << 10
	compactSearchFloor int64 = 1 << 20
)

// compactSizes are the two files' sizes after the last look.
type compactSizes struct{ index, search int64 }

// compactIfDue compacts the index and the search cache when either has
// more than doubled since the last look. The caller holds the write lock
// and has finished its write: a failure here is only a warning, and the
// sizes are recorded anyway so that a store that cannot be compacted is
// not read whole on every write.
func (w *writer) compactIfDue() {
	base := w.readCompacted()
	now := compactSizes{index: fileSize(w.s.path(indexFile)), search: fileSize(w.s.path(searchFile))}
	if now.index <= 2*base.index+compactIndexFloor && now.search <= 2*base.search+compactSearchFloor {
		return
	}
	if err := w.compact(); err != nil {
		w.s.warnf(fmt.Errorf("compact the index: %w", err))
	}
	after := compactSizes{index: fileSize(w.s.path(indexFile)), search: fileSize(w.s.path(searchFile))}
	data := fmt.Appendf(nil, "%s\n%d %d\n", compactedHeader, after.index, after.search)
	if err := safefile.WriteFile(w.s.path(compactedFile), data, filePerm); err != nil {
		w.s.warnf(fmt.Errorf("record the index's size: %w", err))
	}
}

// fileSize is the size of the file at path, 0 when it cannot be told.
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// readCompacted reads compactedFile; anything wrong with it reads as zero.
func (w *writer) readCompacted() compactSizes {
	data, err := safefile.ReadRegular(w.s.path(compactedFile), 256)
	if err != nil {
		return compactSizes{}
	}
	head, rest, _ := strings.Cut(string(data), "\n")
	a, b, ok := strings.Cut(strings.TrimSuffix(rest, "\n"), " ")
	i, err1 := strconv.ParseInt(a, 10, 64)
	s, err2 := strconv.ParseInt(b, 10, 64)
	if head != compactedHeader || !ok || err1 != nil || err2 != nil || i < 0 || s < 0 {
		return compactSizes{}
	}
	return compactSizes{index: i, search: s}
}

// compact rewrites the index with its live lines only, in the order they
// entered, when a quarter or more of its lines are dead, and the search
// cache with the last line of each live id only, when a quarter or more
// of its bytes are not. Each file is replaced atomically: a crash leaves
// the old one or the new one, and both say the same. A damaged index is
// left for the next reader to rebuild.
func (w *writer) compact() error {
	buf, err := readIndexFile(w.s.path(indexFile), nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	ix, err := parseIndex(buf, nil)
	if err != nil || ix.torn {
		return nil // damage: the next reader rebuilds the index
	}
	if dead := ix.lines - len(ix.live); dead > 0 && 4*dead >= ix.lines {
		if err := safefile.WriteFile(w.s.path(indexFile), liveIndex(ix), filePerm); err != nil {
			return fmt.Errorf("rewrite %s: %w", w.s.path(indexFile), err)
		}
	}
	return w.compactSearch(ix.live)
}

// liveIndex returns an index of ix's live lines, in the order they
// entered, each marked "+" or "*" anew as appendLine would.
func liveIndex(ix *parsedIndex) []byte {
	out := make([]byte, 0, len(indexHeader)+1+len(ix.buf)/2)
	out = append(out, indexHeader...)
	out = append(out, '\n')
	var greatest handoff.ID
	for k := range ix.live {
		line := ix.line(ix.entered(k))
		id := handoff.ID(line[2:tombstoneLen])
		op := byte('+')
		if greatest != "" && id <= greatest {
			op = '*'
		}
		greatest = max(greatest, id)
		out = append(out, op)
		out = append(out, line[1:]...)
		out = append(out, '\n')
	}
	return out
}

// compactSearch rewrites the search cache with the last line of each id
// live lists (ascending by id) and nothing else, when that drops a
// quarter or more of its bytes. It reads the cache twice, in chunks:
// first to find each id's last line, then to copy those.
func (w *writer) compactSearch(live []lineRef) error {
	path := w.s.path(searchFile)
	// The offset and length of each live id's last line; -1: none.
	last := make([]int64, len(live))
	lastLen := make([]int64, len(live))
	for i := range last {
		last[i] = -1
	}
	find := func(line []byte) (int, bool) {
		if len(line) < handoff.IDLength {
			return 0, false
		}
		hi, lo, ok := decodeID(line[:handoff.IDLength])
		if !ok {
			return 0, false
		}
		return findLive(live, hi, lo)
	}
	var size int64
	err := searchCacheLines(path, func(line []byte, off int64) {
		size += int64(len(line)) + 1
		if i, ok := find(line); ok {
			last[i], lastLen[i] = off, int64(len(line))+1
		}
	})
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNoSearchCache) {
		return nil
	}
	if err != nil {
		return err
	}
	var kept int64
	for _, n := range lastLen {
		kept += n
	}
	if 4*(size-kept) < size {
		return nil
	}
	return safefile.Write(path, filePerm, func(out io.Writer) error {
		bw := bufio.NewWriterSize(out, searchChunk)
		bw.WriteString(searchHeader + "\n")
		err := searchCacheLines(path, func(line []byte, off int64) {
			if i, ok := find(line); ok && last[i] == off {
				bw.Write(line)
				bw.WriteByte('\n')
			}
		})
		if err != nil {
			return err
		}
		return bw.Flush() // a failed write is kept by bw and returned here
	})
}

// errNoSearchCache: the file is not a search cache of this version.
var errNoSearchCache = errors.New("not a search cache")

// searchCacheLines calls fn with each whole line of the search cache at
// path after its header, and the line's offset, reading in chunks.
func searchCacheLines(path string, fn func(line []byte, off int64)) error {
	f, _, err := safefile.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, searchChunk)
	head, err := br.ReadSlice('\n')
	if err != nil || string(head) != searchHeader+"\n" {
		return errNoSearchCache
	}
	off := int64(len(head))
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return fmt.Errorf("%s: a line longer than %d bytes", path, searchChunk)
		}
		if err == io.EOF {
			return nil // a final line without its newline is a torn append
		}
		if err != nil {
			return safefile.Wrap("read", path, err)
		}
		fn(bytes.TrimSuffix(line, []byte{'\n'}), off)
		off += int64(len(line))
	}
}

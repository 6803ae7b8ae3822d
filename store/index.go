package store

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/handoff"
)

// The index is an append-only text file. Its first line is indexHeader; every
// other line is one event, its fields separated by tabs:
//
//	"+" id created_unix_ms tool project_name project_path title branch source root_commit remote_key tags summary_prefix
//	"*" id created_unix_ms tool project_name project_path title branch source root_commit remote_key tags summary_prefix
//	"-" id
//
// The last line for an id wins: "+" and "*" say the record exists with these
// fields, "-" that it was removed. The order of the live lines is the order
// in which the records entered this store, newest last: list and latest
// read it from the end, and a rebuild keeps it (scanResult.inEntryOrder).
// "+" also says that the id is greater than the id of every earlier "+" or
// "*" line ("in order", as saves of new handoffs are; removals do not
// count); "*" marks a line that is not (an import of an older handoff, a
// replaced record). No order of ours rests on that: it is checked and
// kept for the earlier versions that found their newest ids by it. Tags
// are joined by commas (a tag cannot contain one). In every text field a
// backslash, tab, newline or carriage return is written as \\, \t, \n or
// \r. A final line without its newline is a torn append: readers ignore it
// and the next writer truncates it.
const indexHeader = "session-handoff-index 3"

// olderIndexHeaders are the headers of the indexes earlier versions wrote:
// 1 had no "*" lines and "+" without the promise of order, 2 had no
// root_commit and remote_key. Such an index is rebuilt, in its order.
var olderIndexHeaders = []string{"session-handoff-index 1", "session-handoff-index 2"}

const (
	// summaryPrefixLen is how much of a summary the index keeps for Query.
	summaryPrefixLen = 200
	// indexFields is the number of tab-separated fields of a "+" line.
	indexFields = 13
	// tombstoneLen is the length of a "-" line without its newline.
	tombstoneLen = 2 + handoff.IDLength
	// maxIndexSize bounds what a reader loads; line offsets are uint32.
	maxIndexSize = 1 << 30
)

// Field positions in a "+" line.
const (
	fOp = iota
	fID
	fCreated
	fTool
	fProjectName
	fProjectPath
	fTitle
	fBranch
	fSource
	fRootCommit
	fRemoteKey
	fTags
	fSummary
)

// errCorruptIndex is wrapped by every error that means the index must be
// rebuilt from the records.
var errCorruptIndex = errors.New("index is corrupt")

// indexError says which line of the index is unusable and why.
type indexError struct {
	Line   int // 1-based; 0 when the whole file is at fault
	Reason string
}

func (e *indexError) Error() string {
	if e.Line == 0 {
		return "index: " + e.Reason
	}
	return fmt.Sprintf("index line %d: %s", e.Line, e.Reason)
}

func (e *indexError) Unwrap() error { return errCorruptIndex }

// indexEntry is the decoded content of a "+" line.
type indexEntry struct {
	ID          handoff.ID
	CreatedMS   int64
	Tool        string
	ProjectName string
	ProjectPath string
	Title       string
	Branch      string
	Source      string
	// RootCommit and RemoteKey are the project's identity
	// (handoff.Identity): its root commit and its remote's key.
	RootCommit string
	RemoteKey  string
	Tags       []string
	Summary    string // at most summaryPrefixLen bytes
}

// entryFromRecord returns the index entry describing r.
func entryFromRecord(r *handoff.Record) indexEntry {
	e := indexEntry{
		ID:          r.ID,
		CreatedMS:   r.CreatedAt.UnixMilli(),
		Tool:        r.Tool,
		ProjectName: r.Project.Name,
		ProjectPath: r.Project.Path,
		Title:       r.Title,
		Source:      r.Source.Kind,
		RootCommit:  r.Project.RootCommit,
		RemoteKey:   handoff.RemoteKey(r.Project.Remote),
		Tags:        r.Tags,
		Summary:     prefixUTF8(r.Summary, summaryPrefixLen),
	}
	if r.Git != nil {
		e.Branch = r.Git.Branch
	}
	return e
}

// prefixUTF8 returns at most n bytes of s, cut at a character boundary.
func prefixUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// toEntry converts to the exported form.
func (e *indexEntry) toEntry() Entry {
	return Entry{
		ID:          e.ID,
		CreatedAt:   time.UnixMilli(e.CreatedMS).UTC(),
		Tool:        e.Tool,
		ProjectName: e.ProjectName,
		ProjectPath: e.ProjectPath,
		Title:       e.Title,
		Branch:      e.Branch,
		Source:      e.Source,
		Tags:        e.Tags,
	}
}

// appendLine appends the line for e, with its newline, to dst: "+" when e's
// id is greater than after (the greatest id of an earlier record line; empty when
// there is none), "*" otherwise.
func appendLine(dst []byte, e *indexEntry, after handoff.ID) []byte {
	op := byte('+')
	if after != "" && e.ID <= after {
		op = '*'
	}
	dst = append(dst, op, '\t')
	dst = append(dst, e.ID...)
	dst = append(dst, '\t')
	dst = appendInt(dst, e.CreatedMS)
	for _, s := range [...]string{e.Tool, e.ProjectName, e.ProjectPath, e.Title, e.Branch, e.Source, e.RootCommit, e.RemoteKey} {
		dst = append(dst, '\t')
		dst = appendEscaped(dst, s)
	}
	dst = append(dst, '\t')
	for i, t := range e.Tags {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendEscaped(dst, t)
	}
	dst = append(dst, '\t')
	dst = appendEscaped(dst, e.Summary)
	return append(dst, '\n')
}

// appendTombstone appends the "-" line for id, with its newline, to dst.
func appendTombstone(dst []byte, id handoff.ID) []byte {
	dst = append(dst, '-', '\t')
	dst = append(dst, id...)
	return append(dst, '\n')
}

func appendInt(dst []byte, v int64) []byte {
	var tmp [20]byte
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = uint64(-v)
	}
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	return append(dst, tmp[i:]...)
}

// parseInt parses an optionally negative decimal integer of at most 18
// digits without allocating.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

func appendEscaped(dst []byte, s string) []byte {
	for {
		i := strings.IndexAny(s, "\\\t\n\r")
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		switch s[i] {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		}
		s = s[i+1:]
	}
}

// unescape decodes one field. It always returns a fresh string, so the
// result does not pin the buffer the field came from.
func unescape(b []byte) (string, error) {
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return string(b), nil
	}
	out := make([]byte, 0, len(b))
	for {
		out = append(out, b[:i]...)
		if i+1 >= len(b) {
			return "", errors.New("backslash at the end of a field")
		}
		switch b[i+1] {
		case '\\':
			out = append(out, '\\')
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		default:
			return "", fmt.Errorf("unknown escape \\%s", quoteByte(b[i+1]))
		}
		b = b[i+2:]
		i = bytes.IndexByte(b, '\\')
		if i < 0 {
			out = append(out, b...)
			return string(out), nil
		}
	}
}

// fieldValue returns the decoded bytes of a field, without copying when the
// field holds no escape.
func fieldValue(b []byte) ([]byte, error) {
	if bytes.IndexByte(b, '\\') < 0 {
		return b, nil
	}
	s, err := unescape(b)
	return []byte(s), err
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return string(rune(c))
	}
	return fmt.Sprintf("x%02x", c)
}

// idDecode maps the characters of a canonical id to their 5-bit values;
// 0xff marks characters that cannot appear in one.
var idDecode = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "0123456789ABCDEFGHJKMNPQRSTVWXYZ" {
		t[c] = byte(i)
	}
	return t
}()

// decodeID turns the 26 characters of a canonical id into its 128 bits, so
// that ids compare as two integers. Numeric order is the string order.
func decodeID(b []byte) (hi, lo uint64, ok bool) {
	if len(b) != handoff.IDLength {
		return 0, 0, false
	}
	v := idDecode[b[0]]
	if v > 7 {
		return 0, 0, false
	}
	lo = uint64(v)
	for _, c := range b[1:] {
		v = idDecode[c]
		if v == 0xff {
			return 0, 0, false
		}
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(v)
	}
	return hi, lo, true
}

// lineRef locates one event line of the index.
type lineRef struct {
	hi, lo   uint64 // the id
	off, end uint32 // the line within the buffer, without its newline
	del      bool   // a tombstone
	inOrder  bool   // a "+" line: no earlier line has a greater id
	// matched and idHit are searchCached's marks on the line
	// (refScanner.onLine): the base conditions match it; its id holds
	// the query. cached is what the search cache says of the query for
	// the id (searchMiss, searchFound, searchCut; 0: it has no line).
	matched, idHit bool
	cached         byte
}

func (r *lineRef) cmp(o *lineRef) int {
	switch {
	case r.hi != o.hi:
		if r.hi < o.hi {
			return -1
		}
		return 1
	case r.lo != o.lo:
		if r.lo < o.lo {
			return -1
		}
		return 1
	case r.off != o.off:
		if r.off < o.off {
			return -1
		}
		return 1
	}
	return 0
}

// findLive returns the position in live (ascending by id) of the id hi,
// lo, and whether it is there.
func findLive(live []lineRef, hi, lo uint64) (int, bool) {
	return slices.BinarySearchFunc(live, [2]uint64{hi, lo}, func(r lineRef, id [2]uint64) int {
		return cmp.Or(cmp.Compare(r.hi, id[0]), cmp.Compare(r.lo, id[1]))
	})
}

// parsedIndex is a loaded index: the bytes and the live records in it.
type parsedIndex struct {
	buf  []byte
	refs []lineRef // every event line; live is a prefix of its storage
	live []lineRef // one per live id, ascending by id
	// lines counts the event lines; torn is set when the file ended in a
	// line without a newline, which was ignored.
	lines int
	torn  bool
	pool  *indexBuffers
	// inFileOrder is set when live is also in the order of its lines in
	// the file (every line's id is greater than the one before, as when
	// every record was saved here); else order is made when asked for.
	inFileOrder bool
	order       []int32
}

// line returns the bytes of live entry i.
func (ix *parsedIndex) line(i int) []byte {
	r := &ix.live[i]
	return ix.buf[r.off:r.end]
}

// entered returns the position in live of the k-th record, from 0, to
// have entered the store: the order of their lines in the file (the last
// line for an id being its live one), which is this store's, whatever
// ids the records have.
func (ix *parsedIndex) entered(k int) int {
	if ix.inFileOrder {
		return k
	}
	if ix.order == nil {
		ix.order = make([]int32, len(ix.live))
		for i := range ix.order {
			ix.order[i] = int32(i)
		}
		slices.SortFunc(ix.order, func(a, b int32) int { return cmp.Compare(ix.live[a].off, ix.live[b].off) })
	}
	return int(ix.order[k])
}

// parseIndex checks the shape of every line of buf cheaply (operation, id,
// field count) and finds the live entry of every id. Field contents are
// decoded later, only for the lines a caller asks for. refs is scratch
// space that may be reused.
func parseIndex(buf []byte, refs []lineRef) (*parsedIndex, error) {
	ix := &parsedIndex{buf: buf}
	if len(buf) > maxIndexSize {
		return ix, &indexError{Reason: fmt.Sprintf("larger than %d bytes", maxIndexSize)}
	}
	nl := bytes.IndexByte(buf, '\n')
	if nl < 0 || string(buf[:nl]) != indexHeader {
		return ix, &indexError{Line: 1, Reason: headerReason(buf[:max(nl, 0)])}
	}
	sc := refScanner{refs: refs[:0], lineNo: 1}
	ix.torn = sc.lines(buf[nl+1:], nl+1) < len(buf)
	if sc.err != nil {
		return ix, sc.err
	}
	ix.refs, ix.lines = sc.refs, len(sc.refs)
	ix.live, ix.inFileOrder = sc.live()
	return ix, nil
}

// refScanner checks the event lines of an index fed to it in order, whole
// or in chunks, and keeps a lineRef of each: what parseIndex needs, and
// what a search needs without holding the file (searchCached).
type refScanner struct {
	refs   []lineRef
	lineNo int   // the number of the last line fed, from 1 (the header)
	err    error // the first damaged line's, after which nothing is fed
	// notSorted is set once an id is not greater than the one before.
	notSorted      bool
	prevHi, prevLo uint64
	maxHi, maxLo   uint64 // the greatest id of a record line so far
	seenRecord     bool
	onLine         func(line []byte, ref *lineRef) error
}

// lines feeds the whole lines of data, which starts at offset off of the
// file, and returns the offset just past the last whole line (a final line
// without its newline is left unread). It stops at the first damaged line
// and keeps its error.
func (sc *refScanner) lines(data []byte, off int) int {
	pos := 0
	for pos < len(data) && sc.err == nil {
		n := bytes.IndexByte(data[pos:], '\n')
		if n < 0 {
			break
		}
		sc.add(data[pos:pos+n], off+pos)
		pos += n + 1
	}
	return off + pos
}

// add checks one event line found at offset off of the file.
func (sc *refScanner) add(line []byte, off int) {
	sc.lineNo++
	ref, reason := checkLine(line)
	if reason != "" {
		sc.err = &indexError{Line: sc.lineNo, Reason: reason}
		return
	}
	ref.off, ref.end = uint32(off), uint32(off+len(line))
	if !ref.del {
		greater := !sc.seenRecord || ref.hi > sc.maxHi || ref.hi == sc.maxHi && ref.lo > sc.maxLo
		if ref.inOrder && !greater {
			// Readers from the end trust this promise: a false one is damage.
			sc.err = &indexError{Line: sc.lineNo, Reason: "marked in order (+) after a record line with a greater id"}
			return
		}
		if greater {
			sc.maxHi, sc.maxLo, sc.seenRecord = ref.hi, ref.lo, true
		}
	}
	if len(sc.refs) > 0 && (ref.hi < sc.prevHi || ref.hi == sc.prevHi && ref.lo <= sc.prevLo) {
		sc.notSorted = true
	}
	sc.prevHi, sc.prevLo = ref.hi, ref.lo
	sc.refs = append(sc.refs, ref)
	if sc.onLine != nil {
		if err := sc.onLine(line, &sc.refs[len(sc.refs)-1]); err != nil {
			sc.err = &indexError{Line: sc.lineNo, Reason: err.Error()}
		}
	}
}

// live returns the live entry of every id, ascending by id, in the storage
// of the refs (which it reorders), and whether that is also the order of
// their lines in the file.
func (sc *refScanner) live() (live []lineRef, inFileOrder bool) {
	refs := sc.refs
	if !sc.notSorted {
		// Strictly ascending ids: no id repeats, so every "+" line is live.
		live = refs[:0]
		for _, r := range refs {
			if !r.del {
				live = append(live, r)
			}
		}
		return live, true
	}
	slices.SortFunc(refs, func(a, b lineRef) int { return a.cmp(&b) })
	live = refs[:0]
	for i := range refs {
		if i+1 < len(refs) && refs[i+1].hi == refs[i].hi && refs[i+1].lo == refs[i].lo {
			continue // a later line for the same id wins
		}
		if !refs[i].del {
			live = append(live, refs[i])
		}
	}
	return live, false
}

// checkLine checks the shape of one event line and returns its reference,
// or a reason why it is unusable.
func checkLine(line []byte) (lineRef, string) {
	var ref lineRef
	if len(line) < tombstoneLen || line[1] != '\t' {
		return ref, "not an index event"
	}
	var ok bool
	ref.hi, ref.lo, ok = decodeID(line[2:tombstoneLen])
	if !ok {
		return ref, "not a canonical handoff id"
	}
	switch line[0] {
	case '-':
		if len(line) != tombstoneLen {
			return ref, "trailing data after a removal"
		}
		ref.del = true
	case '+', '*':
		ref.inOrder = line[0] == '+'
		if len(line) == tombstoneLen || line[tombstoneLen] != '\t' {
			return ref, "no tab after the id"
		}
		if n := bytes.Count(line, tab); n != indexFields-1 {
			return ref, fmt.Sprintf("%d fields, want %d", n+1, indexFields)
		}
	default:
		return ref, "not an index event"
	}
	return ref, ""
}

var tab = []byte{'\t'}

// eventID reads the operation and id of an event line of this version or
// an earlier one (whose "+" lines had fewer fields): all a rebuild needs
// to keep the entry order of the index it replaces.
func eventID(line []byte) (id handoff.ID, del, ok bool) {
	if len(line) < tombstoneLen || line[1] != '\t' || (len(line) > tombstoneLen && line[tombstoneLen] != '\t') {
		return "", false, false
	}
	if _, _, ok := decodeID(line[2:tombstoneLen]); !ok {
		return "", false, false
	}
	switch line[0] {
	case '-':
		return handoff.ID(line[2:tombstoneLen]), true, len(line) == tombstoneLen
	case '+', '*':
		return handoff.ID(line[2:tombstoneLen]), false, len(line) > tombstoneLen
	}
	return "", false, false
}

// splitFields splits a "+" line whose shape checkLine accepted.
func splitFields(line []byte) (f [indexFields][]byte) {
	for i := 0; i < indexFields-1; i++ {
		n := bytes.IndexByte(line, '\t')
		if n < 0 { // cannot happen after checkLine; stay safe on bad input
			f[i] = line
			return f
		}
		f[i] = line[:n]
		line = line[n+1:]
	}
	f[indexFields-1] = line
	return f
}

// parseLine fully decodes one event line: for "+" and "*" the entry, for
// "-" only the id.
func parseLine(line []byte) (ie indexEntry, del bool, err error) {
	ref, reason := checkLine(line)
	if reason != "" {
		return ie, false, errors.New(reason)
	}
	ie.ID = handoff.ID(line[2:tombstoneLen])
	if ref.del {
		return ie, true, nil
	}
	f := splitFields(line)
	var ok bool
	if ie.CreatedMS, ok = parseInt(f[fCreated]); !ok {
		return ie, false, fmt.Errorf("created time %q is not a number", handoff.Shorten(string(f[fCreated]), 40))
	}
	for _, d := range [...]struct {
		dst *string
		i   int
	}{{&ie.Tool, fTool}, {&ie.ProjectName, fProjectName}, {&ie.ProjectPath, fProjectPath}, {&ie.Title, fTitle}, {&ie.Branch, fBranch}, {&ie.Source, fSource}, {&ie.RootCommit, fRootCommit}, {&ie.RemoteKey, fRemoteKey}, {&ie.Summary, fSummary}} {
		if *d.dst, err = unescape(f[d.i]); err != nil {
			return ie, false, fmt.Errorf("field %d: %v", d.i+1, err)
		}
	}
	if len(f[fTags]) > 0 {
		n := bytes.Count(f[fTags], []byte{','}) + 1
		ie.Tags = make([]string, 0, n)
		for _, t := range bytes.Split(f[fTags], []byte{','}) {
			s, err := unescape(t)
			if err != nil {
				return ie, false, fmt.Errorf("field %d: %v", fTags+1, err)
			}
			ie.Tags = append(ie.Tags, s)
		}
	}
	return ie, false, nil
}

// entry decodes live entry i.
func (ix *parsedIndex) entry(i int) (Entry, error) {
	ie, _, err := parseLine(ix.line(i))
	if err != nil {
		return Entry{}, &indexError{Line: ix.lineNumber(i), Reason: err.Error()}
	}
	return ie.toEntry(), nil
}

// lineNumber finds the line number of live entry i, for error messages.
func (ix *parsedIndex) lineNumber(i int) int {
	return bytes.Count(ix.buf[:ix.live[i].off], []byte{'\n'}) + 1
}

// headerReason says why a first line is not indexHeader.
func headerReason(first []byte) string {
	if slices.Contains(olderIndexHeaders, string(first)) {
		return "written by an earlier version"
	}
	return fmt.Sprintf("header is not %q", indexHeader)
}

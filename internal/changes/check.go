// Package changes carries a worktree's uncommitted changes in a handoff:
// it makes the patch (Make), checks a patch from outside before git sees
// it (Check), and applies one to a worktree without losing local work
// (Apply).
//
// The patch is plain `git diff --binary` output against the base commit,
// after a few comment lines of ours that git apply skips (FORMAT.md §1.1).
// A patch comes from another machine: Check reads it the way git apply
// will (headers, hunks by their counts, binary literals by their sizes)
// and refuses what could reach outside the worktree or run something:
// paths that leave the worktree or enter .git, symlinks, files made
// executable, submodules, renames and copies, oversized hunks and binary
// contents that inflate past a bound.
package changes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// The attachment's name and media type.
const (
	Name      = "changes.patch"
	MediaType = handoff.ChangesMediaType
)

// Bounds on a patch.
const (
	// MaxPatch bounds a whole patch.
	MaxPatch = 32 << 20
	// MaxFiles bounds the files one patch changes.
	MaxFiles = 5000
	// MaxHunkLines bounds either side of one hunk.
	MaxHunkLines = 200_000
	// MaxBinary bounds the inflated size of one binary literal or delta.
	MaxBinary = 64 << 20
	// MaxInflated bounds the inflated size of all the binary literals
	// and deltas of one patch together (both blocks of each file, and
	// for a delta the larger of its own size and the size it says its
	// result has): what git apply may hold in memory for one patch.
	MaxInflated = 256 << 20
)

// deltaHeadLines is how many lines of a binary delta are kept to read
// the sizes at its start from (20 inflated bytes; a line carries up to
// 52 deflated ones).
const deltaHeadLines = 64

// header is the first line of our preamble.
const header = "# session-handoff changes 1"

// ErrHostile is wrapped by every refusal of Check.
var ErrHostile = errors.New("refused")

// File is one file a patch changes.
type File struct {
	Path   string
	Status string // "A" created, "D" deleted, "M" modified
	Binary bool
	// Blob is the object id the index line gives the file's new
	// content, when given in full (Make writes --full-index); empty
	// otherwise. Apply's undo compares a created file with it.
	Blob string
	// OldBlob is the index line's id of the file's content before, when
	// given in full; all zeros for a file the patch creates.
	OldBlob string
}

// Summary is what Check read from a patch.
type Summary struct {
	Base   string // the commit the patch applies to
	Branch string // the branch it was made on; empty when detached
	Files  []File
}

// Paths returns the paths of the files s changes.
func (s *Summary) Paths() []string {
	out := make([]string, len(s.Files))
	for i, f := range s.Files {
		out[i] = f.Path
	}
	return out
}

// parser walks a patch line by line, as it is read: what it holds is
// the current line (and the first lines of a binary delta), whatever
// the patch's size.
type parser struct {
	r        *bufio.Reader
	cur      []byte // the current line, with its newline
	ok       bool   // there is a current line
	i        int    // the current line's index (the number of lines before it)
	read     int64  // bytes read so far
	err      error  // the patch is over MaxPatch, ends without a newline, or cannot be read
	sum      Summary
	inflated uint64 // the binary contents so far, inflated (MaxInflated)
}

// Check reads a patch as git apply would and returns what it changes, or
// an error wrapping ErrHostile that names the line and the cause.
func Check(data []byte) (*Summary, error) { return CheckReader(bytes.NewReader(data)) }

// CheckReader is Check of a patch read from r, streamed: its memory does
// not grow with the patch (but for a line's length). Reading fails past
// MaxPatch bytes.
func CheckReader(r io.Reader) (*Summary, error) {
	p := &parser{r: bufio.NewReaderSize(r, 64<<10), i: -1}
	p.next()
	err := p.patch()
	if err != nil && p.err == nil {
		// The whole patch is read, as when it was read first: an
		// oversized or unfinished one says so, whatever else is wrong.
		for p.ok {
			p.next()
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	if err != nil {
		return nil, err
	}
	return &p.sum, nil
}

// patch reads the preamble and every file.
func (p *parser) patch() error {
	if err := p.preamble(); err != nil {
		return err
	}
	if !p.ok {
		return fmt.Errorf("%w: the patch changes no file", ErrHostile)
	}
	for p.ok {
		if len(p.sum.Files) >= MaxFiles {
			return p.errf("over %d files", MaxFiles)
		}
		if err := p.file(); err != nil {
			return err
		}
	}
	return nil
}

// next reads the next line, or leaves none at the end of the patch (or
// of what may be read of it).
func (p *parser) next() {
	p.i++
	p.ok = false
	if p.err != nil {
		return
	}
	p.cur = p.cur[:0]
	for {
		chunk, err := p.r.ReadSlice('\n')
		p.read += int64(len(chunk))
		if p.read > MaxPatch {
			p.err = fmt.Errorf("%w: patch over %d bytes", ErrHostile, MaxPatch)
			return
		}
		p.cur = append(p.cur, chunk...)
		switch {
		case err == nil:
			p.ok = true
			return
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(p.cur) > 0 {
				p.err = fmt.Errorf("%w: patch does not end with a newline", ErrHostile)
			}
			return
		default:
			p.err = fmt.Errorf("read the patch: %w", err)
			return
		}
	}
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrHostile, p.i+1, fmt.Sprintf(format, args...))
}

// line returns the current line without its newline.
func (p *parser) line() string { return strings.TrimSuffix(string(p.cur), "\n") }

// preamble reads our comment lines: the header, base, branch, and
// nothing else before the first "diff --git".
func (p *parser) preamble() error {
	if !p.ok || p.line() != header {
		return p.errf("not a session-handoff changes patch (want %q first)", header)
	}
	for p.next(); p.ok; p.next() {
		l := p.line()
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if p.sum.Base == "" {
				return p.errf("no base commit")
			}
			return nil
		case strings.HasPrefix(l, "# base "):
			p.sum.Base = strings.TrimPrefix(l, "# base ")
			if !isHash(p.sum.Base) {
				return p.errf("base %s is not a commit hash", untrusted.Quote(p.sum.Base, 80))
			}
		case strings.HasPrefix(l, "# branch "):
			p.sum.Branch = strings.TrimPrefix(l, "# branch ")
			if untrusted.OneLine(p.sum.Branch, 256) != p.sum.Branch || strings.ContainsAny(p.sum.Branch, " ~^:?*[\\") {
				return p.errf("branch %s is not a branch name", untrusted.Quote(p.sum.Branch, 80))
			}
		case strings.HasPrefix(l, "# ") || l == "#":
			// a comment of ours: untracked files left out, counts
		default:
			return p.errf("unexpected text before the first file: %s", untrusted.Quote(l, 80))
		}
	}
	if p.sum.Base == "" {
		return p.errf("no base commit")
	}
	return nil
}

func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// file reads one "diff --git" section: its extended header, the ---/+++
// lines, and its hunks or binary patch.
func (p *parser) file() error {
	l := p.line()
	if !strings.HasPrefix(l, "diff --git ") {
		return p.errf("want a \"diff --git\" line, got %s", untrusted.Quote(l, 80))
	}
	path, err := headerPath(strings.TrimPrefix(l, "diff --git "))
	if err != nil {
		return p.errf("%v", err)
	}
	if err := checkPath(path); err != nil {
		return p.errf("%v", err)
	}
	f := File{Path: path, Status: "M"}
	p.next()
	if err := p.extended(&f); err != nil {
		return err
	}
	if err := p.names(&f); err != nil {
		return err
	}
	p.sum.Files = append(p.sum.Files, f)
	return p.body(&f)
}

// extended reads the extended header lines git writes between "diff
// --git" and "---": modes and the index line.
func (p *parser) extended(f *File) error {
	for ; p.ok; p.next() {
		l := p.line()
		key, val, _ := strings.Cut(l, " mode ")
		switch {
		case key == "new file" || key == "new":
			if key == "new file" {
				f.Status = "A"
			}
			if err := newMode(val); err != nil {
				return p.errf("%s: %v", untrusted.Quote(f.Path, 200), err)
			}
		case key == "deleted file" || key == "old":
			if key == "deleted file" {
				f.Status = "D"
			}
			if err := oldMode(val); err != nil {
				return p.errf("%s: %v", untrusted.Quote(f.Path, 200), err)
			}
		case strings.HasPrefix(l, "index "):
			from, to, err := indexLine(strings.TrimPrefix(l, "index "))
			if err != nil {
				return p.errf("%s: %v", untrusted.Quote(f.Path, 200), err)
			}
			if isHash(to) && isHash(from) {
				f.Blob, f.OldBlob = to, from
			}
		case strings.HasPrefix(l, "similarity index"), strings.HasPrefix(l, "dissimilarity index"),
			strings.HasPrefix(l, "rename "), strings.HasPrefix(l, "copy "):
			return p.errf("%s: renames and copies are not carried", untrusted.Quote(f.Path, 200))
		case strings.HasPrefix(l, "Binary files "):
			return p.errf("%s: a binary change without its content (made without --binary)", untrusted.Quote(f.Path, 200))
		default:
			return nil
		}
	}
	return nil
}

// newMode checks the mode a file gets: a plain file, never executable,
// a link or a submodule.
func newMode(m string) error {
	if m == "100755" {
		return errors.New("makes a file executable")
	}
	return oldMode(m)
}

// oldMode checks the mode a file had: a plain or executable file.
func oldMode(m string) error {
	switch m {
	case "100644", "100755":
		return nil
	case "120000":
		return errors.New("a symbolic link")
	case "160000":
		return errors.New("a submodule")
	}
	return fmt.Errorf("unknown mode %s", untrusted.Quote(m, 20))
}

// indexLine checks "index OLD..NEW[ MODE]": the mode, when given, is that
// of a file left as it was (already executable is fine).
// It returns NEW.
func indexLine(v string) (from, to string, err error) {
	ids, mode, hasMode := strings.Cut(v, " ")
	from, to, ok := strings.Cut(ids, "..")
	if !ok || !hexID(from) || !hexID(to) {
		return "", "", fmt.Errorf("bad index line %s", untrusted.Quote(v, 100))
	}
	if hasMode {
		return from, to, oldMode(mode)
	}
	return from, to, nil
}

func hexID(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// names reads the "--- a/X" and "+++ b/X" lines when present: each names
// the header's path, or /dev/null for a created or deleted file.
func (p *parser) names(f *File) error {
	if !p.ok || !strings.HasPrefix(p.line(), "--- ") {
		return nil
	}
	for _, side := range []struct{ prefix, dir, null string }{{"--- ", "a/", "A"}, {"+++ ", "b/", "D"}} {
		if !p.ok || !strings.HasPrefix(p.line(), side.prefix) {
			return p.errf("want a %q line", side.prefix)
		}
		name := strings.TrimPrefix(p.line(), side.prefix)
		if name == "/dev/null" {
			if f.Status != side.null {
				return p.errf("%s: /dev/null for a file that is not created or deleted", untrusted.Quote(f.Path, 200))
			}
		} else {
			got, err := unquote(name)
			if err != nil || got != side.dir+f.Path {
				return p.errf("%s does not name %s", untrusted.Quote(name, 200), untrusted.Quote(f.Path, 200))
			}
		}
		p.next()
	}
	return nil
}

// body reads the file's hunks or its binary patch, up to the next
// "diff --git" line.
func (p *parser) body(f *File) error {
	if p.ok && p.line() == "GIT binary patch" {
		f.Binary = true
		p.next()
		return p.binary(f)
	}
	for p.ok {
		l := p.line()
		switch {
		case strings.HasPrefix(l, "diff --git "):
			return nil
		case strings.HasPrefix(l, "@@ "):
			if err := p.hunk(f); err != nil {
				return err
			}
		default:
			return p.errf("%s: unexpected line %s", untrusted.Quote(f.Path, 200), untrusted.Quote(l, 80))
		}
	}
	return nil
}

// hunk reads one hunk by the counts of its header, as git apply does, so
// that no line inside it is taken for a header.
func (p *parser) hunk(f *File) error {
	parts := strings.Fields(hunkRanges(p.line()))
	if len(parts) != 2 || parts[0][0] != '-' || parts[1][0] != '+' {
		return p.errf("%s: bad hunk header", untrusted.Quote(f.Path, 200))
	}
	oldN, err := rangeCount(parts[0])
	var newN int
	if err == nil {
		newN, err = rangeCount(parts[1])
	}
	if err != nil {
		return p.errf("%s: %v", untrusted.Quote(f.Path, 200), err)
	}
	if oldN > MaxHunkLines || newN > MaxHunkLines {
		return p.errf("%s: a hunk of over %d lines", untrusted.Quote(f.Path, 200), MaxHunkLines)
	}
	for p.next(); oldN > 0 || newN > 0; p.next() {
		if !p.ok {
			return p.errf("%s: the patch ends inside a hunk", untrusted.Quote(f.Path, 200))
		}
		l := p.cur
		switch l[0] {
		case ' ':
			oldN--
			newN--
		case '-':
			oldN--
		case '+':
			newN--
		case '\\':
		default:
			return p.errf("%s: a hunk line that is neither context, removal nor addition", untrusted.Quote(f.Path, 200))
		}
		if oldN < 0 || newN < 0 {
			return p.errf("%s: a hunk longer than its header says", untrusted.Quote(f.Path, 200))
		}
	}
	if p.ok && p.cur[0] == '\\' {
		p.next() // "\ No newline at end of file" after the last line
	}
	return nil
}

// hunkRanges returns "-a,b +c,d" of "@@ -a,b +c,d @@ …".
func hunkRanges(l string) string {
	rest := strings.TrimPrefix(l, "@@ ")
	r, _, ok := strings.Cut(rest, " @@")
	if !ok {
		return ""
	}
	return r
}

// rangeCount returns the line count of "-a,b" or "+c,d" (b is 1 when
// left out).
func rangeCount(r string) (int, error) {
	if len(r) < 2 || (r[0] != '-' && r[0] != '+') {
		return 0, errors.New("bad hunk range")
	}
	start, count, has := strings.Cut(r[1:], ",")
	if _, err := strconv.ParseUint(start, 10, 31); err != nil {
		return 0, errors.New("bad hunk range")
	}
	if !has {
		return 1, nil
	}
	n, err := strconv.ParseUint(count, 10, 31)
	if err != nil {
		return 0, errors.New("bad hunk range")
	}
	return int(n), nil
}

// binary reads a "GIT binary patch": one or two "literal N" or "delta N"
// blocks of base85 lines, each N (the inflated size git allocates)
// bounded.
func (p *parser) binary(f *File) error {
	for block := 0; block < 2; block++ {
		if !p.ok {
			return p.errf("%s: the binary patch ends early", untrusted.Quote(f.Path, 200))
		}
		kind, size, _ := strings.Cut(p.line(), " ")
		n, err := strconv.ParseUint(size, 10, 63)
		if (kind != "literal" && kind != "delta") || err != nil {
			return p.errf("%s: bad binary patch block", untrusted.Quote(f.Path, 200))
		}
		if n > MaxBinary {
			return p.errf("%s: binary content of %d bytes, over %d", untrusted.Quote(f.Path, 200), n, MaxBinary)
		}
		var head [][]byte // a delta's first lines, which hold its sizes
		for p.next(); p.ok && p.line() != ""; p.next() {
			if c := p.cur[0]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
				return p.errf("%s: bad binary patch line", untrusted.Quote(f.Path, 200))
			}
			if kind == "delta" && len(head) < deltaHeadLines {
				head = append(head, bytes.Clone(p.cur))
			}
		}
		if kind == "delta" {
			// A delta of a few bytes can say its result is gigabytes
			// (copies of the same stretch of the old content): the size
			// it states counts, read from its header.
			result, err := deltaResultSize(head)
			if err != nil {
				return p.errf("%s: %v", untrusted.Quote(f.Path, 200), err)
			}
			if result > MaxBinary {
				return p.errf("%s: binary content of %d bytes, over %d", untrusted.Quote(f.Path, 200), result, MaxBinary)
			}
			n = max(n, result)
		}
		if p.inflated += n; p.inflated > MaxInflated {
			return p.errf("%s: binary contents of over %d bytes in all", untrusted.Quote(f.Path, 200), MaxInflated)
		}
		if !p.ok {
			return p.errf("%s: the binary patch ends early", untrusted.Quote(f.Path, 200))
		}
		p.next() // the empty line that ends a block
		if !p.ok || strings.HasPrefix(p.line(), "diff --git ") {
			return nil
		}
	}
	if p.ok && !strings.HasPrefix(p.line(), "diff --git ") {
		return p.errf("%s: unexpected text after the binary patch", untrusted.Quote(f.Path, 200))
	}
	return nil
}

// headerPath returns the path of "a/X b/X" (the two must be the same:
// renames are not carried), unquoting git's C-style quotes.
func headerPath(rest string) (string, error) {
	if strings.HasPrefix(rest, `"`) {
		end := quotedEnd(rest)
		if end < 0 || end+2 > len(rest) || rest[end+1] != ' ' {
			return "", errors.New("cannot read the paths of the diff header")
		}
		a, err := unquote(rest[:end+1])
		if err != nil {
			return "", errors.New("cannot read the paths of the diff header")
		}
		b, err := unquote(rest[end+2:])
		if err != nil || !strings.HasPrefix(a, "a/") || b != "b/"+a[2:] {
			return "", errors.New("the diff header names two different paths")
		}
		return a[2:], nil
	}
	n := len(rest)
	if n < 7 || (n-5)%2 != 0 {
		return "", errors.New("cannot read the paths of the diff header")
	}
	x := rest[2 : 2+(n-5)/2]
	if rest != "a/"+x+" b/"+x {
		return "", errors.New("the diff header names two different paths")
	}
	return x, nil
}

// quotedEnd returns the index of the quote that closes the quoted string
// s starts with, or -1.
func quotedEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquote undoes git's C-style quoting of a path (core.quotepath), which
// Go's strconv reads: \t \n \" \\ and octal escapes.
func unquote(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	return strconv.Unquote(s)
}

// checkPath refuses a path that leaves the worktree or enters a .git
// directory: absolute, "..", empty or "." components, backslashes,
// control characters, and any component git or a case-insensitive or
// NTFS file system would take for .git.
func checkPath(path string) error {
	q := untrusted.Quote(path, 200)
	switch {
	case path == "" || strings.HasPrefix(path, "/"):
		return fmt.Errorf("%s: an absolute or empty path", q)
	case strings.ContainsAny(path, "\\\x00"):
		return fmt.Errorf("%s: a backslash or NUL in a path", q)
	}
	for _, c := range path {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("%s: a control character in a path", q)
		}
	}
	for _, part := range strings.Split(path, "/") {
		switch {
		case part == "" || part == ".":
			return fmt.Errorf("%s: an empty or \".\" path component", q)
		case part == "..":
			return fmt.Errorf("%s: a path outside the worktree", q)
		case strings.EqualFold(strings.TrimRight(part, ". "), ".git") || strings.EqualFold(part, "git~1"):
			return fmt.Errorf("%s: a path into .git", q)
		}
	}
	return nil
}

// Package transcript is what every reader of an agent's session
// transcripts shares; the readers themselves live in their agents'
// folders under internal/agents. It holds the session model (Digest,
// Stats, Limits, SessionInfo) and the reading toolkit: bounded opening and
// lines (ReadOpen, EachLine), typed line structs on the package's own fast
// JSON parser (Decode), the event fold that builds a digest (Builder),
// discovery from each file's head and tail (ProbeSessions), text cleaning
// and shortening, and every digest's bounds (CheckDigest). It reads files
// only: no git, no store, no worktree (internal/capture does those), and
// it knows no agent and no table of agents.
package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/jsonfast"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Agent names a coding agent, as the agents table (internal/agents)
// spells it.
type Agent string

// Bounds on what a digest keeps. Text is cut on character boundaries and
// marked where it was cut.
const (
	// MaxEarlierRequest bounds each user request but the last.
	MaxEarlierRequest = 500
	// MaxLastRequest bounds the last user request.
	MaxLastRequest = 16 << 10
	// MaxAgentMessage bounds the agent's last message.
	MaxAgentMessage = 16 << 10
	// MaxCommandText bounds the text of one command.
	MaxCommandText = 4 << 10
	// MaxToolArguments bounds a tool call's arguments as an observer is
	// told them (Builder.Tool).
	MaxToolArguments = 2 << 10
	// MaxCommandOutput bounds the output kept with a failed command.
	MaxCommandOutput = 4 << 10
	// MaxFailureOutput bounds the output of the last failure.
	MaxFailureOutput = 16 << 10
	// MaxCompaction bounds the compaction summary.
	MaxCompaction = 32 << 10
	// MaxTitle bounds the title, as the record schema does.
	MaxTitle = handoff.MaxTitle

	maxRequests = 500  // schema: session.requests maxItems
	maxCommands = 1000 // schema: session.commands maxItems
	maxTodos    = 500  // schema: session.todos maxItems
	maxTodoText = 4096 // schema: todo content maxLength
	maxFiles    = 5000 // schema: files maxItems
	maxPath     = 4096 // schema: path maxLength
	maxID       = 256  // schema: session.id maxLength
	maxVersion  = 128  // schema: session.agent_version maxLength
	maxBranch   = 1024
)

// Default limits on reading.
const (
	DefaultMaxFile = 256 << 20
	DefaultMaxLine = 16 << 20
)

// Limits bound what is read from one transcript. Zero fields take the
// defaults.
type Limits struct {
	// MaxFile is the largest transcript read, in bytes (default 256 MiB).
	MaxFile int64
	// MaxLine is the longest line decoded (default 16 MiB); a longer line
	// is skipped and counted, not fatal.
	MaxLine int
	// Observe, when set, is told every event of the session's main thread
	// as its reader gives it to its Builder (Builder.Observe); the digest
	// is the same with it or without.
	Observe func(Event)
}

func (l Limits) withDefaults() Limits {
	if l.MaxFile <= 0 {
		l.MaxFile = DefaultMaxFile
	}
	if l.MaxLine <= 0 {
		l.MaxLine = DefaultMaxLine
	}
	return l
}

// MaxMalformedLines bounds Stats.MalformedLines.
const MaxMalformedLines = 100

// MaxUnknownTypes bounds the names in Stats.UnknownTypes.
const MaxUnknownTypes = 32

// unknownType counts a record of a type the reader does not know, by name.
func (st *Stats) unknownType(name string) {
	st.Unknown++
	name = untrusted.OneLine(name, 64)
	if name == "" {
		name = "(none)"
	}
	if _, ok := st.UnknownTypes[name]; !ok && len(st.UnknownTypes) >= MaxUnknownTypes {
		return
	}
	if st.UnknownTypes == nil {
		st.UnknownTypes = map[string]int{}
	}
	st.UnknownTypes[name]++
}

// ErrNoRecords is wrapped when a transcript holds no valid record at all.
var ErrNoRecords = errors.New("no valid transcript record")

// ErrTooLarge is wrapped when a transcript is over Limits.MaxFile.
var ErrTooLarge = errors.New("transcript too large")

// ErrSubagent is wrapped when a transcript is a subagent's: its work
// belongs to its parent session's handoff.
var ErrSubagent = errors.New("a subagent transcript, not a session")

// Stats counts what happened to the lines of a transcript.
type Stats struct {
	// Lines is the number of non-blank lines read.
	Lines int `json:"lines"`
	// Records is the number of lines that were JSON objects.
	Records int `json:"records"`
	// Unknown counts records of a type this reader does not know.
	Unknown int `json:"unknown,omitempty"`
	// UnknownTypes counts them by type name, for the first
	// MaxUnknownTypes names (each cut to 64 bytes).
	UnknownTypes map[string]int `json:"unknown_types,omitempty"`
	// Malformed counts lines that were not a JSON object.
	Malformed int `json:"malformed,omitempty"`
	// MalformedLines are the line numbers (from 1, blank lines counted)
	// of the first MaxMalformedLines malformed lines. The older Gemini
	// form, one object over many lines, counts malformed messages
	// without line numbers.
	MalformedLines []int `json:"malformed_lines,omitempty"`
	// TooLong counts lines over Limits.MaxLine.
	TooLong int `json:"too_long,omitempty"`
	// Subagents counts the subagent transcripts folded into this one.
	Subagents int `json:"subagents,omitempty"`
}

// Digest is what one transcript tells the next agent.
type Digest struct {
	// Session is the digest proper, as stored in a handoff record. Its
	// SkippedRecords is the sum of Stats.Unknown, Malformed and TooLong.
	Session handoff.Session `json:"session"`
	// Title is the session's title: one the user or the agent gave it,
	// else its first request, shortened.
	Title string `json:"title,omitempty"`
	// CWD is the session's working directory as the transcript gives it.
	CWD string `json:"cwd,omitempty"`
	// GitBranch is the branch the transcript last names.
	GitBranch string `json:"git_branch,omitempty"`
	// Files are the files the agent edited, created or deleted, in the
	// order first touched. Paths are relative to CWD when under it, else
	// as the transcript wrote them. They are strings only: nothing here
	// opens them.
	Files []handoff.FileTouched `json:"files,omitempty"`
	// Decisions are the questions the agent put to the user and the
	// answers given (Claude Code's AskUserQuestion), as "question → answer".
	Decisions []string `json:"decisions,omitempty"`
	// Worktree is the git worktree the session ended in when it moved out
	// of CWD (Claude Code's worktree-state and relocated records): its
	// files are there.
	Worktree string `json:"worktree,omitempty"`
	// Stats counts the lines read and skipped.
	Stats Stats `json:"stats"`
	// Subagent says the transcript is a subagent's, which capture refuses
	// (its work is folded into its parent's); Parent is the id of the
	// session that started it, when the transcript or its place says.
	Subagent bool   `json:"subagent,omitempty"`
	Parent   string `json:"parent,omitempty"`
	// Goal is the objective the session was set (Codex's thread goal),
	// with its status.
	Goal string `json:"goal,omitempty"`
	// Cancelled says the user cancelled the last turn before it ended:
	// its request may be half done.
	Cancelled bool `json:"cancelled,omitempty"`
	// Said is every message the agent said, in order (parts with one id
	// joined), each bounded as the last one is, at most 4,096 messages
	// and 4 MiB: what search indexes. It is no part of a record.
	Said []string `json:"-"`
}

// ReadOpen opens file, which must be a regular file no larger than
// lim.MaxFile, and reads it with read, as the agents' readers do: what
// there was when it was opened, never past the limit. Errors name the
// file.
func ReadOpen(file string, lim Limits, read func(*io.SectionReader) (*Digest, error)) (*Digest, error) {
	lim = lim.withDefaults()
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", file)
	}
	if fi.Size() > lim.MaxFile {
		return nil, fmt.Errorf("%s: %w: %d bytes, the limit is %d", file, ErrTooLarge, fi.Size(), lim.MaxFile)
	}
	f, _, err := safefile.OpenRegular(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil || !ofi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", file) // it changed under us
	}
	// The agent may still be appending: read what there was when the
	// file was opened, never past the limit. A section can be read twice.
	d, err := read(io.NewSectionReader(f, 0, min(ofi.Size(), lim.MaxFile)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return d, nil
}

// lineReader yields the lines of r one at a time, each at most max bytes;
// longer lines are consumed and reported as too long.
type lineReader struct {
	br    *bufio.Reader
	max   int
	buf   []byte
	first bool
	n     int // the number of the line last returned, from 1
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max, first: true}
}

// next returns the next line without its line ending. The slice is valid
// until the following call. At the end of input it returns io.EOF.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	frag, err := lr.br.ReadSlice('\n')
	if (err == nil || err == io.EOF && len(frag) > 0) && len(frag) <= lr.max+2 {
		// The whole line is in the reader's buffer: no copy.
		lr.n++
		line = lr.trim(frag)
		return line, len(line) > lr.max, nil
	}
	for {
		if !tooLong {
			if len(lr.buf)+len(frag) > lr.max+2 { // +2: room for \r\n
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			frag, err = lr.br.ReadSlice('\n')
			continue
		}
		if err != nil && err != io.EOF {
			return nil, false, err
		}
		if err == io.EOF && len(frag) == 0 && len(lr.buf) == 0 && !tooLong {
			return nil, false, io.EOF
		}
		break
	}
	lr.n++
	line = lr.trim(lr.buf)
	if !tooLong && len(line) > lr.max {
		tooLong = true
	}
	return line, tooLong, nil
}

// trim cuts the line ending, and the byte order mark of the first line.
func (lr *lineReader) trim(b []byte) []byte {
	line := bytes.TrimRight(b, "\r\n")
	if lr.first {
		lr.first = false
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	return line
}

// eachLine calls fn for every line of r that is not blank, with its
// number (from 1, blank lines counted): at most max bytes, or tooLong set.
// The line is valid only during the call.
func eachLine(r io.Reader, max int, fn func(n int, line []byte, tooLong bool)) error {
	lr := newLineReader(r, max)
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !tooLong && len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		fn(lr.n, line, tooLong)
	}
}

// count counts line number n in st: too long, a record (ok), or
// malformed; it says whether the line is a record.
func (st *Stats) count(n int, tooLong, ok bool) bool {
	st.Lines++
	switch {
	case tooLong:
		st.TooLong++
		return false
	case !ok:
		st.Malformed++
		if len(st.MalformedLines) < MaxMalformedLines {
			st.MalformedLines = append(st.MalformedLines, n)
		}
		return false
	}
	st.Records++
	return true
}

// Lenient accessors: a field of the wrong type reads as absent.

// exitCode converts a number to an exit code when it is one.
func exitCode(v any) *int {
	n, ok := jsonfast.Int(v)
	if !ok || n < math.MinInt32 || n > math.MaxInt32 {
		return nil
	}
	c := int(n)
	return &c
}

// parseExit reads an exit code written in decimal.
func parseExit(s string) *int {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return nil
	}
	c := int(n)
	return &c
}

func parseTime(s string) (time.Time, bool) {
	if s == "" || len(s) > 64 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	t = t.UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, false
	}
	return t, true
}

// timeSpan tracks the earliest and latest time seen.
type timeSpan struct {
	first, last time.Time
}

func (s *timeSpan) add(t time.Time, ok bool) {
	if !ok {
		return
	}
	if s.first.IsZero() || t.Before(s.first) {
		s.first = t
	}
	if s.last.IsZero() || t.After(s.last) {
		s.last = t
	}
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// Text helpers. Every string stored in a digest goes through clean and one
// of the shorten functions.

// clean makes s valid UTF-8 and drops NUL characters.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return s
}

// shortenHead keeps the start of s, at most n bytes including a trailing
// ellipsis when cut (untrusted.Fit), after clean.
func shortenHead(s string, n int) string { return untrusted.Fit(clean(s), n) }

// shortenMiddle keeps the start and the end of s, at most n bytes, with a
// note of how much was cut between them: errors and conclusions tend to
// be at the end, context at the start.
func shortenMiddle(s string, n int) string {
	s = clean(s)
	if len(s) <= n {
		return s
	}
	const reserve = 40
	if n <= 2*reserve {
		return shortenHead(s, n)
	}
	half := (n - reserve) / 2
	head := handoff.Clip(s, half)
	start := len(s) - half
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	tail := s[start:]
	return head + fmt.Sprintf("\n[… %d bytes cut …]\n", len(s)-len(head)-len(tail)) + tail
}

// titleFrom makes a title from text: its first paragraph (the lines up to
// the first blank one, joined, as a request wrapped by hand reads), on one
// line of at most MaxTitleLine bytes, cut at a word where it can be.
func titleFrom(s string) string {
	if plan, ok := strings.CutPrefix(strings.TrimSpace(s), implementPlan); ok {
		// The request Claude Code sends when the user approves a plan and
		// clears the context: the plan's own heading says the work.
		s = planHeading(plan)
	}
	// Cleaning first turns Unicode line separators into line breaks.
	var para []string
	for line := range strings.SplitSeq(untrusted.CleanText(s), "\n") {
		line = strings.TrimSpace(line)
		if line == "" && len(para) > 0 {
			break
		}
		if line != "" {
			para = append(para, line)
		}
	}
	return clipWords(untrusted.OneLine(strings.Join(para, " "), MaxTitle), MaxTitleLine)
}

// MaxTitleLine bounds a title made from a request: one line of a terminal.
const MaxTitleLine = 120

// clipWords cuts s to at most n bytes, at the last space before the cut
// when there is one in its second half, with an ellipsis.
func clipWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := untrusted.Clip(s, n-len(untrusted.Ellipsis))
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ") + untrusted.Ellipsis
}

// implementPlan opens the request Claude Code makes of an approved plan
// when the user clears the context first (2.1.328: "Implement the
// following plan:\n\n" and the plan).
const implementPlan = "Implement the following plan:"

// planHeading is a Markdown plan's first heading, else its first line.
func planHeading(plan string) string {
	first := ""
	for line := range strings.SplitSeq(plan, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if h, ok := strings.CutPrefix(line, "#"); ok {
			return strings.TrimSpace(strings.TrimLeft(h, "#"))
		}
		if first == "" {
			first = line
		}
	}
	return first
}

// isSlashCommand reports whether a request is an agent's slash command
// alone ("/review", "/bmad:bmm:create-tech-spec"), which says what was
// run, not the work; one with arguments ("/orchestrator build a TODO
// app") says the work in them.
func isSlashCommand(s string) bool {
	name, ok := strings.CutPrefix(strings.TrimSpace(s), "/")
	return ok && name != "" && !strings.ContainsAny(name, " \t\n/.")
}

// normPath turns a path the agent wrote into the form kept in a digest:
// cleaned, and relative to cwd when it lies under it. It never touches the
// file system. Paths that are not plain slash paths are kept as written.
func normPath(cwd, p string) string {
	p = clean(p)
	if strings.TrimSpace(p) == "" || strings.ContainsRune(p, '\\') {
		return p
	}
	c := path.Clean(p)
	if !strings.HasPrefix(c, "/") {
		return c
	}
	if cwd == "" || !strings.HasPrefix(cwd, "/") {
		return c
	}
	base := path.Clean(cwd)
	if c == base {
		return "."
	}
	if base == "/" {
		return c[1:]
	}
	if strings.HasPrefix(c, base+"/") {
		return c[len(base)+1:]
	}
	return c
}

// joinPath resolves a relative path against dir, lexically.
func joinPath(dir, p string) string {
	if p == "" || strings.HasPrefix(p, "/") || dir == "" || !strings.HasPrefix(dir, "/") || strings.ContainsRune(p, '\\') {
		return p
	}
	return path.Join(dir, p)
}

// UnderDir reports whether p is dir or lies under it, lexically.
func UnderDir(p, dir string) bool {
	if p == "" || dir == "" {
		return false
	}
	p, dir = filepath.Clean(p), filepath.Clean(dir)
	if p == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// Empty says whether d holds nothing a handoff could carry: no request,
// message, command, edit, failed edit, todo, compaction summary, plan, pull request or
// decision.
func (d *Digest) Empty() bool {
	s := d.Session
	return len(s.Requests) == 0 && s.LastAgentMessage == "" && len(s.Commands) == 0 && len(d.Files) == 0 && len(s.FailedEdits) == 0 &&
		len(s.Todos) == 0 && s.CompactionSummary == "" && s.Plan == "" && len(s.PullRequests) == 0 && len(d.Decisions) == 0
}

// NoteInto puts into rec what the transcript says beside the session
// digest, in the record's fields for what a person says (which a note
// given by hand still adds to or replaces, handoff.Notes.Apply): the
// session's goal as its summary, and a cancelled last turn as an open
// question.
func (d *Digest) NoteInto(rec *handoff.Record) {
	if d.Goal != "" && rec.Summary == "" {
		rec.Summary = d.Goal
	}
	if d.Cancelled && len(rec.OpenQuestions) < handoff.MaxItems {
		rec.OpenQuestions = append(rec.OpenQuestions, handoff.CancelledTurnQuestion)
	}
}

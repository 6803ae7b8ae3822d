package transcript

import (
	"io"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Builder builds a Digest from what an agent's reader finds, in the
// session's order: the one way a reader in an agent's folder
// (internal/agents/<name>) makes a digest. Every text it is given is
// cleaned and bounded as the record allows; paths are normalised against
// the session's directory (SetCWD).
type Builder struct {
	d    *Digest
	f    *folder
	span timeSpan
	said said
}

// NewBuilder starts an empty digest.
func NewBuilder() *Builder { return &Builder{d: &Digest{}, f: newFolder()} }

// Digest is the digest being built, for the fields a reader sets itself:
// Session.ID, Session.AgentVersion, Session.Model, Title, GitBranch,
// Stats, Subagent, Parent, Cancelled.
func (b *Builder) Digest() *Digest { return b.d }

// SetCWD sets the session's working directory: later paths are made
// relative to it when they lie under it.
func (b *Builder) SetCWD(cwd string) { b.d.CWD = cwd }

// Time notes a record's time; the earliest and latest are the session's
// start and last activity.
func (b *Builder) Time(t time.Time) { b.span.add(t, !t.IsZero()) }

// Request adds what the user asked.
func (b *Builder) Request(text string) { b.f.add(evReq(text)) }

// AgentMessage adds what the agent said; parts with one id are one
// message.
func (b *Builder) AgentMessage(id, text string) {
	e := evAgent(id, text)
	b.f.add(e)
	b.said.add(e.id, e.text)
}

// Command adds a shell command the agent ran by the tool call id.
func (b *Builder) Command(id, cmd string) { b.f.add(evCmd(id, cmd)) }

// FileOp is what a tool call did to a file.
type FileOp uint8

// The file operations.
const (
	Read   = FileOp(opRead)   // the agent read it: it existed
	Create = FileOp(opCreate) // a new file
	Edit   = FileOp(opEdit)   // an edit of an existing file
	Write  = FileOp(opWrite)  // the whole file written: new unless seen before
	Delete = FileOp(opDelete) // the file removed
)

// File adds the tool call id's operation on path; edits counts the edits
// it makes (0 counts as 1).
func (b *Builder) File(id, path string, op FileOp, edits int) {
	foldEvent(b.f, b.d.CWD, evOps(id, fileOp{path: path, op: opKind(op), n: edits}))
}

// Outcome adds how the tool call id ended: its exit code when known,
// whether it failed, and its output (kept only for a failure).
func (b *Builder) Outcome(id string, exit *int, failed bool, output string) {
	b.f.add(b.withOutput(evOut(id, exit, failed, true, output), output))
}

// Done adds the end of the tool call id when the transcript does not say
// whether it succeeded.
func (b *Builder) Done(id, output string) {
	b.f.add(b.withOutput(evOut(id, nil, false, false, output), output))
}

// Status adds an outcome with a status of its own (handoff.StatusRejected,
// StatusInterrupted, StatusBlocked, StatusBackground).
func (b *Builder) Status(id, status, output string) {
	b.f.add(b.withOutput(evStatus(id, status, output), output))
}

// Todos sets the todo list as it now stands.
func (b *Builder) Todos(items []handoff.Todo) { b.f.add(evTodoList(items)) }

// Task adds or changes one task of a task list the agent keeps by id:
// text is its subject ("" keeps the one it has), status its status
// ("deleted" removes it). A todo list set by Todos starts afresh.
func (b *Builder) Task(id, text, status string) {
	b.f.add(event{kind: evTask, id: id, text: text, status: status})
}

// Compaction adds a compaction summary: the agent's own account of the
// session so far.
func (b *Builder) Compaction(text string) { b.f.add(evCompact(text)) }

// Plan adds the plan the agent put to the user, with its status (a
// handoff.Plan* status, "" while the user has not answered).
func (b *Builder) Plan(text, status string) {
	b.f.add(event{kind: evPlan, text: shortenMiddle(strings.TrimSpace(text), MaxCompaction), status: status})
}

// Cancel notes that the user stopped the turn; a later request starts a
// new one.
func (b *Builder) Cancel() { b.f.add(event{kind: evCancel}) }

// Tokens adds a model call's token use; calls with one id are counted
// once.
func (b *Builder) Tokens(id string, t handoff.Tokens) {
	b.f.add(event{kind: evTokens, id: id, tokens: t})
}

// Finish completes the digest as agent's: the fold, the session's times,
// and the fields every reader sets the same way. It fails with
// ErrNoRecords when no record was read.
func (b *Builder) Finish(agent Agent) (*Digest, error) {
	b.f.finish(b.d)
	b.d.Said = b.said.list
	s := &b.d.Session
	if s.StartedAt == nil {
		s.StartedAt = timePtr(b.span.first)
	}
	if s.LastActivity == nil {
		s.LastActivity = timePtr(b.span.last)
	}
	if err := finishCommon(b.d, agent); err != nil {
		return nil, err
	}
	return b.d, nil
}

// EachLine calls decode for every non-blank line of r, at most lim.MaxLine
// bytes, and counts the lines in st: a longer one as too long, one decode
// refuses (not a JSON object of the agent's) as malformed, the rest as
// records. The line is valid only during the call.
func EachLine(r io.Reader, lim Limits, st *Stats, decode func(line []byte) error) error {
	return eachLine(r, lim.withDefaults().MaxLine, func(n int, line []byte, tooLong bool) {
		st.count(n, tooLong, !tooLong && decode(line) == nil)
	})
}

// UnknownType counts a record of a type the reader does not know, by
// name (cleaned and bounded).
func (st *Stats) UnknownType(name string) { st.unknownType(name) }

// WithDefaults is l with the default for every zero field.
func (l Limits) WithDefaults() Limits { return l.withDefaults() }

// ParseTime reads an RFC 3339 time, as agents write them; false when s is
// none or out of range.
func ParseTime(s string) (time.Time, bool) { return parseTime(s) }

// Clean makes s valid UTF-8 without NUL characters.
func Clean(s string) string { return clean(s) }

// ShortenHead keeps the start of s, at most n bytes with an ellipsis.
func ShortenHead(s string, n int) string { return shortenHead(s, n) }

// ShortenMiddle keeps the start and the end of s, at most n bytes.
func ShortenMiddle(s string, n int) string { return shortenMiddle(s, n) }

// TitleFrom makes a title from text, as a digest's title is made: its
// first paragraph on one line, cut at a word.
func TitleFrom(text string) string { return titleFrom(text) }

// Probed is what a Prober saw of one session.
type Probed struct {
	ID, CWD, Version string
	// Titles are the session's possible titles, best first: the first
	// that is not empty is taken.
	Titles        []string
	Started, Last time.Time
}

// Fill puts p into s, cleaned and bounded as discovery shows it.
func (p Probed) Fill(s *SessionInfo) {
	s.ID = shortenHead(firstNonEmpty(p.ID, s.ID), maxID)
	if p.CWD != "" && len(p.CWD) <= maxPath {
		s.CWD = clean(p.CWD)
	}
	s.AgentVersion = untrusted.OneLine(p.Version, maxVersion)
	s.Title = titleFrom(firstNonEmpty(p.Titles...))
	if !p.Started.IsZero() {
		s.Started = p.Started
	}
	if !p.Last.IsZero() {
		s.LastActivity = p.Last
	}
}

// MergeSubagent adds a subagent's commands, file edits and failed edits to d, each
// marked by ("subagent ID"), and counts the subagent: for a reader that
// folds in the transcripts of a session's subagents. A file d touched as
// well stays d's, with the subagent's edits counted in.
func MergeSubagent(d, sub *Digest, by string) {
	mergeSubagent(d, sub, by)
	d.Stats.Subagents++
}

// mergeSubagent adds a subagent's commands and file edits to d, marked
// by. A file d touched as well stays d's, with the subagent's edits
// counted in.
func mergeSubagent(d, sub *Digest, by string) {
	index := make(map[string]int, len(d.Files))
	for i, f := range d.Files {
		index[f.Path] = i
	}
	for _, c := range sub.Session.Commands {
		if len(d.Session.Commands) >= maxCommands {
			break
		}
		c.By = by
		d.Session.Commands = append(d.Session.Commands, c)
	}
	for _, f := range sub.Files {
		path := f.Path
		if sub.CWD != d.CWD {
			path = normPath(d.CWD, joinPath(sub.CWD, path))
		}
		if i, ok := index[path]; ok {
			d.Files[i].Edits = min(d.Files[i].Edits+f.Edits, 1<<31-1)
			continue
		}
		if len(d.Files) >= maxFiles {
			continue
		}
		f.Path, f.By = path, by
		index[path] = len(d.Files)
		d.Files = append(d.Files, f)
	}
	for _, fe := range sub.Session.FailedEdits {
		if len(d.Session.FailedEdits) >= maxFiles {
			break
		}
		if sub.CWD != d.CWD {
			fe.Path = normPath(d.CWD, joinPath(sub.CWD, fe.Path))
		}
		fe.By = by
		d.Session.FailedEdits = append(d.Session.FailedEdits, fe)
	}
}

// CommandOn adds a shell command the agent ran by the tool call id that
// also does op to each of paths (a plain "rm a b" deletes a and b): its
// outcome decides both, as for one call.
func (b *Builder) CommandOn(id, cmd string, op FileOp, paths ...string) {
	e := evCmd(id, cmd)
	for _, p := range paths {
		e.ops = append(e.ops, fileOp{path: p, op: opKind(op)})
	}
	foldEvent(b.f, b.d.CWD, e)
}

// TaskList sets the todo list as it now stands from a task list the
// agent keeps by id: ids[i] is the id of items[i], for later Task calls.
// Items without text are left out, and the ids with them unless none is.
func (b *Builder) TaskList(ids []string, items []handoff.Todo) {
	e := evTodoList(items)
	if len(e.todos) == len(ids) {
		e.ids = ids
	}
	b.f.add(e)
}

// PlanCall adds the plan the agent put to the user by the tool call id:
// pending until that call's outcome approves it (success) or rejects it
// (refused, failed).
func (b *Builder) PlanCall(id, text string) {
	b.f.add(event{kind: evPlan, id: id, text: shortenMiddle(strings.TrimSpace(text), MaxCompaction)})
}

// Decision adds a question the agent put to the user and the answer the
// user gave, as "question → answer" on one line.
func (b *Builder) Decision(question, answer string) {
	b.f.add(event{kind: evDecision, text: untrusted.OneLine(question+" → "+answer, handoff.MaxItem)})
}

// Fold folds what b was given into its digest and returns it, without
// the finishing Finish does: for a builder of work done on the session's
// behalf whose lines are in the session's own file, which MergeSide then
// adds to the session's digest.
func (b *Builder) Fold() *Digest {
	b.f.finish(b.d)
	b.d.Said = b.said.list
	return b.d
}

// MergeSide adds the commands and file edits of sub, work done on the
// session's behalf, to d, each marked by, as MergeSubagent does, but
// without counting a subagent transcript: for work whose lines are in the
// session's own file, and for an agent whose digests never counted them.
func MergeSide(d, sub *Digest, by string) { mergeSubagent(d, sub, by) }

// PathOp is one file operation of a tool call.
type PathOp struct {
	Path string
	Op   FileOp
}

// Files adds the tool call id with the file operations it made, in order,
// one edit each: one call, whose outcome settles them all. With none, it
// is a call that touched no file (a patch whose files are not known).
func (b *Builder) Files(id string, ops ...PathOp) {
	e := evOps(id)
	for _, op := range ops {
		e.ops = append(e.ops, fileOp{path: op.Path, op: opKind(op.Op), n: 1})
	}
	foldEvent(b.f, b.d.CWD, e)
}

// OutcomeKnown adds how the tool call id ended when known says the
// transcript tells (Outcome), else that it ended (Done).
func (b *Builder) OutcomeKnown(id string, exit *int, failed, known bool, output string) {
	b.f.add(b.withOutput(evOut(id, exit, failed, known, output), output))
}

// TotalTokens sets the session's token use so far, as a transcript that
// keeps running totals states it: a later total replaces it.
func (b *Builder) TotalTokens(t handoff.Tokens) {
	b.f.add(event{kind: evTokens, set: true, tokens: t})
}

// Touched adds paths the agent itself reports touching, without saying
// how: each is an edited file unless known already. A relative path is
// taken relative to the session's directory (SetCWD).
func (b *Builder) Touched(paths []string) {
	if len(paths) == 0 {
		return
	}
	e := event{kind: evTouch}
	for _, p := range paths {
		e.ops = append(e.ops, fileOp{path: joinPath(b.d.CWD, p)})
	}
	foldEvent(b.f, b.d.CWD, e)
}

// Bounds on Digest.Said.
const (
	maxSaid      = 4096    // messages
	maxSaidBytes = 4 << 20 // bytes in all
)

// said gathers every message the agent said, for Digest.Said: parts with
// one id are one message, as the last message's are.
type said struct {
	list   []string
	lastID string
	bytes  int
}

func (s *said) add(id, text string) {
	if text == "" || s.bytes >= maxSaidBytes {
		return
	}
	if n := len(s.list); n > 0 && id != "" && id == s.lastID {
		s.bytes -= len(s.list[n-1])
		s.list[n-1] = shortenMiddle(s.list[n-1]+"\n\n"+text, MaxAgentMessage)
		s.bytes += len(s.list[n-1])
		return
	}
	s.lastID = id
	if len(s.list) == maxSaid {
		return
	}
	s.list = append(s.list, text)
	s.bytes += len(text)
}

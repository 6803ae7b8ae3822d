package claude

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// known says whether typ is a line type read or knowingly ignored: the
// types of Claude Code 2.1.88's src/types/logs.ts Entry, and those 2.1.x
// wrote since (docs/TRANSCRIPTS.md says which are read and why the rest
// are not).
func known(typ string) bool {
	switch typ {
	case "user", "assistant", "system", "summary",
		"custom-title", "ai-title", "file-history-snapshot",
		"queue-operation", "progress", "attachment",
		"last-prompt", "agent-name", "mode",
		"permission-mode", "tag", "worktree-state",
		"pr-link", "agent-setting", "content-replacement",
		"agent-color", "task-summary", "attribution-snapshot", "speculation-accept",
		"relocated",
		// 2.1.328 (checked in its transcripts from the real-agent suite):
		// copies of the API request, the cost meter, the tool names used
		// before a compaction, a latch of its own; none holds work.
		"api-request", "api-request-blob", "api-request-shape",
		"atis-latch", "tools-used", "cost-state":
		return true
	}
	return false
}

// Bounds of the schema (handoff's JSON schema) the digest keeps to.
const (
	maxPath    = 4096 // path maxLength
	maxVersion = 128  // session.agent_version maxLength
	maxTodos   = 500  // session.todos maxItems
	// maxPRs bounds the pull requests kept (the schema's pull_requests
	// maxItems).
	maxPRs = 100
)

// record is what the first pass keeps of a line of the conversation.
type record struct {
	uuid          string
	parent        string
	logicalParent string
	*context
	idx         int32
	line        int32 // the line's ordinal in the file
	typ         recType
	onlyResults bool // the line only answers tool calls
}

// context is what a line says of where it ran; most lines say what the
// line before said, and share it.
type context struct {
	cwd, branch, version, session string
}

type recType uint8

const (
	recOther recType = iota
	recUser
	recAssistant
)

type summary struct{ text, leaf string }

// reader gathers the records of a transcript's lines.
type reader struct {
	b           *transcript.Builder
	records     []*record
	summaries   []summary
	customTitle string
	aiTitle     string
	last        *record // the previous record, whose strings the next may share

	// queued are prompts typed while the agent worked, not yet delivered;
	// delivered maps the line that delivered one to its text. attached
	// counts the prompts that queued_command attachments deliver, so that
	// a prompt both removed from the queue and attached counts once.
	queued    []queuedPrompt
	delivered map[int]string
	attached  map[string]int

	// A subagent's file holds only sidechain lines: side counts them, and
	// sideSession and sideAgent are the parent's session and the agent.
	side                   int
	sideSession, sideAgent string
	// sideLines are the ordinals of the sidechain lines of a file that
	// also holds a main thread (Claude Code 1.x wrote its subagents'
	// lines into the session's file).
	sideLines []int32

	// subagent reads a subagent's own file: its sidechain lines are its
	// main thread.
	subagent bool

	// relink maps the first message a partial compaction preserved to
	// the message it now follows.
	relink map[string]string

	prs       []handoff.PullRequest
	worktree  string // where worktree-state last left the session ("" when it exited one)
	relocated string // the directory a relocated record moved it to
}

// read reads a Claude Code session transcript in two passes: the first
// picks the main thread, the second folds the thread's lines into the
// digest as they come. What is held in memory grows with the number of
// lines (a hundred bytes or so each), not with what they hold.
func read(r *io.SectionReader, lim transcript.Limits, subagent bool) (*transcript.Digest, error) {
	rd := &reader{b: transcript.NewBuilder(), subagent: subagent}
	if !subagent {
		rd.b.Observe(lim.Observe)
	}
	n := 0
	e := new(entry) // reused: a line's fields are copied out
	err := transcript.EachLine(io.NewSectionReader(r, 0, r.Size()), lim, &rd.b.Digest().Stats, func(raw []byte) error {
		n++
		*e = entry{}
		if err := transcript.Decode(raw, e); err != nil {
			return err
		}
		rd.record(n, e, raw)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rd.side > 0 && !rd.hasMain() {
		return nil, fmt.Errorf("%w: every line is a subagent's (agent %s) of session %s: capture that session, whose capture includes this subagent's work",
			transcript.ErrSubagent, firstNonEmpty(untrusted.OneLine(rd.sideAgent, 64), "?"), firstNonEmpty(untrusted.OneLine(rd.sideSession, transcript.MaxID), "?"))
	}
	return rd.fold(r, lim)
}

// fold reads the main thread's lines (and a 1.x file's subagent lines)
// again, folding them into the digest.
func (rd *reader) fold(r *io.SectionReader, lim transcript.Limits) (*transcript.Digest, error) {
	thread := mainThread(rd.records, rd.relink)
	// A summary line belongs to this session only when its leaf is a line
	// of this file: a resumed session's file may open with the summaries
	// of the one it came from.
	inFile := make(map[string]bool, len(rd.records))
	for _, rec := range rd.records {
		if rec.uuid != "" {
			inFile[rec.uuid] = true
		}
	}
	var cwd, branch, version, session string
	onThread := map[string]bool{}
	for _, rec := range thread {
		if rec.uuid != "" {
			onThread[rec.uuid] = true
		}
		if cwd == "" {
			cwd = rec.cwd
		}
		if rec.branch != "" {
			branch = rec.branch
		}
		if rec.version != "" {
			version = rec.version
		}
		if rec.session != "" {
			session = rec.session
		}
	}
	b := rd.b
	d := b.Digest()
	b.SetCWD(cwd)
	d.GitBranch = branch
	d.Session.ID = session
	d.Session.AgentVersion = version

	queued := rd.deliveredLines()
	// deliver folds the queued prompts delivered before line n.
	deliver := func(n int) {
		for len(queued) > 0 && queued[0] < n {
			text := rd.delivered[queued[0]]
			queued = queued[1:]
			if rd.attached[text] > 0 {
				rd.attached[text]-- // its attachment delivers it
				continue
			}
			b.Request(text)
		}
	}
	// The subagents' lines in the session's own file (1.x) fold apart,
	// into side, in line order: several may run at once.
	side := transcript.NewBuilder()
	side.SetCWD(cwd)
	// The thread is in line order.
	lines := make([]int, len(thread), len(thread)+len(rd.sideLines))
	for i, rec := range thread {
		lines[i] = int(rec.line)
	}
	for _, n := range rd.sideLines {
		lines = append(lines, int(n))
	}
	slices.Sort(lines)
	rd.records, thread, rd.sideLines = nil, nil, nil
	var st transcript.Stats
	n := 0
	l := new(line) // reused: a line's events are folded before the next
	err := transcript.EachLine(io.NewSectionReader(r, 0, r.Size()), lim, &st, func(raw []byte) error {
		n++
		if len(lines) == 0 || n < lines[0] {
			return nil
		}
		for len(lines) > 0 && lines[0] <= n {
			lines = lines[1:]
		}
		*l = line{}
		if err := transcript.Decode(raw, l); err != nil {
			return err
		}
		if l.IsSidechain && !rd.subagent {
			events(side, l, raw)
			return nil
		}
		deliver(n)
		events(b, l, raw)
		return nil
	})
	if err != nil {
		return nil, err
	}
	deliver(math.MaxInt)

	switch {
	case rd.customTitle != "":
		d.Title = rd.customTitle
	case rd.aiTitle != "":
		d.Title = rd.aiTitle
	case len(rd.summaries) > 0:
		for _, s := range rd.summaries {
			if inFile[s.leaf] && (d.Title == "" || onThread[s.leaf]) {
				d.Title = s.text
			}
		}
	}
	d.Session.PullRequests = rd.prs
	switch {
	case rd.worktree != "" && len(rd.worktree) <= maxPath:
		d.Worktree = transcript.Clean(rd.worktree)
	case rd.relocated != "" && len(rd.relocated) <= maxPath:
		d.Worktree = transcript.Clean(rd.relocated)
	}
	d, err = b.Finish(agentName)
	if err != nil {
		return nil, err
	}
	if rd.side > 0 && !rd.subagent {
		transcript.MergeSide(d, side.Fold(), "subagent")
	}
	return d, nil
}

// hasMain reports whether any record read is the main thread's own
// conversation.
func (rd *reader) hasMain() bool {
	for _, r := range rd.records {
		if r.typ == recUser || r.typ == recAssistant {
			return true
		}
	}
	return false
}

// prLink reads a pr-link record: {prNumber, prUrl, prRepository,
// timestamp}, written when the session creates or is linked to a pull
// request (Claude Code 2.1.88 src/types/logs.ts PRLinkMessage). The same
// link is written again whenever the session's metadata is re-appended:
// each URL is kept once.
func (rd *reader) prLink(l *entry) {
	url := strings.TrimSpace(l.PRURL)
	if url == "" || len(url) > 2048 || len(rd.prs) >= maxPRs {
		return
	}
	if url = transcript.Clean(url); len(url) > 2048 {
		return
	}
	for _, p := range rd.prs {
		if p.URL == url {
			return
		}
	}
	pr := handoff.PullRequest{URL: url, Repository: untrusted.OneLine(l.PRRepository, 256)}
	if n := transcript.ExitCode(l.PRNumber); n != nil && *n > 0 {
		pr.Number = *n
	}
	rd.prs = append(rd.prs, pr)
}

// record reads the line raw, with ordinal n.
func (rd *reader) record(n int, l *entry, raw []byte) {
	typ := l.Type
	switch typ {
	case "queue-operation":
		if !l.IsSidechain {
			rd.queueOperation(n, l)
		}
		return
	case "pr-link":
		rd.prLink(l)
		return
	case "worktree-state":
		// {worktreeSession: {originalCwd, worktreePath, worktreeName,
		// worktreeBranch, …} or null when the session left the worktree};
		// last wins (Claude Code 2.1.88 src/types/logs.ts
		// WorktreeStateEntry).
		rd.worktree = ""
		if l.WorktreeSession != nil {
			rd.worktree = l.WorktreeSession.WorktreePath
		}
		return
	case "relocated":
		// {relocatedCwd}: the session was moved to another directory.
		rd.relocated = l.RelocatedCWD
		return
	case "summary":
		if s := strings.TrimSpace(l.Summary); s != "" {
			rd.summaries = append(rd.summaries, summary{text: transcript.TitleFrom(s), leaf: l.LeafUUID})
		}
		return
	case "custom-title":
		if s := firstNonEmpty(l.CustomTitle, l.Title); strings.TrimSpace(s) != "" {
			rd.customTitle = transcript.TitleFrom(s)
		}
		return
	case "ai-title":
		if s := firstNonEmpty(l.AITitle, l.Title); strings.TrimSpace(s) != "" {
			rd.aiTitle = transcript.TitleFrom(s)
		}
		return
	}
	if !known(typ) {
		rd.b.Digest().Stats.UnknownType(typ)
		return
	}
	if l.IsSidechain && !rd.subagent {
		if typ == "user" || typ == "assistant" {
			rd.side++
			if rd.sideSession == "" {
				rd.sideSession, rd.sideAgent = l.SessionID, l.AgentID
			}
			rd.sideLines = append(rd.sideLines, int32(n))
		}
		return
	}
	if cm := l.CompactMetadata; cm != nil && cm.PreservedSegment != nil && typ == "system" {
		// A partial compaction keeps the messages from headUuid to
		// tailUuid as they are and summarises those before them; on
		// resume Claude Code links the head to anchorUuid (the summary or
		// the boundary itself), so the summary joins the thread (Claude
		// Code 2.1.88 src/services/compact/compact.ts
		// annotateBoundaryWithPreservedSegment, src/utils/sessionStorage.ts
		// applyPreservedSegmentRelinks).
		if head, anchor := cm.PreservedSegment.HeadUUID, cm.PreservedSegment.AnchorUUID; head != "" && anchor != "" && len(rd.relink) < maxQueued {
			if rd.relink == nil {
				rd.relink = map[string]string{}
			}
			rd.relink[head] = anchor
		}
	}
	if typ == "attachment" {
		if text, ok := queuedCommand(l.Attachment); ok {
			if rd.attached == nil {
				rd.attached = map[string]int{}
			}
			rd.attached[strings.TrimSpace(text)]++
		}
	}
	if t, ok := transcript.ParseTime(l.Timestamp); ok {
		rd.b.Time(t)
	}
	rec := &record{
		idx:           int32(len(rd.records)),
		line:          int32(n),
		uuid:          l.UUID,
		parent:        l.ParentUUID,
		logicalParent: l.LogicalParentUUID,
		context: &context{
			cwd:     l.CWD,
			branch:  l.GitBranch,
			version: l.Version,
			session: l.SessionID,
		},
	}
	switch typ {
	case "user":
		rec.typ = recUser
	case "assistant":
		rec.typ = recAssistant
	}
	has, onlyResults := tells(l, raw)
	if rec.uuid == "" && !has && rec.cwd == "" && rec.session == "" {
		return // bookkeeping without anything to tell
	}
	rec.onlyResults = rec.typ == recUser && onlyResults
	// Most lines repeat the previous line's context and name it as
	// their parent: share those.
	if last := rd.last; last != nil {
		if *rec.context == *last.context {
			rec.context = last.context
		}
		if rec.parent == last.uuid {
			rec.parent = last.uuid
		}
	}
	rd.last = rec
	rd.records = append(rd.records, rec)
}

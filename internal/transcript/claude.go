package transcript

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// ClaudeCode is Claude Code, as the agents table names it.
const ClaudeCode Agent = "claude-code"

// A Claude Code transcript is one JSON object per line. Conversation lines
// (user, assistant, system…) carry uuid and parentUuid; a rewind starts a
// new branch from an earlier message, so the main thread is the chain of
// parents from the newest leaf. Lines with isSidechain belong to
// subagents and isMeta lines are injected context; neither is the user's.

// claudeKnown() are the line types read or knowingly ignored: the types
// of Claude Code 2.1.88's src/types/logs.ts Entry, and those 2.1.x wrote
// since (docs/TRANSCRIPTS.md says which are read and why the rest are
// not).
var claudeKnown = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"user": true, "assistant": true, "system": true, "summary": true,
		"custom-title": true, "ai-title": true, "file-history-snapshot": true,
		"queue-operation": true, "progress": true, "attachment": true,
		"last-prompt": true, "agent-name": true, "mode": true,
		"permission-mode": true, "tag": true, "worktree-state": true,
		"pr-link": true, "agent-setting": true, "content-replacement": true,
		"agent-color": true, "task-summary": true, "attribution-snapshot": true, "speculation-accept": true,
		"relocated": true,
		// 2.1.328 (checked in its transcripts from the real-agent suite):
		// copies of the API request, the cost meter, the tool names used
		// before a compaction, a latch of its own; none holds work.
		"api-request": true, "api-request-blob": true, "api-request-shape": true,
		"atis-latch": true, "tools-used": true, "cost-state": true,
	}
})

type ccRecord struct {
	uuid          string
	parent        string
	logicalParent string
	*ccContext
	events      []event // read in one pass only
	idx         int32
	line        int32 // the line number in the file
	typ         ccType
	onlyResults bool // the line only answers tool calls
}

// ccContext is what a line says of where it ran; most lines say what the
// line before said, and share it.
type ccContext struct {
	cwd, branch, version, session string
}

type ccType uint8

const (
	ccOther ccType = iota
	ccUser
	ccAssistant
)

type ccSummary struct{ text, leaf string }

// ReadClaudeCode reads a Claude Code session transcript.
//
// When r can be read twice (it has ReadAt, Seek and Size, as the
// *io.SectionReader ReadTranscript passes does), it is read twice from
// its current position: once for what picks the main thread, once to fold
// the thread's lines into the digest as they come. What is held in memory
// then grows with the number of lines (a hundred bytes or so each), not
// with what they hold. Otherwise every line's events are kept until the
// end, when the thread is known.
func ReadClaudeCode(r io.Reader, limits Limits) (*Digest, error) {
	return readClaudeCode(r, limits, lineShapes().claude, false)
}

// claudeReader gathers the records of a transcript's lines.
type claudeReader struct {
	d           *Digest
	twice       bool // the events are read in a second pass
	records     []*ccRecord
	summaries   []ccSummary
	customTitle string
	aiTitle     string
	span        timeSpan
	last        *ccRecord // the previous record, whose strings the next may share

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
	// sideLines are the numbers of the sidechain lines of a file that
	// also holds a main thread (Claude Code 1.x wrote its subagents'
	// lines into the session's file); sideEvents their events, when the
	// file is read once.
	sideLines  []int32
	sideEvents []event

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

// queuedPrompt is one entry of Claude Code's input queue: text the user
// typed (prompt) or a task notification the agent itself queued.
type queuedPrompt struct {
	text   string
	prompt bool
}

// maxQueued bounds the prompts waiting in a transcript's queue.
const maxQueued = 64

// queueOperation reads a queue-operation line of Claude Code 2.x. What the
// user types while the agent works is enqueued (operation "enqueue",
// content the prompt). Task notifications are enqueued the same way; they
// are not the user's. An entry leaves the queue in one of three ways
// (Claude Code 2.1.88, src/utils/messageQueueManager.ts and query.ts;
// CHANGELOG 2.1.19 for queued_command):
//
//   - "dequeue": taken between turns; it becomes the next turn's user
//     line, which is the request (seen in the real 2.0.76 transcript
//     session-196820da: each dequeue is followed by the user line).
//   - "remove": absorbed by the running turn. Until 2.1.x nothing else
//     records it, so the remove line delivers it; later versions also
//     write a queued_command attachment, which then delivers it instead.
//     From 2.1.246 the remove carries content and reason
//     "absorbed_mid_turn"; a remove with any other reason did not deliver.
//   - "popAll": taken back into the input box to be edited; nothing is
//     delivered (it comes back as new enqueues when sent). One line per
//     entry, each with its content; a popAll without content empties the
//     queue.
//
// "clear" empties the queue; other operations change nothing.
func (c *claudeReader) queueOperation(n int, m map[string]any) {
	content := strings.TrimSpace(getStr(m, "content"))
	switch getStr(m, "operation") {
	case "enqueue":
		if len(c.queued) < maxQueued {
			_, prompt := claudeRequestText(content)
			c.queued = append(c.queued, queuedPrompt{text: content, prompt: prompt})
		}
	case "dequeue":
		c.takeQueued(content)
	case "remove":
		q, ok := c.takeQueued(content)
		reason := getStr(m, "reason")
		if !ok || !q.prompt || (reason != "" && reason != "absorbed_mid_turn") {
			return
		}
		if c.delivered == nil {
			c.delivered = map[int]string{}
		}
		c.delivered[n] = q.text
	case "popAll":
		if content == "" {
			c.queued = nil
			return
		}
		c.takeQueued(content)
	case "clear":
		c.queued = nil
	}
}

// takeQueued takes the entry with the given content off the queue, or,
// without content, the entry Claude Code takes next: the oldest prompt
// (prompts go before notifications), else the oldest entry.
func (c *claudeReader) takeQueued(content string) (queuedPrompt, bool) {
	i := -1
	for j, q := range c.queued {
		if content != "" && q.text == content || content == "" && q.prompt {
			i = j
			break
		}
	}
	if i < 0 && content == "" && len(c.queued) > 0 {
		i = 0
	}
	if i < 0 {
		return queuedPrompt{}, false
	}
	q := c.queued[i]
	c.queued = slices.Delete(c.queued, i, i+1)
	return q, true
}

// deliveredLines are the lines that delivered a queued prompt, ascending.
func (c *claudeReader) deliveredLines() []int {
	lines := make([]int, 0, len(c.delivered))
	for n := range c.delivered {
		lines = append(lines, n)
	}
	slices.Sort(lines)
	return lines
}

func readClaudeCode(r io.Reader, limits Limits, sh *shape, subagent bool) (*Digest, error) {
	lim := limits.withDefaults()
	sec, twice := rereadable(r, lim.MaxFile)
	c := &claudeReader{d: &Digest{}, twice: twice, subagent: subagent}
	var src io.Reader = io.LimitReader(r, lim.MaxFile)
	firstShape := sh
	if twice {
		src = sec
		if sh != nil {
			firstShape = lineShapes().claudeThread
		}
	}
	if err := eachRecordAt(src, lim, &c.d.Stats, firstShape, c.record); err != nil {
		return nil, err
	}
	d := c.d
	if c.side > 0 && !c.hasMain() {
		return nil, fmt.Errorf("%w: every line is a subagent's (agent %s) of session %s: capture that session, whose capture includes this subagent's work",
			ErrSubagent, firstNonEmpty(untrusted.OneLine(c.sideAgent, 64), "?"), firstNonEmpty(untrusted.OneLine(c.sideSession, maxID), "?"))
	}

	thread := claudeMainThread(c.records, c.relink)
	// A summary line belongs to this session only when its leaf is a line
	// of this file: a resumed session's file may open with the summaries
	// of the one it came from.
	inFile := make(map[string]bool, len(c.records))
	for _, rec := range c.records {
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
	d.CWD = cwd
	d.GitBranch = branch
	d.Session.ID = session
	d.Session.AgentVersion = version
	d.Session.StartedAt = timePtr(c.span.first)
	d.Session.LastActivity = timePtr(c.span.last)

	f := newFolder()
	queued := c.deliveredLines()
	// deliver folds the queued prompts delivered before line n.
	deliver := func(n int) {
		for len(queued) > 0 && queued[0] < n {
			text := c.delivered[queued[0]]
			queued = queued[1:]
			if c.attached[text] > 0 {
				c.attached[text]-- // its attachment delivers it
				continue
			}
			f.add(evReq(text))
		}
	}
	// The subagents' lines in the session's own file (1.x) fold apart,
	// into side, in line order: several may run at once.
	side := newFolder()
	if twice {
		// The thread is in line order.
		lines := make([]int, len(thread), len(thread)+len(c.sideLines))
		for i, rec := range thread {
			lines[i] = int(rec.line)
		}
		for _, n := range c.sideLines {
			lines = append(lines, int(n))
		}
		slices.Sort(lines)
		c.records, thread, c.sideLines = nil, nil, nil
		err := eachLineOf(io.NewSectionReader(sec, 0, sec.Size()), lim, lines, sh, func(n int, m map[string]any) {
			if getBool(m, "isSidechain") && !c.subagent {
				for _, e := range claudeEvents(m) {
					foldEvent(side, cwd, e)
				}
				return
			}
			deliver(n)
			for _, e := range claudeEvents(m) {
				foldEvent(f, cwd, e)
			}
		})
		if err != nil {
			return nil, err
		}
	} else {
		for _, rec := range thread {
			deliver(int(rec.line))
			for _, e := range rec.events {
				foldEvent(f, cwd, e)
			}
		}
		for _, e := range c.sideEvents {
			foldEvent(side, cwd, e)
		}
	}
	deliver(math.MaxInt)

	switch {
	case c.customTitle != "":
		d.Title = c.customTitle
	case c.aiTitle != "":
		d.Title = c.aiTitle
	case len(c.summaries) > 0:
		for _, s := range c.summaries {
			if inFile[s.leaf] && (d.Title == "" || onThread[s.leaf]) {
				d.Title = s.text
			}
		}
	}
	f.finish(d)
	if c.side > 0 && !c.subagent {
		sd := &Digest{}
		side.finish(sd)
		mergeSubagent(d, sd, "subagent")
	}
	d.Session.PullRequests = c.prs
	switch {
	case c.worktree != "" && len(c.worktree) <= maxPath:
		d.Worktree = clean(c.worktree)
	case c.relocated != "" && len(c.relocated) <= maxPath:
		d.Worktree = clean(c.relocated)
	}
	if err := finishCommon(d, ClaudeCode); err != nil {
		return nil, err
	}
	return d, nil
}

// ErrSubagent is wrapped when a Claude Code transcript is a subagent's:
// its work belongs to its parent session's handoff.
var ErrSubagent = errors.New("a subagent transcript, not a session")

// hasMain reports whether any record read is the main thread's own
// conversation.
func (c *claudeReader) hasMain() bool {
	for _, r := range c.records {
		if r.typ == ccUser || r.typ == ccAssistant {
			return true
		}
	}
	return false
}

// maxPRs bounds the pull requests kept (the schema's pull_requests
// maxItems).
const maxPRs = 100

// prLink reads a pr-link record: {prNumber, prUrl, prRepository,
// timestamp}, written when the session creates or is linked to a pull
// request (Claude Code 2.1.88 src/types/logs.ts PRLinkMessage). The same
// link is written again whenever the session's metadata is re-appended:
// each URL is kept once.
func (c *claudeReader) prLink(m map[string]any) {
	url := strings.TrimSpace(getStr(m, "prUrl"))
	if url == "" || len(url) > 2048 || len(c.prs) >= maxPRs {
		return
	}
	if url = clean(url); len(url) > 2048 {
		return
	}
	for _, p := range c.prs {
		if p.URL == url {
			return
		}
	}
	pr := handoff.PullRequest{URL: url, Repository: untrusted.OneLine(getStr(m, "prRepository"), 256)}
	if n, ok := getInt(m, "prNumber"); ok && n > 0 && n <= math.MaxInt32 {
		pr.Number = int(n)
	}
	c.prs = append(c.prs, pr)
}

// record reads line number n, a JSON object.
func (c *claudeReader) record(n int, m map[string]any) {
	typ := getStr(m, "type")
	switch typ {
	case "queue-operation":
		if !getBool(m, "isSidechain") {
			c.queueOperation(n, m)
		}
		return
	case "pr-link":
		c.prLink(m)
		return
	case "worktree-state":
		// {worktreeSession: {originalCwd, worktreePath, worktreeName,
		// worktreeBranch, …} or null when the session left the worktree};
		// last wins (Claude Code 2.1.88 src/types/logs.ts
		// WorktreeStateEntry).
		c.worktree = getStr(getMap(m, "worktreeSession"), "worktreePath")
		return
	case "relocated":
		// {relocatedCwd}: the session was moved to another directory.
		c.relocated = getStr(m, "relocatedCwd")
		return
	case "summary":
		if s := strings.TrimSpace(getStr(m, "summary")); s != "" {
			c.summaries = append(c.summaries, ccSummary{text: titleFrom(s), leaf: getStr(m, "leafUuid")})
		}
		return
	case "custom-title":
		if s := firstNonEmpty(getStr(m, "customTitle"), getStr(m, "title")); strings.TrimSpace(s) != "" {
			c.customTitle = titleFrom(s)
		}
		return
	case "ai-title":
		if s := firstNonEmpty(getStr(m, "aiTitle"), getStr(m, "title")); strings.TrimSpace(s) != "" {
			c.aiTitle = titleFrom(s)
		}
		return
	}
	if !claudeKnown()[typ] {
		c.d.Stats.unknownType(typ)
		return
	}
	if getBool(m, "isSidechain") && !c.subagent {
		if typ == "user" || typ == "assistant" {
			c.side++
			if c.sideSession == "" {
				c.sideSession, c.sideAgent = getStr(m, "sessionId"), getStr(m, "agentId")
			}
			c.sideLines = append(c.sideLines, int32(n))
			if !c.twice {
				c.sideEvents = append(c.sideEvents, claudeEvents(m)...)
			}
		}
		return
	}
	if ps := getMap(getMap(m, "compactMetadata"), "preservedSegment"); ps != nil && typ == "system" {
		// A partial compaction keeps the messages from headUuid to
		// tailUuid as they are and summarises those before them; on
		// resume Claude Code links the head to anchorUuid (the summary or
		// the boundary itself), so the summary joins the thread (Claude
		// Code 2.1.88 src/services/compact/compact.ts
		// annotateBoundaryWithPreservedSegment, src/utils/sessionStorage.ts
		// applyPreservedSegmentRelinks).
		if head, anchor := getStr(ps, "headUuid"), getStr(ps, "anchorUuid"); head != "" && anchor != "" && len(c.relink) < maxQueued {
			if c.relink == nil {
				c.relink = map[string]string{}
			}
			c.relink[head] = anchor
		}
	}
	if typ == "attachment" {
		if text, ok := queuedCommand(m); ok {
			if c.attached == nil {
				c.attached = map[string]int{}
			}
			c.attached[strings.TrimSpace(text)]++
		}
	}
	t, ok := getTime(m, "timestamp")
	c.span.add(t, ok)
	rec := &ccRecord{
		idx:           int32(len(c.records)),
		line:          int32(n),
		uuid:          getStr(m, "uuid"),
		parent:        getStr(m, "parentUuid"),
		logicalParent: getStr(m, "logicalParentUuid"),
		ccContext: &ccContext{
			cwd:     getStr(m, "cwd"),
			branch:  getStr(m, "gitBranch"),
			version: getStr(m, "version"),
			session: getStr(m, "sessionId"),
		},
	}
	switch typ {
	case "user":
		rec.typ = ccUser
	case "assistant":
		rec.typ = ccAssistant
	}
	events := claudeEvents(m)
	if rec.uuid == "" && events == nil && rec.cwd == "" && rec.session == "" {
		return // bookkeeping without anything to tell
	}
	rec.onlyResults = rec.typ == ccUser && onlyResults(events)
	if !c.twice {
		rec.events = events
	}
	// Most lines repeat the previous line's context and name it as
	// their parent: share those.
	if last := c.last; last != nil {
		if *rec.ccContext == *last.ccContext {
			rec.ccContext = last.ccContext
		}
		if rec.parent == last.uuid {
			rec.parent = last.uuid
		}
	}
	c.last = rec
	c.records = append(c.records, rec)
}

// claudeEvents returns the events of a user, assistant or attachment line.
func claudeEvents(m map[string]any) []event {
	switch getStr(m, "type") {
	case "user":
		return claudeUser(m)
	case "assistant":
		return claudeAssistant(m)
	case "attachment":
		return claudeAttachment(m)
	}
	return nil
}

// claudeAttachment reads an attachment line: context Claude Code adds to
// a turn (Claude Code 2.1.88 src/utils/attachments.ts). Two kinds are
// the session's: queued_command, a prompt the user typed while the agent
// worked that the running turn absorbed ({prompt, commandMode, origin,
// isMeta}), and the task list reminders, task_reminder ({content: the
// tasks, {id, subject, status}}) and todo_reminder ({content: the todo
// list}). The others (files, hooks, skills, memory…) are not.
func claudeAttachment(m map[string]any) []event {
	a := getMap(m, "attachment")
	switch getStr(a, "type") {
	case "queued_command":
		if text, ok := queuedCommand(m); ok {
			return []event{evReq(text)}
		}
	case "task_reminder":
		if tasks, ok := a["content"].([]any); ok {
			return []event{taskList(tasks)}
		}
	case "todo_reminder":
		if todos, ok := a["content"].([]any); ok {
			return []event{evTodoList(parseTodos(todos, "content"))}
		}
	}
	return nil
}

// queuedCommand returns the prompt of a queued_command attachment when
// the user typed it: its mode is "prompt" (not a task notification or a
// bash command), it is not meta, and its origin, when given, is human.
func queuedCommand(m map[string]any) (string, bool) {
	a := getMap(m, "attachment")
	if getStr(a, "type") != "queued_command" || getBool(a, "isMeta") {
		return "", false
	}
	if mode := getStr(a, "commandMode"); mode != "" && mode != "prompt" {
		return "", false
	}
	if kind := getStr(getMap(a, "origin"), "kind"); kind != "" && kind != "human" {
		return "", false
	}
	text, ok := claudeRequestText(contentText(a["prompt"]))
	return text, ok
}

// taskList reads a list of Claude Code tasks ({id, subject, status}) as
// the todo list, keeping their ids for later TaskUpdate calls.
func taskList(items []any) event {
	var todos []handoff.Todo
	var ids []string
	for _, it := range items {
		t, ok := it.(map[string]any)
		if !ok || strings.TrimSpace(getStr(t, "subject")) == "" {
			continue
		}
		todos = append(todos, handoff.Todo{Content: getStr(t, "subject"), Status: getStr(t, "status")})
		ids = append(ids, getStr(t, "id"))
	}
	e := evTodoList(todos)
	if len(e.todos) == len(ids) {
		e.ids = ids
	}
	return e
}

// claudeMainThread picks the records of the main thread, oldest first.
// When the file's lines are linked by parentUuid, that is the chain of
// parents from the newest user or assistant line (a rewind leaves the
// abandoned branch off it); a compaction boundary links on through
// logicalParentUuid. A parent that cannot be found (its line was skipped)
// continues from the line before. Files without links are read in order.
//
// relink maps the head of a partial compaction's preserved segment to its
// anchor: the walk goes from the head to the anchor (the summary and the
// boundary), and when that branch ends, on from the head's own parent,
// so that the turns before the compaction stay on the thread as they do
// after a full one.
func claudeMainThread(records []*ccRecord, relink map[string]string) []*ccRecord {
	byUUID := make(map[string]*ccRecord, len(records))
	for _, r := range records {
		if r.uuid != "" {
			byUUID[r.uuid] = r
		}
	}
	linked := false
	for _, r := range records {
		if r.parent != "" && r.parent != r.uuid && byUUID[r.parent] != nil {
			linked = true
			break
		}
	}
	if !linked {
		return records
	}
	var leaf *ccRecord
	for i := len(records) - 1; i >= 0; i-- {
		if r := records[i]; r.uuid != "" && (r.typ == ccUser || r.typ == ccAssistant) {
			leaf = r
			break
		}
	}
	if leaf == nil {
		return records
	}
	visited := map[*ccRecord]bool{}
	var chain []*ccRecord
	var resume []string // parents of relinked heads, to walk on from
	budget := 4*len(records) + 16
	for cur := leaf; cur != nil && budget > 0; budget-- {
		if visited[cur] {
			// This branch joins one walked already: go on from a
			// relinked head's own parent, if one waits.
			cur = nil
			for cur == nil && len(resume) > 0 {
				cur, resume = byUUID[resume[len(resume)-1]], resume[:len(resume)-1]
			}
			if cur == nil || visited[cur] {
				break
			}
		}
		visited[cur] = true
		chain = append(chain, cur)
		next := cur.parent
		if next == "" {
			next = cur.logicalParent
		}
		if anchor, ok := relink[cur.uuid]; ok && byUUID[anchor] != nil {
			if next != "" && len(resume) < maxQueued {
				resume = append(resume, next)
			}
			next = anchor
		}
		if next == "" {
			for next == "" && len(resume) > 0 {
				next, resume = resume[len(resume)-1], resume[:len(resume)-1]
			}
			if next == "" {
				break
			}
		}
		if p := byUUID[next]; p != nil {
			cur = p
			continue
		}
		// The parent's line is missing: go on from the line before.
		cur = nil
		for i := int(chain[len(chain)-1].idx) - 1; i >= 0 && budget > 0; i, budget = i-1, budget-1 {
			if r := records[i]; !visited[r] {
				cur = r
				break
			}
		}
	}
	// A tool's result may hang off the assistant line that called it
	// rather than continue the chain (parallel calls): a line that only
	// answers tool calls, whose parent is on the thread, belongs to it.
	for _, r := range records {
		if !visited[r] && r.onlyResults {
			if p := byUUID[r.parent]; p != nil && visited[p] {
				chain = append(chain, r)
			}
		}
	}
	slices.SortFunc(chain, func(a, b *ccRecord) int { return int(a.idx - b.idx) })
	return chain
}

func onlyResults(evs []event) bool {
	n := 0
	for _, e := range evs {
		switch e.kind {
		case evResult:
			n++
		case evTodos:
		default:
			return false
		}
	}
	return n > 0
}

var exitCodeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:Exit code|exit code:?) (-?\d{1,10})\b`) })

func claudeUser(m map[string]any) []event {
	if getBool(m, "isMeta") {
		return nil
	}
	msg := getMap(m, "message")
	if msg == nil {
		return nil
	}
	if getBool(m, "isCompactSummary") {
		return []event{evCompact(claudeCompactSummary(contentText(msg["content"])))}
	}
	var evs []event
	var texts []string
	hasResult := false
	switch c := msg["content"].(type) {
	case string:
		texts = append(texts, c)
	case []any:
		tur := getMap(m, "toolUseResult")
		denial := getStr(m, "toolDenialKind")
		for _, b := range c {
			switch b := b.(type) {
			case string:
				texts = append(texts, b)
			case map[string]any:
				switch getStr(b, "type") {
				case "text":
					texts = append(texts, getStr(b, "text"))
				case "tool_result":
					hasResult = true
					res := claudeResult(b, tur, denial)
					evs = append(evs, res)
					if tur != nil && !res.failed && !res.skipped {
						evs = append(evs, claudeToolOutcome(tur)...)
					}
				}
			}
		}
	}
	for _, t := range texts {
		// The user stopped the turn ("[Request interrupted by user]",
		// "… for tool use]"): open until a new request comes.
		if strings.HasPrefix(strings.TrimSpace(t), "[Request interrupted by user") {
			evs = append(evs, event{kind: evCancel})
			break
		}
	}
	if !hasResult {
		var kept []string
		for _, t := range texts {
			if t, ok := claudeRequestText(t); ok {
				kept = append(kept, t)
			}
		}
		switch text := strings.Join(kept, "\n\n"); {
		case strings.HasPrefix(text, claudeContinuation):
			// Older versions wrote the compaction summary unflagged.
			evs = append(evs, evCompact(claudeCompactSummary(text)))
		case text != "":
			evs = append(evs, evReq(text))
		}
	}
	// Older versions record the todo list the tool wrote in the result.
	if tur := getMap(m, "toolUseResult"); tur != nil {
		if todos, ok := tur["newTodos"].([]any); ok {
			evs = append(evs, evTodoList(parseTodos(todos, "content")))
		}
	}
	return evs
}

// claudeResult reads a tool_result block. A Bash failure says is_error and
// starts "Exit code N"; a success is not marked at all. A call that did
// not run says why: toolDenialKind on the line (user-rejected,
// permission-rule, interrupted, cancelled; seen from 2.1.263), or, before
// that field, the fixed texts Claude Code answers a refused or
// interrupted call with (2.1.88 src/utils/messages.ts REJECT_MESSAGE,
// CANCEL_MESSAGE, SUBAGENT_REJECT_MESSAGE, INTERRUPT_MESSAGE_FOR_TOOL_USE;
// 1.0.98 answered a missing permission "Claude requested permissions to
// …, but you haven't granted it yet."). A PreToolUse hook that blocks the
// call answers "PreToolUse:<tool> hook error: …" or "Hook PreToolUse:<tool>
// denied this tool" (2.1.88 src/utils/hooks.ts, services/tools/toolHooks.ts).
func claudeResult(b, tur map[string]any, denial string) event {
	id := getStr(b, "tool_use_id")
	text := contentText(b["content"])
	t := strings.TrimSpace(text)
	switch denial {
	case "":
	case "interrupted", "cancelled":
		return evStatus(id, handoff.StatusInterrupted, "")
	default: // user-rejected, permission-rule, and kinds still to come
		return evStatus(id, handoff.StatusRejected, "")
	}
	if getBool(b, "is_error") {
		switch {
		case hasAnyPrefix(t, claudeRejections):
			return evStatus(id, handoff.StatusRejected, "")
		case strings.HasPrefix(t, "[Request interrupted by user"):
			return evStatus(id, handoff.StatusInterrupted, "")
		case strings.HasPrefix(t, "Hook PreToolUse:") || strings.HasPrefix(t, "PreToolUse:") && strings.Contains(firstLine(t), "hook error"):
			return evStatus(id, handoff.StatusBlocked, text)
		}
		var exit *int
		if m := exitCodeRe().FindStringSubmatch(t); m != nil {
			exit = parseExit(m[1])
		}
		return evOut(id, exit, true, true, text)
	}
	if tur != nil {
		if exit := exitCode(tur["exitCode"]); exit != nil {
			return evOut(id, exit, *exit != 0, true, firstNonEmpty(getStr(tur, "stderr"), text))
		}
		if getBool(tur, "interrupted") {
			return evStatus(id, handoff.StatusInterrupted, "")
		}
		if getStr(tur, "backgroundTaskId") != "" {
			return evStatus(id, handoff.StatusBackground, "")
		}
	}
	if strings.HasPrefix(t, "Command running in background") {
		return evStatus(id, handoff.StatusBackground, "")
	}
	return evOut(id, intPtr(0), false, true, "")
}

// claudeRejections open the answers to a call the user or a permission
// rule refused.
var claudeRejections = []string{
	"The user doesn't want to proceed with this tool use",
	"The user doesn't want to take this action right now",
	"Permission for this tool use was denied",
	"Claude requested permissions to ",
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// claudeToolOutcome reads what a successful tool call's toolUseResult
// tells beyond its success (Claude Code 2.1.88 src/tools/…): the task
// TaskCreate made ({task: {id, subject}}), the list TaskList read
// ({tasks: [{id, subject, status}]}), the answers AskUserQuestion
// collected ({questions: [{question}], answers: {question: answer}}), and
// the plan ExitPlanMode presented ({plan, filePath}).
func claudeToolOutcome(tur map[string]any) []event {
	var evs []event
	if t := getMap(tur, "task"); t != nil && getStr(t, "id") != "" && getStr(t, "subject") != "" {
		evs = append(evs, event{kind: evTask, id: getStr(t, "id"), text: getStr(t, "subject"), status: "pending"})
	}
	if tasks, ok := tur["tasks"].([]any); ok {
		evs = append(evs, taskList(tasks))
	}
	if answers := getMap(tur, "answers"); answers != nil {
		var order []string
		for _, q := range getArr(tur, "questions") {
			if q, ok := q.(map[string]any); ok {
				order = append(order, getStr(q, "question"))
			}
		}
		rest := make([]string, 0, len(answers))
		for q := range answers {
			if !slices.Contains(order, q) {
				rest = append(rest, q)
			}
		}
		slices.Sort(rest)
		for _, q := range append(order, rest...) {
			if a, ok := answers[q].(string); ok && strings.TrimSpace(q) != "" && strings.TrimSpace(a) != "" {
				evs = append(evs, event{kind: evDecision, text: untrusted.OneLine(q+" → "+a, handoff.MaxItem)})
			}
		}
	}
	if plan := getStr(tur, "plan"); strings.TrimSpace(plan) != "" {
		// ExitPlanMode's result holds the plan only once the user
		// approved it ("User has approved your plan…", 2.1.328).
		evs = append(evs, event{kind: evPlan, text: shortenMiddle(strings.TrimSpace(plan), MaxCompaction), status: handoff.PlanApproved})
	}
	return evs
}

func claudeAssistant(m map[string]any) []event {
	msg := getMap(m, "message")
	if msg == nil {
		return nil
	}
	msgID := firstNonEmpty(getStr(msg, "id"), getStr(m, "requestId"))
	var evs []event
	switch c := msg["content"].(type) {
	case string:
		evs = append(evs, evAgent(msgID, c))
	case []any:
		for _, b := range c {
			b, ok := b.(map[string]any)
			if !ok {
				continue
			}
			switch getStr(b, "type") {
			case "text":
				if t := strings.TrimSpace(getStr(b, "text")); t != "" {
					evs = append(evs, evAgent(msgID, t))
				}
			case "tool_use":
				evs = append(evs, claudeToolUse(b)...)
			}
		}
	}
	if u := getMap(msg, "usage"); u != nil {
		evs = append(evs, event{kind: evTokens, id: msgID, tokens: handoff.Tokens{
			Input:      getCount(u, "input_tokens"),
			Output:     getCount(u, "output_tokens"),
			CacheRead:  getCount(u, "cache_read_input_tokens"),
			CacheWrite: getCount(u, "cache_creation_input_tokens"),
		}})
	}
	return evs
}

func claudeToolUse(b map[string]any) []event {
	id := getStr(b, "id")
	in := getMap(b, "input")
	if in == nil {
		return nil
	}
	switch getStr(b, "name") {
	case "Bash":
		e := evCmd(id, getStr(in, "command"))
		e.ops = removedFiles(getStr(in, "command"))
		return []event{e}
	case "TaskUpdate":
		// {taskId, subject?, status?: pending|in_progress|completed|deleted}
		// (Claude Code 2.1.88 src/tools/TaskUpdateTool); TaskCreate's task
		// is read from its result, which holds the new task's id.
		return []event{{kind: evTask, id: getStr(in, "taskId"), text: getStr(in, "subject"), status: getStr(in, "status")}}
	case "ExitPlanMode":
		// {plan}: the plan put to the user (2.1.88
		// src/tools/ExitPlanModeTool); newer versions may leave it to the
		// result, read in claudeToolOutcome.
		if plan := strings.TrimSpace(getStr(in, "plan")); plan != "" {
			return []event{{kind: evPlan, id: id, text: shortenMiddle(plan, MaxCompaction)}}
		}
	case "Edit":
		return []event{evOps(id, fileOp{path: getStr(in, "file_path"), op: opEdit, n: 1})}
	case "MultiEdit":
		return []event{evOps(id, fileOp{path: getStr(in, "file_path"), op: opEdit, n: len(getArr(in, "edits"))})}
	case "Write":
		return []event{evOps(id, fileOp{path: getStr(in, "file_path"), op: opWrite, n: 1})}
	case "NotebookEdit":
		return []event{evOps(id, fileOp{path: getStr(in, "notebook_path"), op: opEdit, n: 1})}
	case "Read", "NotebookRead":
		return []event{evOps(id, fileOp{path: firstNonEmpty(getStr(in, "file_path"), getStr(in, "notebook_path")), op: opRead})}
	case "TodoWrite":
		if todos, ok := in["todos"].([]any); ok {
			return []event{evTodoList(parseTodos(todos, "content"))}
		}
	}
	return nil
}

// removedFiles returns the files a plain "rm" command removes: one simple
// command (no chain, pipe, redirection, substitution or glob), whose
// operands are plain paths. Anything less plain removes nothing that is
// recorded.
func removedFiles(cmd string) []fileOp {
	words, ok := plainWords(cmd)
	if !ok || len(words) < 2 || words[0] != "rm" {
		return nil
	}
	var ops []fileOp
	operands := false
	for _, w := range words[1:] {
		switch {
		case !operands && w == "--":
			operands = true
		case !operands && strings.HasPrefix(w, "-"):
		default:
			ops = append(ops, fileOp{path: w, op: opDelete})
		}
	}
	return ops
}

// plainWords splits a command into words when it is one simple command
// of plain words: letters, digits and "/._-+=:@,%" only, no quoting.
func plainWords(cmd string) ([]string, bool) {
	words := strings.Fields(cmd)
	for _, w := range words {
		for _, r := range w {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:@,%", r)) {
				return nil, false
			}
		}
	}
	return words, len(words) > 0
}

// parseTodos reads a list of todo objects; items of the wrong shape are
// skipped. textKeys name the fields that may hold the item's text.
func parseTodos(items []any, textKeys ...string) []handoff.Todo {
	var out []handoff.Todo
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		var text string
		for _, k := range textKeys {
			if text = getStr(m, k); strings.TrimSpace(text) != "" {
				break
			}
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		out = append(out, handoff.Todo{Content: text, Status: getStr(m, "status")})
		if len(out) >= maxTodos {
			break
		}
	}
	return out
}

// contentText joins the text of a message content: a string, or a list of
// blocks with text.
func contentText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			switch b := b.(type) {
			case string:
				parts = append(parts, b)
			case map[string]any:
				if t := getStr(b, "text"); t != "" {
					parts = append(parts, t)
				}
			}
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		return getStr(c, "text")
	}
	return ""
}

// claudeContinuation opens the summary Claude Code writes at compaction.
const claudeContinuation = "This session is being continued from a previous conversation"

// Text Claude Code puts in user lines that the user did not type.
var claudeInjected = []string{
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"Caveat: The messages below were generated by the user while running local commands",
	"[Request interrupted by user", "<system-reminder>", "<bash-stdout>", "<bash-stderr>",
	"<task-notification>", "<ide_opened_file>", "<ide_selection>", "<user-prompt-submit-hook>",
}

// claudeSessionCommands() are Claude Code's built-in slash commands that
// steer the session itself (/clear, /compact, /exit, /model …) rather than
// ask for work: never a request or a title. Custom and plugin commands
// (/review, /bmad:…) and /init, which ask for work, stay requests. Names
// from Claude Code's slash-command reference
// (https://code.claude.com/docs/en/slash-commands).
var claudeSessionCommands = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"clear": true, "compact": true, "exit": true, "quit": true, "resume": true, "continue": true,
		"cost": true, "usage": true, "help": true, "status": true, "model": true, "config": true,
		"context": true, "login": true, "logout": true, "doctor": true, "permissions": true,
		"hooks": true, "mcp": true, "agents": true, "ide": true, "theme": true, "vim": true,
		"terminal-setup": true, "release-notes": true, "bug": true, "export": true, "rewind": true,
		"statusline": true, "add-dir": true, "upgrade": true, "privacy-settings": true,
		"output-style": true, "todos": true, "memory": true, "plugin": true, "rename": true,
	}
})

// claudeRequestText returns what the user asked in one text block, or
// false when the block is injected. Slash commands read as "/name args".
func claudeRequestText(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", false
	}
	for _, p := range claudeInjected {
		if strings.HasPrefix(t, p) {
			return "", false
		}
	}
	if name, ok := between(t, "<command-name>", "</command-name>"); ok {
		name = strings.TrimSpace(name)
		if claudeSessionCommands()[strings.TrimPrefix(name, "/")] {
			return "", false
		}
		args, _ := between(t, "<command-args>", "</command-args>")
		return strings.TrimSpace(name + " " + strings.TrimSpace(args)), true
	}
	if strings.HasPrefix(t, "<command-message>") {
		return "", false
	}
	if cmd, ok := between(t, "<bash-input>", "</bash-input>"); ok {
		return "! " + strings.TrimSpace(cmd), true
	}
	return t, true
}

// between returns the text between the first open tag and the close tag
// after it.
func between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// ClaudeDirs are the agent's own directories, most preferred first, under
// home unless its environment variables move them (agent.Agent.OwnDirs).
func ClaudeDirs(home string, getenv func(string) string) []string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return []string{d}
	}
	cfg := getenv("XDG_CONFIG_HOME")
	if cfg == "" || !filepath.IsAbs(cfg) {
		cfg = filepath.Join(home, ".config")
	}
	return []string{filepath.Join(home, ".claude"), filepath.Join(cfg, "claude")}
}

// ClaudeSessionsDir is the directory under each of ClaudeDirs that holds
// its transcripts.
const ClaudeSessionsDir = "projects"

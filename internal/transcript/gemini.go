package transcript

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Gemini is Gemini CLI, as the agents table names it.
const Gemini Agent = "gemini"

// A Gemini CLI chat recording is, in its current form, a log of JSON
// lines: a metadata line first (sessionId, projectHash, startTime…), then
// message records (type user or gemini, with toolCalls), where a record
// whose id was seen before replaces that message in place; {"$set": {...}}
// updates the metadata (and $set.messages replaces the whole list);
// {"$rewindTo": id} drops that message and every later one, as Gemini CLI
// does. Older sessions are one pretty-printed ConversationRecord object
// with a messages array.

// geminiLog is a recording's message list as its lines build it, keeping
// of each message what keep returns: the message itself when the
// recording is read once, where it is when it is read twice. A line whose
// id was seen before replaces that message in place; $rewindTo and
// $set.messages cut and replace the list as Gemini CLI does
// (packages/core/src/services/chatRecordingService.ts, loadConversationRecord).
type geminiLog[T any] struct {
	d    *Digest
	span timeSpan
	meta map[string]any
	ids  []string
	byID map[string]T
	// archived are the messages a $set.messages dropped, by id, in the
	// order they were dropped: what they did still happened. A resumed
	// session's $set puts old messages back in the list, in a replayed
	// form (tool calls as parts, without their status), and a later
	// compression may drop them again: the first version archived, the
	// one recorded as it happened, is the one kept.
	archivedIDs []string
	archived    map[string]T
	// keep is what is kept of a message m: idx is its place in its
	// line's messages array, -1 when the line is the message.
	keep func(m map[string]any, idx int) T
}

func newGeminiLog[T any](keep func(map[string]any, int) T) *geminiLog[T] {
	return &geminiLog[T]{d: &Digest{}, meta: map[string]any{}, byID: map[string]T{}, keep: keep}
}

// ReadGemini reads a Gemini CLI chat recording, in the JSONL form or the
// older single-object .json form.
//
// When r can be read again (it has ReadAt, Seek and Size, as the
// *io.SectionReader ReadTranscript passes does), a JSONL recording is
// read in passes: one to learn where each message's last version is and
// which messages rewinds and replacements leave, one (only when no
// directory is recorded) to infer the working directory, one to fold the
// messages as they come, so that what is held in memory does not grow
// with what the messages hold. Otherwise every message is kept until the
// end.
func ReadGemini(r io.Reader, limits Limits) (*Digest, error) {
	return readGemini(r, limits.withDefaults(), "")
}

// readGemini reads a recording; rootHint is the project root when the
// caller knows it from where the file lies.
func readGemini(r io.Reader, lim Limits, rootHint string) (*Digest, error) {
	return readGeminiShaped(r, lim, rootHint, lineShapes().gemini)
}

func readGeminiShaped(r io.Reader, lim Limits, rootHint string, sh *shape) (*Digest, error) {
	if sec, ok := rereadable(r, lim.MaxFile); ok {
		return readGeminiTwice(sec, lim, rootHint, sh)
	}
	return readGeminiOnce(io.LimitReader(r, lim.MaxFile), lim, rootHint, sh)
}

// readGeminiOnce reads a recording keeping every message until the end.
func readGeminiOnce(r io.Reader, lim Limits, rootHint string, sh *shape) (*Digest, error) {
	g := newGeminiLog(func(m map[string]any, _ int) map[string]any {
		dropBulkArgs(m)
		return m
	})
	lr := newLineReader(r, lim.MaxLine)
	var p jsonParser
	first := true
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if !tooLong && len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if first {
			first = false
			if !tooLong && string(bytes.TrimSpace(line)) == "{" {
				// The older form: one object spread over many lines.
				head := append(append([]byte(nil), line...), '\n')
				g.legacy(io.MultiReader(bytes.NewReader(head), lr.br))
				break
			}
		}
		countLine(&p, line, lr.n, tooLong, &g.d.Stats, sh, g.record)
	}
	touched := g.finishMeta()
	gf := &geminiFold{}
	for _, m := range g.messages() {
		gf.message(m)
	}
	d := g.d
	d.CWD = firstNonEmpty(geminiDir(g.meta), rootHint)
	if d.CWD == "" {
		var roots pathRoots
		for _, e := range gf.events {
			roots.add(e)
		}
		d.CWD = roots.root(touched)
	}
	f := newFolder()
	for _, e := range gf.events {
		foldEvent(f, d.CWD, e)
	}
	return g.finish(f, gf, touched)
}

// gmRef is where a message is: the line, and its place in that line's
// messages array (-1 when the line is the message).
type gmRef struct{ line, idx int32 }

// readGeminiTwice reads a recording in passes (see ReadGemini).
func readGeminiTwice(sec *io.SectionReader, lim Limits, rootHint string, sh *shape) (*Digest, error) {
	var line int
	g := newGeminiLog(func(_ map[string]any, idx int) gmRef { return gmRef{int32(line), int32(idx)} })
	indexShape := sh
	if sh != nil {
		indexShape = lineShapes().geminiIndex
	}
	lr := newLineReader(io.NewSectionReader(sec, 0, sec.Size()), lim.MaxLine)
	var p jsonParser
	first := true
	for {
		l, tooLong, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if !tooLong && len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if first {
			first = false
			if !tooLong && string(bytes.TrimSpace(l)) == "{" {
				// The older form, one object: small, read whole.
				return readGeminiOnce(io.NewSectionReader(sec, 0, sec.Size()), lim, rootHint, sh)
			}
		}
		line = lr.n
		countLine(&p, l, lr.n, tooLong, &g.d.Stats, indexShape, g.record)
	}
	touched := g.finishMeta()
	refs := g.messages()
	d := g.d
	d.CWD = firstNonEmpty(geminiDir(g.meta), rootHint)
	if d.CWD == "" {
		// What the tool calls' absolute paths share with the relative
		// ones, as in one pass, without keeping events.
		var roots pathRoots
		gf := &geminiFold{emit: roots.add}
		if err := eachMessage(sec, lim, sh, refs, gf.message); err != nil {
			return nil, err
		}
		d.CWD = roots.root(touched)
	}
	f := newFolder()
	gf := &geminiFold{emit: func(e event) { foldEvent(f, d.CWD, e) }}
	if err := eachMessage(sec, lim, sh, refs, gf.message); err != nil {
		return nil, err
	}
	return g.finish(f, gf, touched)
}

// eachMessage calls fn with the messages refs locate, in their order,
// decoding only the lines they are on. A message whose line comes after
// the next one's waits for it; in Gemini CLI's recordings a message's
// versions come before the next message's.
func eachMessage(sec *io.SectionReader, lim Limits, sh *shape, refs []gmRef, fn func(map[string]any)) error {
	byLine := map[int32][]int32{}
	lines := make([]int, 0, len(refs))
	for i, r := range refs {
		if _, ok := byLine[r.line]; !ok {
			lines = append(lines, int(r.line))
		}
		byLine[r.line] = append(byLine[r.line], int32(i))
	}
	slices.Sort(lines)
	pending := map[int32]map[string]any{}
	next := int32(0)
	err := eachLineOf(io.NewSectionReader(sec, 0, sec.Size()), lim, lines, sh, func(n int, m map[string]any) {
		for _, i := range byLine[int32(n)] {
			msg := locateMessage(m, refs[i].idx)
			if msg == nil {
				msg = map[string]any{} // cannot happen: the first pass found it
			}
			pending[i] = msg
		}
		delete(byLine, int32(n))
		for {
			msg, ok := pending[next]
			if !ok {
				return
			}
			delete(pending, next)
			fn(msg)
			next++
		}
	})
	return err
}

// locateMessage finds a message in its line (gmRef.idx).
func locateMessage(m map[string]any, idx int32) map[string]any {
	if idx < 0 {
		return m
	}
	msgs := getArr(m, "messages")
	if set := getMap(m, "$set"); set != nil {
		msgs = getArr(set, "messages")
	}
	if int(idx) >= len(msgs) {
		return nil
	}
	return asMap(msgs[idx])
}

func (g *geminiLog[T]) record(m map[string]any) {
	switch {
	case isStr(m["$rewindTo"]):
		g.rewind(m["$rewindTo"].(string))
	case isStr(m["id"]):
		g.upsert(m, -1)
	case getMap(m, "$set") != nil:
		g.set(getMap(m, "$set"))
	case isStr(m["sessionId"]):
		if msgs, ok := m["messages"].([]any); ok {
			// The older form written on one line.
			g.set(map[string]any{"messages": msgs})
			delete(m, "messages")
		}
		g.set(m)
	default:
		g.d.Stats.unknownType(getStr(m, "type"))
	}
}

func isStr(v any) bool {
	_, ok := v.(string)
	return ok
}

func (g *geminiLog[T]) upsert(m map[string]any, idx int) {
	id := m["id"].(string)
	t, ok := getTime(m, "timestamp")
	g.span.add(t, ok)
	if _, seen := g.byID[id]; !seen {
		g.ids = append(g.ids, id)
	}
	g.byID[id] = g.keep(m, idx)
}

// dropBulkArgs forgets what a message's tool calls wrote (the contents of
// writes, the strings of edits) unless the file is a plan, whose text
// becomes the handoff's plan: when every message is held until the end,
// this is most of what it would hold.
func dropBulkArgs(m map[string]any) {
	for _, tc := range getArr(m, "toolCalls") {
		args := getMap(asMap(tc), "args")
		if args != nil && !isPlanPath(geminiArgPath(args)) {
			delete(args, "content")
			delete(args, "old_string")
			delete(args, "new_string")
		}
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func (g *geminiLog[T]) rewind(id string) {
	for i, x := range g.ids {
		if x == id {
			for _, gone := range g.ids[i:] {
				delete(g.byID, gone)
			}
			g.ids = g.ids[:i]
			return
		}
	}
	// Gemini CLI clears the conversation when the target is unknown.
	g.ids = nil
	g.byID = map[string]T{}
}

func (g *geminiLog[T]) set(upd map[string]any) {
	for k, v := range upd {
		if k == "messages" {
			msgs, ok := v.([]any)
			if !ok || len(msgs) == 0 {
				continue
			}
			// The list is replaced, after a compression for one. What
			// the dropped messages did still happened: keep them aside.
			keep := map[string]bool{}
			for _, x := range msgs {
				if mm, ok := x.(map[string]any); ok && isStr(mm["id"]) {
					keep[mm["id"].(string)] = true
				}
			}
			for _, id := range g.ids {
				if keep[id] {
					continue
				}
				if g.archived == nil {
					g.archived = map[string]T{}
				}
				if _, ok := g.archived[id]; !ok {
					g.archivedIDs = append(g.archivedIDs, id)
					g.archived[id] = g.byID[id]
				}
			}
			g.ids, g.byID = nil, map[string]T{}
			for i, x := range msgs {
				if mm, ok := x.(map[string]any); ok && isStr(mm["id"]) {
					g.upsert(mm, i)
				}
			}
			continue
		}
		if k == "lastUpdated" || k == "startTime" {
			t, ok := parseTime(getStr(upd, k))
			g.span.add(t, ok)
		}
		g.meta[k] = v
	}
}

// messages are the recording's messages, in order: those a replacement
// dropped, then the rest of the list (a message the list has again is
// taken as it was archived).
func (g *geminiLog[T]) messages() []T {
	msgs := make([]T, 0, len(g.archivedIDs)+len(g.ids))
	for _, id := range g.archivedIDs {
		msgs = append(msgs, g.archived[id])
	}
	for _, id := range g.ids {
		if _, archived := g.archived[id]; archived {
			continue
		}
		msgs = append(msgs, g.byID[id])
	}
	return msgs
}

// legacy reads the older form as a stream: the messages one at a time.
func (g *geminiLog[T]) legacy(r io.Reader) {
	st := &g.d.Stats
	st.Lines++
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		st.Malformed++
		return
	}
	st.Records++
	top := map[string]any{}
	defer func() { g.set(top) }() // what was read counts, even when the rest is broken
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			st.Malformed++
			return
		}
		if key != "messages" {
			var v any
			if err := dec.Decode(&v); err != nil {
				st.Malformed++
				return
			}
			top[key] = v
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			st.Malformed++
			return
		}
		for dec.More() {
			var v any
			if err := dec.Decode(&v); err != nil {
				st.Malformed++
				return
			}
			st.Lines++
			if m, ok := v.(map[string]any); ok && isStr(m["id"]) {
				st.Records++
				g.upsert(m, -1)
			} else {
				st.Malformed++
			}
		}
		if _, err := dec.Token(); err != nil {
			st.Malformed++
			return
		}
	}
}

// finishMeta fills in the digest from the metadata and returns the paths
// the metadata says were touched.
func (g *geminiLog[T]) finishMeta() (touched []string) {
	d := g.d
	d.Session.ID = getStr(g.meta, "sessionId")
	if t, ok := parseTime(getStr(g.meta, "startTime")); ok {
		d.Session.StartedAt = &t
	} else {
		d.Session.StartedAt = timePtr(g.span.first)
	}
	d.Session.LastActivity = timePtr(g.span.last)
	// Gemini CLI marks a subagent's recording in its metadata
	// (ConversationRecord.kind, packages/core/src/services/chatRecordingTypes.ts).
	d.Subagent = getStr(g.meta, "kind") == "subagent"
	for _, p := range getArr(getMap(g.meta, "memoryScratchpad"), "touchedPaths") {
		if s, ok := p.(string); ok && strings.TrimSpace(s) != "" && len(touched) < maxFiles {
			touched = append(touched, s)
		}
	}
	return touched
}

// geminiDir is the first workspace directory the metadata names: the
// working directory, else it is where the recording lies, else what the
// touched paths imply.
func geminiDir(meta map[string]any) string {
	if dirs := getArr(meta, "directories"); len(dirs) > 0 {
		s, _ := dirs[0].(string)
		return s
	}
	return ""
}

// finish completes the digest once the messages are folded into f.
func (g *geminiLog[T]) finish(f *folder, gf *geminiFold, touched []string) (*Digest, error) {
	d := g.d
	// The title: the topic the agent last set (update_topic), else the
	// summary Gemini CLI wrote, else (in the folder) the first request.
	d.Title = firstNonEmpty(gf.topic, getStr(g.meta, "summary"))
	d.Cancelled = gf.cancelled
	if plan, status := gf.finishPlan(); plan != "" {
		foldEvent(f, d.CWD, event{kind: evPlan, text: plan, status: status})
	}
	if len(touched) > 0 {
		t := event{kind: evTouch}
		for _, p := range touched {
			t.ops = append(t.ops, fileOp{path: joinPath(d.CWD, p)})
		}
		foldEvent(f, d.CWD, t)
	}
	f.finish(d)
	if err := finishCommon(d, Gemini); err != nil {
		return nil, err
	}
	return d, nil
}

// geminiExit finds the exit code a shell command's output states, as
// (?m)^Exit Code: (-?\d{1,10})\s*$ would.
func geminiExit(out string) *int {
	if n, ok := exitLine(out, "Exit Code:"); ok {
		return parseExit(n)
	}
	return nil
}

// geminiFold turns a recording's messages into events, in order, and
// gathers what is not an event: the topic's title, the plan, and whether
// the last turn was cancelled.
type geminiFold struct {
	// emit takes each event; when nil, events are kept in events.
	emit      func(event)
	events    []event
	topic     string
	cancelled bool
	// planFiles are the plan files written (at most maxPlanFiles), the
	// latest written last, each with its latest text; planWrites counts
	// the writes.
	planFiles  []planFile
	planWrites int
	inPlan     bool   // enter_plan_mode ran and exit_plan_mode has not
	planFrom   int    // planWrites when plan mode was entered
	plan       string // the last plan put to the user, with its outcome
	planStatus string // what the user said to it: a handoff.Plan* status
	// initMade says /init made an empty GEMINI.md that the agent has not
	// written yet: its first write, an overwrite, makes the file.
	initMade bool
}

type planFile struct{ path, text string }

func (g *geminiFold) add(evs ...event) {
	for _, e := range evs {
		if g.emit != nil {
			g.emit(e)
		} else {
			g.events = append(g.events, e)
		}
	}
}

func (g *geminiFold) message(m map[string]any) {
	id := getStr(m, "id")
	switch getStr(m, "type") {
	case "user":
		content := geminiUserText(m["content"])
		if strings.HasPrefix(content, "<state_snapshot>") {
			// The summary Gemini CLI's compression wrote, in the tags it
			// asks the model for (packages/core/src/core/prompts.ts).
			g.add(evCompact(strings.TrimSuffix(strings.TrimPrefix(content, "<state_snapshot>"), "</state_snapshot>")))
			return
		}
		if text, ok := geminiRequest(m, content); ok {
			g.add(evReq(text))
			g.cancelled = false
		}
	case "info":
		// What Gemini CLI shows when the user stops a turn
		// (packages/cli/src/ui/hooks/useGeminiStream.ts, "Request
		// cancelled."): the last request may be half done.
		switch strings.TrimSpace(geminiText(m["content"])) {
		case "Request cancelled.":
			g.cancelled = true
		case "Empty GEMINI.md created. Now analyzing the project to populate it.":
			// /init (packages/cli/src/ui/commands/initCommand.ts).
			g.initMade = true
		}
	case "gemini":
		if text := strings.TrimSpace(geminiText(m["content"])); text != "" {
			g.add(evAgent(id, text))
		}
		for i, tc := range getArr(m, "toolCalls") {
			if tc, ok := tc.(map[string]any); ok {
				g.toolCall(id, i, tc)
			}
		}
		if t := getMap(m, "tokens"); t != nil {
			in, cached := getCount(t, "input"), getCount(t, "cached")
			g.add(event{kind: evTokens, id: "msg:" + id, tokens: handoff.Tokens{
				Input:     max(in-cached, 0),
				Output:    satAdd(getCount(t, "output"), getCount(t, "thoughts")),
				CacheRead: cached,
			}})
		}
	}
}

// geminiRequest returns what the user asked in a user message whose
// content reads content: what the user typed (displayContent, as "/init"
// for the prompt the command expands to), unless the message is one
// Gemini CLI itself does not count as the user's.
func geminiRequest(m map[string]any, content string) (string, bool) {
	if geminiInjected(content) {
		return "", false
	}
	text := strings.TrimSpace(geminiText(m["displayContent"]))
	if text == "" {
		text = content
	}
	if strings.HasPrefix(strings.TrimSpace(text), geminiInitPrompt) {
		text = "/init"
	}
	return text, text != ""
}

// geminiInitPrompt opens the prompt /init submits, unchanged from the
// command's first release (v0.1, July 2025) to v0.56
// (google-gemini/gemini-cli packages/core/src/commands/init.ts,
// performInit; packages/cli/src/ui/commands/initCommand.ts). Recordings
// older than v0.28.0 (commit bb6a336c) keep no displayContent, only this
// prompt: it is read as "/init".
const geminiInitPrompt = "You are an AI agent that brings the power of Gemini directly into the terminal. " +
	"Your task is to analyze the current directory and generate a comprehensive GEMINI.md file"

// geminiInjected reports whether a user message's content is not a
// request: what Gemini CLI's isIgnoredUserContent leaves out of a resumed
// history (empty, a slash or ? command, the <session_context> that carries
// GEMINI.md, a <hook_context>; packages/core/src/utils/sessionUtils.ts,
// v0.56), and the turns Gemini CLI sends on its own: "Please continue."
// after its next-speaker check (packages/core/src/core/client.ts),
// "System: Please continue." after an invalid stream (until v0.42,
// commit 9380e13f) and its loop-detection feedback (client.ts).
func geminiInjected(content string) bool {
	switch {
	case content == "", content == "Please continue.", content == "System: Please continue.":
		return true
	}
	return hasAnyPrefix(content, []string{"/", "?", "<session_context>", "<hook_context>", "System: Potential loop detected."})
}

func (g *geminiFold) toolCall(msgID string, i int, tc map[string]any) {
	id := getStr(tc, "id")
	if id == "" {
		id = msgID + "#" + strconv.Itoa(i)
	}
	args := getMap(tc, "args")
	if args == nil {
		args = map[string]any{}
	}
	status := getStr(tc, "status")
	out := geminiResultText(tc["result"])
	if out == "" {
		out = getStr(tc, "resultDisplay")
	}
	filePath := geminiArgPath(args)
	var call event
	// Tool names and arguments: packages/core/src/tools/definitions/
	// base-declarations.ts and tool-names.ts (v0.56); what each returns:
	// write-file.ts, edit.ts, trackerTools.ts, exit-plan-mode.ts.
	switch name := getStr(tc, "name"); name {
	case "run_shell_command":
		call = evCmd(id, getStr(args, "command"))
	case "replace", "edit", "smart_edit":
		op := opEdit
		if strings.HasPrefix(out, "Created new file") {
			op = opCreate
		}
		if status != "error" && status != "cancelled" {
			g.editPlan(filePath, args)
		}
		call = evOps(id, g.fileOps(filePath, op)...)
	case "write_file":
		op := opWrite
		switch {
		case strings.HasPrefix(out, "Successfully created"):
			op = opCreate
		case strings.HasPrefix(out, "Successfully overwrote"):
			op = opEdit
			if g.initMade && (filePath == "GEMINI.md" || strings.HasSuffix(filepath.ToSlash(filePath), "/GEMINI.md")) {
				op, g.initMade = opCreate, false
			}
		}
		if status != "error" && status != "cancelled" && isPlanPath(filePath) {
			g.writePlan(filePath, getStr(args, "content"))
		}
		call = evOps(id, g.fileOps(filePath, op)...)
	case "read_file":
		call = evOps(id, fileOp{path: filePath, op: opRead})
	case "write_todos":
		if todos, ok := args["todos"].([]any); ok {
			g.add(evTodoList(parseTodos(todos, "description", "content")))
		}
		return
	case "update_topic":
		if t := strings.TrimSpace(getStr(args, "title")); t != "" && status != "error" {
			g.topic = t
		}
		return
	case "enter_plan_mode":
		if status == "success" {
			g.inPlan, g.planFrom = true, g.planWrites
		}
		return
	case "exit_plan_mode":
		if status == "success" {
			g.exitPlan(getStr(args, "plan_filename"), out)
		}
		return
	default:
		// The task tracker's tools show the whole task list
		// (returnDisplay {todos}, trackerTools.ts).
		if strings.HasPrefix(name, "tracker_") && status == "success" {
			if todos, ok := getMap(tc, "resultDisplay")["todos"].([]any); ok {
				g.add(evTodoList(parseTodos(todos, "description")))
			}
		}
		return
	}
	var res event
	switch status {
	case "success":
		exit := intPtr(0)
		if n, ok := exitLine(out, "Exit Code:"); ok {
			exit = parseExit(n)
		}
		res = evOut(id, exit, exit != nil && *exit != 0, true, out)
	case "error":
		if geminiRefused(out) {
			res = evStatus(id, handoff.StatusRejected, out)
			break
		}
		exit := geminiExit(out)
		res = evOut(id, exit, true, true, out)
	case "cancelled":
		// The user declined it ("[Operation Cancelled] Reason: User denied
		// execution.") or stopped it (packages/core/src/scheduler/
		// scheduler.ts, state-manager.ts): it did not run its course.
		status := handoff.StatusInterrupted
		if strings.Contains(out, "User denied execution") {
			status = handoff.StatusRejected
		}
		res = evStatus(id, status, out)
	default:
		g.add(call)
		return
	}
	g.add(call, res)
}

// fileOps is the operation on a file, unless the file is Gemini CLI's own
// (a plan under ~/.gemini/tmp), which is no file of the project.
func (g *geminiFold) fileOps(p string, op opKind) []fileOp {
	if strings.Contains(filepath.ToSlash(p), "/.gemini/tmp/") {
		return nil
	}
	return []fileOp{{path: p, op: op, n: 1}}
}

// geminiArgPath is the file a tool call's arguments name.
func geminiArgPath(args map[string]any) string {
	return firstNonEmpty(getStr(args, "file_path"), getStr(args, "absolute_path"), getStr(args, "path"))
}

// isPlanPath reports whether a file lies in a plans directory, where
// Gemini CLI's plan mode keeps its plans (Storage.getPlansDir,
// packages/core/src/config/storage.ts: ~/.gemini/tmp/<project>/<session>/plans
// or a plans directory the user configured).
func isPlanPath(p string) bool {
	p = filepath.ToSlash(p)
	return strings.HasPrefix(p, "plans/") || strings.Contains(p, "/plans/")
}

// maxPlanFiles bounds the plan files whose text is kept.
const maxPlanFiles = 8

// writePlan keeps text as the plan file p's, last.
func (g *geminiFold) writePlan(p, text string) {
	g.planWrites++
	g.planFiles = slices.DeleteFunc(g.planFiles, func(f planFile) bool { return f.path == p })
	if len(g.planFiles) == maxPlanFiles {
		g.planFiles = slices.Delete(g.planFiles, 0, 1)
	}
	g.planFiles = append(g.planFiles, planFile{path: p, text: shortenHead(text, 2*MaxCompaction)})
}

// editPlan applies a replace to a plan file whose text is known.
func (g *geminiFold) editPlan(p string, args map[string]any) {
	if !isPlanPath(p) {
		return
	}
	for i := len(g.planFiles) - 1; i >= 0; i-- {
		if g.planFiles[i].path != p {
			continue
		}
		text, old := g.planFiles[i].text, getStr(args, "old_string")
		n := 1
		if getBool(args, "allow_multiple") {
			n = -1
		}
		if old != "" {
			text = strings.Replace(text, old, getStr(args, "new_string"), n)
		}
		g.writePlan(p, text)
		return
	}
}

// planText is the latest text written to the plan file name names (a
// path, or a name in the plans directory).
func (g *geminiFold) planText(name string) (string, bool) {
	name = filepath.ToSlash(strings.TrimSpace(name))
	if name == "" {
		return "", false
	}
	for i := len(g.planFiles) - 1; i >= 0; i-- {
		p := g.planFiles[i].path
		if p == name || path.Base(filepath.ToSlash(p)) == path.Base(name) {
			return g.planFiles[i].text, true
		}
	}
	return "", false
}

// exitPlan records the plan exit_plan_mode put to the user, and how the
// user answered (its llmContent, exit-plan-mode.ts).
func (g *geminiFold) exitPlan(name, out string) {
	outcome := "put to the user"
	status := handoff.PlanPending
	switch {
	case strings.HasPrefix(out, "User cancelled"):
		return // the approval dialog was dismissed: still planning
	case strings.HasPrefix(out, "Plan rejected"):
		outcome, status = "rejected by the user", handoff.PlanRejected
		if fb, ok := strings.CutPrefix(out, "Plan rejected. User feedback: "); ok {
			fb, _, _ = strings.Cut(fb, "\n")
			outcome += " (feedback: " + untrusted.OneLine(fb, handoff.MaxItem) + ")"
		}
	case strings.Contains(out, "approved"):
		outcome, status = "approved by the user", handoff.PlanApproved
	}
	g.inPlan = false
	text, ok := g.planText(name)
	if !ok {
		text = "(the plan file " + untrusted.OneLine(name, 256) + " is not in the transcript)"
	}
	g.plan = shortenMiddle(strings.TrimSpace(text)+"\n\n(Gemini CLI plan mode: "+outcome+".)", MaxCompaction)
	g.planStatus = status
}

// finishPlan is the plan to hand on, and its status: the last one put to
// the user, or one still being drafted in plan mode (pending).
func (g *geminiFold) finishPlan() (string, string) {
	if g.inPlan && g.planWrites > g.planFrom {
		last := g.planFiles[len(g.planFiles)-1]
		return shortenMiddle(strings.TrimSpace(last.text)+"\n\n(Gemini CLI plan mode: a draft, not yet put to the user.)", MaxCompaction), handoff.PlanPending
	}
	return g.plan, g.planStatus
}

// geminiText joins the text parts of a content (a string, a part, or a
// list of parts), leaving out the model's thoughts.
func geminiText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case map[string]any:
		if getBool(c, "thought") {
			return ""
		}
		return getStr(c, "text")
	case []any:
		var parts []string
		for _, p := range c {
			if t := geminiText(p); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// geminiUserText is the text of a user message without the hooks' context
// Gemini CLI records in it: a leading "<hook_context>…</hook_context>"
// block, which the session-start hook's context becomes in front of the
// prompt (packages/cli/src/gemini.tsx, v0.61.0), and whole text parts of
// that form, which BeforeAgent's context becomes after the request
// (packages/core/src/core/client.ts, sendMessageStream). The block ends at
// its first closing tag: our own briefings never hold one (internal/hooks
// escapes any a handoff's text holds), and Gemini CLI escapes nothing
// inside it.
func geminiUserText(v any) string {
	if parts, ok := v.([]any); ok {
		kept := make([]any, 0, len(parts))
		for _, p := range parts {
			if t := strings.TrimSpace(geminiText(p)); isHookContext(t) {
				continue
			}
			kept = append(kept, p)
		}
		v = kept
	}
	text := strings.TrimSpace(geminiText(v))
	for strings.HasPrefix(text, hookContextOpen) {
		end := strings.Index(text, hookContextClose)
		if end < 0 {
			return text // unclosed: geminiInjected leaves it out whole
		}
		text = strings.TrimSpace(text[end+len(hookContextClose):])
	}
	return text
}

const hookContextOpen, hookContextClose = "<hook_context>", "</hook_context>"

// isHookContext reports whether a text part is one hook context block.
func isHookContext(t string) bool {
	return strings.HasPrefix(t, hookContextOpen) && strings.HasSuffix(t, hookContextClose) &&
		strings.Index(t, hookContextClose) == len(t)-len(hookContextClose)
}

// geminiRefused reports whether an errored call's output says the CLI
// refused to run it: its policy engine ("Tool execution denied by
// policy.", packages/core/src/scheduler/policy.ts, v0.61.0) or its shell
// parser ("Command rejected because it could not be parsed safely", seen
// in real chats). A refused call did not run: it is no failure.
func geminiRefused(out string) bool {
	out = strings.TrimSpace(out)
	return strings.HasPrefix(out, "Tool execution denied by policy") || strings.HasPrefix(out, "Command rejected because") ||
		strings.Contains(firstLine(out), "could not be parsed safely")
}

// geminiResultText reads the output of a tool call's result parts.
func geminiResultText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case map[string]any:
		if fr := getMap(c, "functionResponse"); fr != nil {
			resp := getMap(fr, "response")
			return firstNonEmpty(getStr(resp, "output"), getStr(resp, "error"), getStr(resp, "llmContent"), getStr(resp, "content"))
		}
		return getStr(c, "text")
	case []any:
		var parts []string
		for _, p := range c {
			if t := geminiResultText(p); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// pathRoots gathers the paths of a recording's file operations, to find
// the directory its relative paths are relative to when it names none
// (Gemini CLI resolves them against the project's root): the model may
// give write_file a relative path and replace an absolute one for the
// same file.
type pathRoots struct{ abs, rel []string }

// maxRootPaths bounds each of pathRoots' lists (root compares them all).
const maxRootPaths = 1000

func (r *pathRoots) add(e event) {
	for _, op := range e.ops {
		switch p := op.path; {
		case strings.HasPrefix(p, "/"):
			if len(r.abs) < maxRootPaths {
				r.abs = append(r.abs, p)
			}
		case strings.Contains(strings.TrimPrefix(p, "./"), "/"):
			// A path of one name only could lie anywhere: it proves no root.
			if len(r.rel) < maxRootPaths {
				r.rel = append(r.rel, p)
			}
		}
	}
}

// root is the directory the first absolute path that can lies in as one
// of the relative touched paths (Gemini CLI's own list) or of the tool
// calls' relative paths: /r/a/b.go and a/b.go give /r; "" for none.
func (r *pathRoots) root(touched []string) string {
	rel := append(slices.Clip(touched), r.rel...)
	for _, p := range r.abs {
		if root := rootOf(p, rel); root != "" {
			return root
		}
	}
	return ""
}

// rootOf is the directory an absolute path p lies in as one of the
// relative touched paths: /r/a/b.go and a/b.go give /r.
func rootOf(p string, touched []string) string {
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	for _, t := range touched {
		t = strings.TrimPrefix(t, "./")
		if t == "" || strings.HasPrefix(t, "/") {
			continue
		}
		if root, ok := strings.CutSuffix(p, "/"+t); ok && root != "" {
			return root
		}
	}
	return ""
}

// geminiProjectRoot reads the .project_root marker that Gemini CLI keeps
// in a project's directory under ~/.gemini/tmp, for a recording at file
// (chats/x.jsonl, or chats/<parent>/x.jsonl for a subagent).
func geminiProjectRoot(file string) string {
	dir := filepath.Dir(filepath.Dir(file))
	for range 2 {
		if root := readSmall(filepath.Join(dir, ".project_root"), 4096); root != "" {
			root = strings.TrimSpace(root)
			if strings.HasPrefix(root, "/") && !strings.ContainsAny(root, "\n\x00") {
				return root
			}
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// readSmall returns the start of a small regular file, at most n bytes,
// or "" when it cannot.
func readSmall(file string, n int64) string {
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return ""
	}
	return clean(string(b))
}

// geminiLine gathers what discovery shows from a line of a recording: the
// metadata (id, project, times, directory, whether it is a subagent's),
// the first request, the last topic title and the summary.
func (p *prober) geminiLine(m map[string]any, head bool) {
	if set := getMap(m, "$set"); set != nil {
		p.summary = firstNonEmpty(getStr(set, "summary"), p.summary)
		if getStr(set, "kind") == "subagent" {
			p.subagent = true
		}
		if t, ok := getTime(set, "lastUpdated"); ok && t.After(p.last) {
			p.last = t
		}
		return
	}
	if isStr(m["id"]) {
		switch getStr(m, "type") {
		case "user":
			if r, _ := geminiRequest(m, geminiUserText(m["content"])); head && p.firstReq == "" && !isSlashCommand(r) {
				p.firstReq = r
			}
		case "gemini":
			if head {
				return // the topic that counts is the last one, in the tail
			}
			for _, tc := range getArr(m, "toolCalls") {
				tc := asMap(tc)
				if getStr(tc, "name") == "update_topic" && getStr(tc, "status") != "error" {
					p.topic = firstNonEmpty(strings.TrimSpace(getStr(getMap(tc, "args"), "title")), p.topic)
				}
			}
		}
		return
	}
	if isStr(m["sessionId"]) && head && !p.metaSeen {
		p.metaSeen = true
		p.id, p.hash = getStr(m, "sessionId"), getStr(m, "projectHash")
		p.subagent = getStr(m, "kind") == "subagent"
		p.summary = firstNonEmpty(getStr(m, "summary"), p.summary)
		if t, ok := getTime(m, "startTime"); ok {
			p.started = t
		}
		if t, ok := getTime(m, "lastUpdated"); ok && t.After(p.last) {
			p.last = t
		}
		if dirs := getArr(m, "directories"); len(dirs) > 0 {
			p.cwd, _ = dirs[0].(string)
		}
	}
}

// GeminiDirs are the agent's own directories, most preferred first, under
// home unless its environment variables move them (agent.Agent.OwnDirs).
func GeminiDirs(home string, getenv func(string) string) []string {
	if h := getenv("GEMINI_CLI_HOME"); h != "" {
		return []string{filepath.Join(h, ".gemini")}
	}
	return []string{filepath.Join(home, ".gemini")}
}

// GeminiSessionsDir is the directory under each of GeminiDirs that holds
// its transcripts.
const GeminiSessionsDir = "tmp"

package transcript

import (
	"io"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Codex is Codex CLI, as the agents table names it.
const Codex Agent = "codex"

// A Codex CLI rollout is one {timestamp, type, payload} object per line:
// session_meta, turn_context, response_item (what the model saw and did),
// event_msg (what the user interface showed) and compacted. The user's
// text appears as both an event_msg user_message and a response_item
// message; the response items also carry injected context (AGENTS.md,
// environment) that the user did not type. Reasoning items may hold
// encrypted content: they are never read beyond their type.

// Where a user request came from, for deduplication.
const (
	srcEvent uint8 = 1 // event_msg user_message
	srcItem  uint8 = 2 // response_item message with role user
)

// Response item types, also found bare (without the wrapper) in the
// oldest rollouts.
var codexItemTypes = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"message": true, "reasoning": true, "function_call": true,
		"function_call_output": true, "custom_tool_call": true,
		"custom_tool_call_output": true, "local_shell_call": true,
		"web_search_call": true,
	}
})

// Text Codex injects as user messages: what it calls contextual user
// fragments and leaves out of a thread's user turns (openai/codex
// codex-rs/core/src/context/contextual_user_message.rs,
// CONTEXTUAL_USER_FRAGMENTS: AGENTS.md, environment context, skills,
// user shell commands, aborted turns, subagent notifications), and the
// older <user_instructions> and <permissions instructions> blocks. Only
// response items carry them: the user_message events a rollout also
// holds are what the user typed.
var codexInjected = []string{
	"# AGENTS.md instructions", "<environment_context>", "<user_instructions>",
	"<permissions instructions>", "<INSTRUCTIONS>", "<turn_aborted>",
	"<user_shell_command>", "<subagent_notification>", "<collaboration_mode>",
	"<skill>", "<model_switch>",
}

// isTaggedBlock reports whether a text part is one block of context an
// agent adds in a tag of its own, "<snake_case_tag>…</snake_case_tag>":
// Codex wraps every contextual fragment so, and adds new ones release by
// release (0.169.0 has <recommended_plugins>, <context_window_reminder>,
// <workspace_roots>, <codex_delegation>…: strings in its binary); a
// person does not type a whole request that way.
func isTaggedBlock(t string) bool {
	rest, ok := strings.CutPrefix(t, "<")
	if !ok {
		return false
	}
	tag, _, ok := strings.Cut(rest, ">")
	if !ok || tag == "" || len(tag) > 64 || strings.Trim(tag, "abcdefghijklmnopqrstuvwxyz_") != "" {
		return false
	}
	return strings.HasSuffix(t, "</"+tag+">")
}

type codexReader struct {
	d            *Digest
	span         timeSpan
	metaSeen     bool
	started      string
	cwd          string
	turnCWD      string
	title        string
	sawUserEvent bool
	events       []event
	turnsEvent   []int // indexes into events where a turn began, by source
	turnsItem    []int

	// When the rollout is read in two passes, the first keeps the line
	// of each event instead of the event (a rollback drops whole lines),
	// and the second folds the events of the lines that are left.
	mode  codexMode
	line  int     // the number of the line being read
	lines []int32 // codexLines: the line of each event
	// itemCalls are the call ids of the rollout's tool call response
	// items (completedItem reads only calls that have none);
	// lastItemRequest is the text of the last user message response item,
	// which the completed UserMessage after it repeats.
	itemCalls       map[string]bool
	lastItemRequest string
	keep            []int32 // codexFold: the lines whose events count, ascending
	fold            *folder
	want            uint8  // codexFold: the source of the requests that count
	root            string // codexFold: the working directory the paths are made relative to

	// patched holds the call ids whose patch text gave file operations,
	// so that patch_apply_end's changes count only the patches that were
	// not read from their text (no edit counted twice).
	patched map[string]bool
	// ts is the timestamp of the line being read.
	ts string
	// abortEvent and abortItem are one more than the number of user
	// turns (by source) when a turn was last interrupted; 0 for none.
	abortEvent, abortItem int
	// running maps the session of a command still running (its output
	// said "Process running with session ID N") to the command's call;
	// polls maps a write_stdin call to the session it polls. The poll's
	// output tells how the command ended when no exec_command_end does.
	running map[int64]string
	polls   map[string]int64
	// calls are the tool calls a subagent's rollout holds (see
	// patch_apply_end).
	calls map[string]bool
	// nestedCmd and nestedFile say the rollout keeps records of calls no
	// response item made (completed items, exec_command_end,
	// patch_apply_end): the nested calls of code-mode scripts, which are
	// then not read from the scripts (codexexec.go); codeMode are the
	// events read from scripts in one pass.
	nestedCmd, nestedFile bool
	codeMode              []codeModeEv
}

// codexRequestBegin is the line after which Codex's IDE extension and
// desktop app put what the user typed, below the context they add ("#
// Context from my IDE setup:", "# Files mentioned by the user:"):
// USER_MESSAGE_BEGIN, openai/codex codex-rs/protocol/src/protocol.rs.
const codexRequestBegin = "## My request for Codex:"

// codexRequest is what the user typed in a user message: what follows
// codexRequestBegin when it is there, as Codex itself takes it for a
// thread's title and preview (strip_user_message_prefix,
// codex-rs/rollout/src/metadata.rs).
func codexRequest(text string) string {
	if i := strings.Index(text, codexRequestBegin); i >= 0 {
		return strings.TrimSpace(text[i+len(codexRequestBegin):])
	}
	return text
}

// lastTurnCancelled says whether the user interrupted the last user turn
// that is left (after rollbacks).
func (c *codexReader) lastTurnCancelled() bool {
	if c.sawUserEvent {
		return c.abortEvent != 0 && c.abortEvent == len(c.turnsEvent)+1
	}
	return c.abortItem != 0 && c.abortItem == len(c.turnsItem)+1
}

// remoteCompaction is what a compaction with no readable summary leaves:
// Codex's remote compaction writes a compacted item with an empty message
// and its replacement history encrypted (issue 17, item 8).
func remoteCompaction(at string) string {
	if at = strings.TrimSpace(at); at != "" && len(at) <= 40 {
		return "The context was compacted at " + at + "; the transcript keeps no summary of what came before (Codex remote compaction)."
	}
	return "The context was compacted; the transcript keeps no summary of what came before (Codex remote compaction)."
}

type codexMode uint8

const (
	codexEvents codexMode = iota // one pass: keep the events
	codexLines                   // first of two passes: keep the lines of the events
	codexFold                    // second of two passes: fold the kept lines' events
)

// ReadCodex reads a Codex CLI rollout.
//
// When r can be read twice (it has ReadAt, Seek and Size, as the
// *io.SectionReader ReadTranscript passes does), it is read twice from
// its current position: once to learn which lines a rollback drops, once
// to fold the others into the digest as they come, so that what is held
// in memory does not grow with what the lines hold. Otherwise every
// line's events are kept until the end.
func ReadCodex(r io.Reader, limits Limits) (*Digest, error) {
	return readCodex(r, limits, lineShapes().codex)
}

func readCodex(r io.Reader, limits Limits, sh *shape) (*Digest, error) {
	lim := limits.withDefaults()
	sec, twice := rereadable(r, lim.MaxFile)
	if twice {
		return readCodexTwice(sec, lim, sh)
	}
	c := &codexReader{d: &Digest{}}
	err := eachRecordAt(io.LimitReader(r, lim.MaxFile), lim, &c.d.Stats, sh, c.recordAt)
	if err != nil {
		return nil, err
	}
	want := srcItem
	if c.sawUserEvent {
		want = srcEvent
	}
	c.dropCodeMode()
	f := newFolder()
	for _, e := range c.events {
		if e.kind == evRequest && e.src != want {
			continue
		}
		foldEvent(f, c.cwd, e)
	}
	return c.finish(f)
}

// readCodexTwice reads a rollout in two passes.
func readCodexTwice(sec *io.SectionReader, lim Limits, sh *shape) (*Digest, error) {
	first := &codexReader{d: &Digest{}, mode: codexLines}
	firstShape := sh
	if sh != nil {
		firstShape = lineShapes().codexRollback
	}
	if err := eachRecordAt(io.NewSectionReader(sec, 0, sec.Size()), lim, &first.d.Stats, firstShape, first.recordAt); err != nil {
		return nil, err
	}
	keep := first.lines[:0]
	for _, n := range first.lines {
		if len(keep) == 0 || keep[len(keep)-1] != n {
			keep = append(keep, n)
		}
	}
	c := &codexReader{d: &Digest{}, mode: codexFold, keep: keep, fold: newFolder(), want: srcItem, root: first.cwd,
		nestedCmd: first.nestedCmd, nestedFile: first.nestedFile}
	if first.sawUserEvent {
		c.want = srcEvent
	}
	if err := eachRecordAt(io.NewSectionReader(sec, 0, sec.Size()), lim, &c.d.Stats, sh, c.recordAt); err != nil {
		return nil, err
	}
	c.d.Cancelled = first.lastTurnCancelled() // the first pass saw the rollbacks
	return c.finish(c.fold)
}

// finish fills in the digest from what was read and folded.
func (c *codexReader) finish(f *folder) (*Digest, error) {
	d := c.d
	d.CWD = c.cwd
	if t, ok := parseTime(c.started); ok {
		d.Session.StartedAt = &t
	} else {
		d.Session.StartedAt = timePtr(c.span.first)
	}
	d.Session.LastActivity = timePtr(c.span.last)
	d.Title = c.title
	if c.mode != codexFold {
		d.Cancelled = c.lastTurnCancelled()
	}
	f.finish(d)
	if err := finishCommon(d, Codex); err != nil {
		return nil, err
	}
	return d, nil
}

// foldEvent normalises an event's paths against cwd and folds it.
func foldEvent(f *folder, cwd string, e event) {
	for i := range e.ops {
		e.ops[i].path = normPath(cwd, e.ops[i].path)
	}
	f.add(e)
}

func (c *codexReader) recordAt(n int, m map[string]any) {
	c.line = n
	c.record(m)
}

func (c *codexReader) record(m map[string]any) {
	c.ts = getStr(m, "timestamp")
	t, ok := getTime(m, "timestamp")
	c.span.add(t, ok)
	typ := getStr(m, "type")
	p := getMap(m, "payload")
	if p == nil {
		switch {
		case codexItemTypes()[typ]:
			c.item(m)
			return
		case typ == "" && getStr(m, "id") != "" && !c.metaSeen:
			c.meta(m) // the oldest rollouts open with a bare meta line
			return
		case typ == "" && getStr(m, "record_type") != "":
			return
		}
	}
	switch typ {
	case "session_meta":
		if p != nil {
			c.meta(p)
		}
	case "turn_context":
		if p != nil {
			if cwd := getStr(p, "cwd"); cwd != "" {
				c.turnCWD = cwd
			}
		}
	case "event_msg":
		if p != nil {
			c.eventMsg(p)
		}
	case "response_item":
		if p != nil {
			c.item(p)
		}
	case "compacted":
		if p != nil {
			c.add(evCompact(firstNonEmpty(codexCompactSummary(getStr(p, "message")), remoteCompaction(getStr(m, "timestamp")))))
		}
	case "world_state", "token_usage_record":
		// Codex 0.169.0's: the environment the model was given (AGENTS.md,
		// skills, cwd, date, permissions; turn_context has the cwd) and
		// each response's tokens (token_count has the totals). Neither is
		// the session's work.
	case "inter_agent_communication":
		// What agents of one thread tree tell each other
		// (RolloutItem::InterAgentCommunication, openai/codex
		// codex-rs/protocol/src/protocol.rs): not the user's, and what a
		// subagent did is folded in from its own rollout.
	default:
		c.d.Stats.unknownType(typ)
	}
}

func (c *codexReader) add(e event) {
	switch c.mode {
	case codexLines:
		c.lines = append(c.lines, int32(c.line))
	case codexFold:
		for len(c.keep) > 0 && int(c.keep[0]) < c.line {
			c.keep = c.keep[1:]
		}
		if len(c.keep) > 0 && int(c.keep[0]) == c.line && (e.kind != evRequest || e.src == c.want) {
			foldEvent(c.fold, c.root, e)
		}
	default:
		c.events = append(c.events, e)
	}
}

// count is the number of events so far.
func (c *codexReader) count() int {
	if c.mode == codexLines {
		return len(c.lines)
	}
	return len(c.events)
}

func (c *codexReader) meta(p map[string]any) {
	if c.metaSeen {
		return // a resumed or forked rollout repeats its parent's meta
	}
	c.metaSeen = true
	c.d.Session.ID = getStr(p, "id")
	var parent string
	c.d.Subagent, parent = codexSubagentOf(p)
	c.d.Parent = shortenHead(parent, maxID)
	c.d.Session.AgentVersion = getStr(p, "cli_version")
	c.cwd = getStr(p, "cwd")
	c.started = getStr(p, "timestamp")
	if g := getMap(p, "git"); g != nil {
		c.d.GitBranch = getStr(g, "branch")
	}
}

func (c *codexReader) eventMsg(p map[string]any) {
	switch getStr(p, "type") {
	case "user_message":
		text := getStr(p, "message")
		if strings.TrimSpace(text) == "" {
			return
		}
		c.sawUserEvent = true
		c.turnsEvent = append(c.turnsEvent, c.count())
		e := evReq(codexRequest(text))
		e.src = srcEvent
		c.add(e)
	case "agent_message":
		c.add(evAgent("", getStr(p, "message")))
	case "task_complete":
		if msg := getStr(p, "last_agent_message"); strings.TrimSpace(msg) != "" {
			c.add(evAgent("", msg))
		}
	case "token_count":
		total := getMap(getMap(p, "info"), "total_token_usage")
		if total == nil {
			return
		}
		in, cached := getCount(total, "input_tokens"), getCount(total, "cached_input_tokens")
		c.add(event{kind: evTokens, set: true, tokens: handoff.Tokens{
			Input:     max(in-cached, 0),
			Output:    getCount(total, "output_tokens"),
			CacheRead: cached,
		}})
	case "exec_command_end":
		if id := getStr(p, "call_id"); !c.itemCalls[id] {
			// A call no response item made: a code-mode script's (or the
			// user's own shell command), kept in an extended rollout. A
			// forked subagent's rollout begins with its parent's events
			// (see patch_apply_end): those are the parent's commands.
			c.nestedCmd = true
			if !c.d.Subagent {
				c.add(evCmd(id, commandString(p["command"])))
			}
		}
		exit := exitCode(p["exit_code"])
		out := firstNonEmpty(getStr(p, "aggregated_output"), getStr(p, "formatted_output"),
			strings.TrimSpace(getStr(p, "stdout")+"\n"+getStr(p, "stderr")))
		if getStr(p, "status") == "declined" || codexRejected(out) {
			// The user declined it: it never ran (its exit code, -1, is
			// none).
			c.add(evStatus(getStr(p, "call_id"), handoff.StatusRejected, out))
			return
		}
		c.add(evOut(getStr(p, "call_id"), exit, exit != nil && *exit != 0, exit != nil, out))
	case "patch_apply_end":
		id := getStr(p, "call_id")
		if !c.itemCalls[id] {
			c.nestedFile = true
		}
		if ok, isBool := p["success"].(bool); isBool {
			// A subagent forked with its parent's context begins with the
			// parent's events, its patch_apply_end among them, but none of
			// its tool calls (keep_forked_rollout_item, openai/codex
			// codex-rs/core/src/agent/control.rs): a subagent's patch counts
			// only when its call is in the rollout, so that folding it into
			// the parent does not count the parent's edits twice.
			if ok && !c.patched[id] && (!c.d.Subagent || c.calls[id]) {
				c.add(evOps(id, changeOps(getMap(p, "changes"))...))
			}
			c.add(evOut(id, nil, !ok, true, firstNonEmpty(getStr(p, "stderr"), getStr(p, "stdout"))))
		}
	case "context_compacted":
		// Written beside a remote compaction, whose summary is encrypted
		// (openai/codex protocol EventMsg::ContextCompacted): that it
		// happened, and when, is all there is to tell.
		c.add(evCompact(remoteCompaction(c.ts)))
	case "thread_name_updated":
		if name := getStr(p, "thread_name"); strings.TrimSpace(name) != "" {
			c.title = name
		}
	case "turn_aborted":
		// The user stopped the turn (TurnAbortReason::Interrupted; the
		// others, replaced, review_ended and budget_limited, are Codex's
		// own doing): openai/codex codex-rs/protocol/src/protocol.rs.
		if getStr(p, "reason") == "interrupted" {
			c.abortEvent, c.abortItem = len(c.turnsEvent)+1, len(c.turnsItem)+1
		}
	case "item_completed":
		// Plan mode's proposed plan is kept as a completed Plan item
		// (TurnItem::Plan {id, text}, codex-rs/protocol/src/items.rs;
		// persisted by codex-rs/rollout/src/policy.rs).
		// An event, so that a rollback drops it with its turn.
		switch item := getMap(p, "item"); getStr(item, "type") {
		case "Plan":
			if text := strings.TrimSpace(getStr(item, "text")); text != "" || c.mode == codexLines {
				c.add(event{kind: evPlan, text: shortenMiddle(text, MaxCompaction)})
			}
		case "CommandExecution", "FileChange":
			c.completedItem(item)
		case "UserMessage":
			c.completedUserMessage(item)
		}
	case "thread_goal_updated":
		// The thread's goal (/goal): ThreadGoalUpdatedEvent {goal:
		// ThreadGoal {objective, status}}, serialized in camelCase,
		// status active, paused, blocked, usageLimited, budgetLimited or
		// complete (openai/codex codex-rs/protocol/src/protocol.rs). The
		// last one stands.
		goal := getMap(p, "goal")
		if obj := strings.TrimSpace(getStr(goal, "objective")); obj != "" {
			status := firstNonEmpty(untrusted.OneLine(getStr(goal, "status"), 40), "set")
			c.d.Goal = shortenHead("Goal ("+status+"): "+obj, handoff.MaxItem)
		}
	case "thread_rolled_back":
		if n, ok := getInt(p, "num_turns"); ok && n > 0 {
			c.rollback(n)
		}
	}
}

// rollback drops the last n user turns. In the second of two passes
// the first has dropped them.
func (c *codexReader) rollback(n int64) {
	if c.mode == codexFold {
		return
	}
	turns := c.turnsEvent
	if len(turns) == 0 {
		turns = c.turnsItem
	}
	if len(turns) == 0 {
		return
	}
	cut := turns[0]
	if n < int64(len(turns)) {
		cut = turns[int64(len(turns))-n]
	}
	if c.mode == codexLines {
		c.lines = c.lines[:cut]
	} else {
		c.events = c.events[:cut]
		for len(c.codeMode) > 0 && c.codeMode[len(c.codeMode)-1].at >= cut {
			c.codeMode = c.codeMode[:len(c.codeMode)-1]
		}
	}
	c.turnsEvent = cutTurns(c.turnsEvent, cut)
	c.turnsItem = cutTurns(c.turnsItem, cut)
}

func cutTurns(turns []int, cut int) []int {
	for i, t := range turns {
		if t >= cut {
			return turns[:i]
		}
	}
	return turns
}

func (c *codexReader) item(p map[string]any) {
	switch getStr(p, "type") {
	case "function_call", "custom_tool_call", "local_shell_call":
		// The call is read from the response item: its completed item,
		// which 0.169 also writes, is not read again.
		if id := firstNonEmpty(getStr(p, "call_id"), getStr(p, "id")); id != "" {
			if c.itemCalls == nil {
				c.itemCalls = map[string]bool{}
			}
			c.itemCalls[id] = true
		}
	}
	if c.d.Subagent {
		switch getStr(p, "type") {
		case "function_call", "custom_tool_call", "local_shell_call":
			if c.calls == nil {
				c.calls = map[string]bool{}
			}
			c.calls[firstNonEmpty(getStr(p, "call_id"), getStr(p, "id"))] = true
		}
	}
	switch getStr(p, "type") {
	case "message":
		switch getStr(p, "role") {
		case "user":
			text := codexUserText(p)
			if text == "" {
				return
			}
			c.lastItemRequest = text
			c.turnsItem = append(c.turnsItem, c.count())
			e := evReq(codexRequest(text))
			e.src = srcItem
			c.add(e)
		case "assistant":
			c.add(evAgent("", strings.Join(contentParts(p["content"]), "\n")))
		}
	case "reasoning":
		// Never read: it may hold encrypted content.
	case "function_call":
		c.functionCall(getStr(p, "name"), getStr(p, "call_id"), p["arguments"])
	case "custom_tool_call":
		id, input := getStr(p, "call_id"), getStr(p, "input")
		if c.mode == codexLines {
			// The first pass reads no inputs (lineShapes().codexRollback): the
			// line makes an event, whatever its input turns out to be.
			c.add(evOps(id))
			return
		}
		switch getStr(p, "name") {
		case codeModeTool:
			c.codeModeExec(id, input)
		case "apply_patch":
			c.addPatch(id, c.patchOps(input, ""))
		case "shell", "shell_command", "exec_command":
			// A freeform tool's input: the arguments as JSON, or the
			// command itself.
			if args, ok := DecodeObject([]byte(input)); ok && args != nil {
				c.functionCall(getStr(p, "name"), id, args)
			} else {
				c.shell(id, input, "")
			}
		}
	case "local_shell_call":
		action := getMap(p, "action")
		if action == nil {
			return
		}
		id := firstNonEmpty(getStr(p, "call_id"), getStr(p, "id"))
		c.shell(id, commandString(action["command"]), getStr(action, "working_directory"))
	case "function_call_output", "custom_tool_call_output":
		exit, failed, known, text := codexOutcome(p["output"])
		id := getStr(p, "call_id")
		if codexRejected(text) {
			c.add(evStatus(id, handoff.StatusRejected, text))
			return
		}
		if n, ok := runningSession(text); ok && exit == nil {
			if c.running == nil {
				c.running = map[int64]string{}
			}
			if _, poll := c.polls[id]; !poll {
				c.running[n] = id
			}
		}
		if n, poll := c.polls[id]; poll {
			// A poll of a running command: its exit is the command's.
			delete(c.polls, id)
			if cmd, ok := c.running[n]; ok && exit != nil {
				delete(c.running, n)
				c.add(evOut(cmd, exit, failed, known, text))
				return
			}
		}
		c.add(evOut(id, exit, failed, known, text))
	}
}

// codexRejected reports whether a tool's output says the user declined
// it: Codex normalises a human's denial to these words (openai/codex
// codex-rs/core/src/tools/events.rs, ToolEmitter; exec_command_end then
// has status "declined").
func codexRejected(out string) bool {
	out = strings.TrimSpace(out)
	return out == "exec command rejected by user" || out == "patch rejected by user"
}

// runningSession reads the session id of a command that is still running
// from its output: Codex's unified exec tools say "Process running with
// session ID N" and take N in write_stdin's session_id
// (openai/codex codex-rs/core/src/tools/handlers/unified_exec.rs; the real
// rollout of Codex 0.125.0 in the project's test data shows both).
func runningSession(out string) (int64, bool) {
	const prefix = "Process running with session ID "
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), prefix); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

func (c *codexReader) functionCall(name, id string, rawArgs any) {
	var args map[string]any
	switch a := rawArgs.(type) {
	case string:
		args, _ = DecodeObject([]byte(a))
	case map[string]any:
		args = a
	}
	if args == nil {
		return
	}
	switch name {
	case "shell", "container.exec", "local_shell", "shell_command":
		c.shell(id, commandString(args["command"]), getStr(args, "workdir"))
	case "exec_command":
		c.shell(id, commandString(firstValue(args, "cmd", "command")), getStr(args, "workdir"))
	case "apply_patch":
		c.addPatch(id, c.patchOps(firstNonEmpty(getStr(args, "input"), getStr(args, "patch")), getStr(args, "workdir")))
	case "write_stdin":
		if n, ok := getInt(args, "session_id"); ok {
			if c.polls == nil {
				c.polls = map[string]int64{}
			}
			c.polls[id] = n
		}
	case "update_plan":
		if plan, ok := args["plan"].([]any); ok {
			c.add(evTodoList(parseTodos(plan, "step", "content")))
		}
	}
}

// shell records a shell command, or the edits of an apply_patch run
// through the shell.
func (c *codexReader) shell(id, cmd, workdir string) {
	if strings.TrimSpace(cmd) == "" {
		return
	}
	// Codex runs a patch given to its shell tool itself, under either
	// name, often as a heredoc ("applypatch <<'PATCH' … PATCH"): openai/codex
	// codex-rs/apply-patch (APPLY_PATCH_COMMANDS = ["apply_patch",
	// "applypatch"]) and its heredoc parsing in invocation.rs.
	if i := strings.Index(cmd, "*** Begin Patch"); i >= 0 {
		if head := cmd[:i]; strings.Contains(head, "apply_patch") || strings.Contains(head, "applypatch") {
			c.addPatch(id, c.patchOps(cmd[i:], workdir))
			return
		}
	}
	c.add(evCmd(id, cmd))
}

// addPatch records the file operations of a patch read from its text.
func (c *codexReader) addPatch(id string, ops []fileOp) {
	if len(ops) > 0 && id != "" {
		if c.patched == nil {
			c.patched = map[string]bool{}
		}
		c.patched[id] = true
	}
	c.add(evOps(id, ops...))
}

// changeOps reads patch_apply_end's changes: absolute path → {type: add,
// update or delete, move_path}, as Codex's protocol FileChange writes them
// (openai/codex codex-rs/protocol, FileChange::{Add, Delete, Update}).
// completedUserMessage reads a completed UserMessage item
// ({content: [{type: text, text}]}, 0.169.0) as the user message response
// item it follows when there is one: it is read only when it is not the
// text of the user message item just before it (a paginated rollout holds
// the completed item alone).
func (c *codexReader) completedUserMessage(item map[string]any) {
	text := codexUserText(item)
	if text == "" {
		return
	}
	if text == c.lastItemRequest {
		c.lastItemRequest = ""
		return
	}
	c.turnsItem = append(c.turnsItem, c.count())
	e := evReq(codexRequest(text))
	e.src = srcItem
	c.add(e)
}

// completedItem reads a completed command or file change
// (ThreadItem::CommandExecution {id, command, cwd, status, exit_code,
// aggregated_output} and FileChange {id, changes, status, stderr}, as
// 0.169.0 writes them in item_completed events) when no response item of
// the rollout made that call: a rollout written with history_mode
// "paginated" (an app-server thread, 0.154) holds the items alone. Each
// makes two events in every pass, so rollbacks count alike.
func (c *codexReader) completedItem(item map[string]any) {
	id := getStr(item, "id")
	if id == "" || c.itemCalls[id] {
		return
	}
	status := getStr(item, "status")
	switch getStr(item, "type") {
	case "CommandExecution":
		c.nestedCmd = true
		c.add(evCmd(id, commandString(item["command"])))
		out := getStr(item, "aggregated_output")
		if status == "declined" || codexRejected(out) {
			c.add(evStatus(id, handoff.StatusRejected, out))
			return
		}
		exit := exitCode(item["exit_code"])
		failed := status == "failed" || exit != nil && *exit != 0
		c.add(evOut(id, exit, failed, exit != nil || status == "completed" || failed, out))
	case "FileChange":
		c.nestedFile = true
		var ops []fileOp
		if status == "completed" {
			ops = changeOps(getMap(item, "changes"))
		}
		c.add(evOps(id, ops...))
		c.add(evOut(id, nil, status == "failed", status != "", getStr(item, "stderr")))
	}
}

func changeOps(changes map[string]any) []fileOp {
	paths := make([]string, 0, len(changes))
	for p := range changes {
		paths = append(paths, p)
	}
	slices.Sort(paths) // a JSON object has no order: make ours fixed
	var ops []fileOp
	for _, p := range paths {
		if len(ops) >= maxFiles {
			break
		}
		ch, _ := changes[p].(map[string]any)
		if ch == nil || strings.TrimSpace(p) == "" {
			continue
		}
		switch getStr(ch, "type") {
		case "add":
			ops = append(ops, fileOp{path: p, op: opCreate, n: 1})
		case "delete":
			ops = append(ops, fileOp{path: p, op: opDelete, n: 1})
		case "update":
			if to := getStr(ch, "move_path"); to != "" {
				ops = append(ops, fileOp{path: p, op: opDelete, n: 1}, fileOp{path: to, op: opCreate, n: 1})
			} else {
				ops = append(ops, fileOp{path: p, op: opEdit, n: 1})
			}
		}
	}
	return ops
}

// patchOps reads the file headers of an apply_patch patch. Relative paths
// are resolved against the directory the patch ran in.
func (c *codexReader) patchOps(patch, workdir string) []fileOp {
	dir := firstNonEmpty(joinPath(c.turnCWD, workdir), c.turnCWD, c.cwd)
	var ops []fileOp
	var last string
	for line := range strings.Lines(patch) {
		if len(ops) >= maxFiles {
			break
		}
		line = strings.TrimRight(line, "\r\n")
		if !strings.HasPrefix(line, "*** ") {
			continue
		}
		op, p := opKind(0), ""
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			op, p = opCreate, line[len("*** Add File: "):]
		case strings.HasPrefix(line, "*** Update File: "):
			op, p = opEdit, line[len("*** Update File: "):]
		case strings.HasPrefix(line, "*** Delete File: "):
			op, p = opDelete, line[len("*** Delete File: "):]
		case strings.HasPrefix(line, "*** Move to: "):
			// The updated file moves: the old path goes, the new one comes.
			if n := len(ops); n > 0 && ops[n-1].path == last && ops[n-1].op == opEdit {
				ops[n-1].op = opDelete
				op, p = opCreate, line[len("*** Move to: "):]
			}
		}
		p = strings.TrimSpace(p)
		if op == 0 || p == "" {
			continue
		}
		last = joinPath(dir, p)
		ops = append(ops, fileOp{path: last, op: op, n: 1})
	}
	return ops
}

// codexOutcome reads a tool call's output: plain text that may state the
// exit code, a JSON object {output, metadata: {exit_code}}, a list of
// content items, or an object with a success flag.
func codexOutcome(v any) (exit *int, failed, known bool, text string) {
	var success *bool
	switch o := v.(type) {
	case string:
		text = o
		if obj, ok := DecodeObject([]byte(strings.TrimSpace(o))); ok {
			if out, isStr := obj["output"].(string); isStr {
				text = out
				exit = exitCode(getMap(obj, "metadata")["exit_code"])
			}
		}
	case []any:
		text = strings.Join(contentParts(o), "\n")
	case map[string]any:
		text = firstNonEmpty(getStr(o, "content"), strings.Join(contentParts(o["content"]), "\n"))
		if b, ok := o["success"].(bool); ok {
			success = &b
		}
	}
	// The patterns (?m)^Process running with session ID and
	// (?m)^(?:Exit code:|Process exited with code) (-?\d{1,10})\s*$.
	if exit == nil && !lineWithPrefix(text, "Process running with session ID") {
		if n, ok := exitLine(text, "Exit code:", "Process exited with code"); ok {
			exit = parseExit(n)
		}
	}
	failed = (exit != nil && *exit != 0) || (success != nil && !*success)
	known = exit != nil || success != nil
	return exit, failed, known, text
}

// contentParts returns the text of each part of a message content.
func contentParts(v any) []string {
	switch c := v.(type) {
	case string:
		return []string{c}
	case []any:
		var out []string
		for _, p := range c {
			switch p := p.(type) {
			case string:
				out = append(out, p)
			case map[string]any:
				if t, ok := p["text"].(string); ok {
					out = append(out, t)
				}
			}
		}
		return out
	}
	return nil
}

// commandString turns a command given as a string or an argument vector
// into one shell line; "bash -lc SCRIPT" becomes SCRIPT.
func commandString(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var argv []string
		for _, a := range c {
			s, ok := a.(string)
			if !ok {
				return ""
			}
			argv = append(argv, s)
		}
		if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
			switch path.Base(argv[0]) {
			case "bash", "sh", "zsh", "dash", "fish":
				return argv[2]
			}
		}
		for i, a := range argv {
			argv[i] = shellQuote(a)
		}
		return strings.Join(argv, " ")
	}
	return ""
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func firstValue(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// codexUserText is what the user wrote in a user message response item:
// its text parts without the ones Codex injects; "" when none is left.
func codexUserText(item map[string]any) string {
	var kept []string
	for _, part := range contentParts(item["content"]) {
		if t := strings.TrimSpace(part); t != "" && !hasAnyPrefix(t, codexInjected) && !isTaggedBlock(t) {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, "\n\n")
}

// codexLine gathers what discovery shows from a rollout line: the
// session_meta's id, working directory, start, Codex version and whether
// the thread is a subagent's; the first request; the name the user gave
// the thread.
func (p *prober) codexLine(m map[string]any, head bool) {
	pl := getMap(m, "payload")
	if typ := getStr(m, "type"); typ != "" && typ != "session_meta" {
		p.content = true
	}
	switch getStr(m, "type") {
	case "response_item":
		// Codex 0.169 writes no user_message events: the first request
		// is the first user message item (what is left of it once the
		// injected context is taken out).
		if head && p.firstReq == "" && getStr(pl, "type") == "message" && getStr(pl, "role") == "user" {
			p.firstReq = codexRequest(codexUserText(pl))
		}
	case "session_meta":
		if !p.metaSeen && pl != nil {
			p.metaSeen = true
			p.id, p.cwd = getStr(pl, "id"), getStr(pl, "cwd")
			p.subagent, _ = codexSubagentOf(pl)
			p.version = getStr(pl, "cli_version")
			if t, ok := getTime(pl, "timestamp"); ok {
				p.started = t
			}
		}
	case "event_msg":
		switch getStr(pl, "type") {
		case "user_message":
			if head && p.firstReq == "" {
				p.firstReq = codexRequest(getStr(pl, "message"))
			}
		case "thread_name_updated":
			p.thread = firstNonEmpty(getStr(pl, "thread_name"), p.thread)
		case "item_completed":
			if item := getMap(pl, "item"); head && p.firstReq == "" && getStr(item, "type") == "UserMessage" {
				p.firstReq = codexRequest(codexUserText(item))
			}
		}
	}
}

// CodexDirs are the agent's own directories, most preferred first, under
// home unless its environment variables move them (agent.Agent.OwnDirs).
func CodexDirs(home string, getenv func(string) string) []string {
	if d := getenv("CODEX_HOME"); d != "" {
		return []string{d}
	}
	return []string{filepath.Join(home, ".codex")}
}

// CodexSessionsDir is the directory under each of CodexDirs that holds
// its transcripts.
const CodexSessionsDir = "sessions"

package codex

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Where a user request came from, for deduplication.
const (
	srcEvent uint8 = 1 // event_msg user_message
	srcItem  uint8 = 2 // response_item message with role user
)

// isItemType says whether t is a response item type, also found bare
// (without the wrapper) in the oldest rollouts.
func isItemType(t string) bool {
	switch t {
	case "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
		"custom_tool_call_output", "local_shell_call", "web_search_call":
		return true
	}
	return false
}

// Text Codex injects as user messages: what it calls contextual user
// fragments and leaves out of a thread's user turns (openai/codex
// codex-rs/core/src/context/contextual_user_message.rs,
// CONTEXTUAL_USER_FRAGMENTS: AGENTS.md, environment context, skills,
// user shell commands, aborted turns, subagent notifications), and the
// older <user_instructions> and <permissions instructions> blocks. Only
// response items carry them: the user_message events a rollout also
// holds are what the user typed.
var injected = []string{
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

// requestBegin is the line after which Codex's IDE extension and
// desktop app put what the user typed, below the context they add ("#
// Context from my IDE setup:", "# Files mentioned by the user:"):
// USER_MESSAGE_BEGIN, openai/codex codex-rs/protocol/src/protocol.rs.
const requestBegin = "## My request for Codex:"

// request is what the user typed in a user message: what follows
// requestBegin when it is there, as Codex itself takes it for a thread's
// title and preview (strip_user_message_prefix,
// codex-rs/rollout/src/metadata.rs).
func request(text string) string {
	if i := strings.Index(text, requestBegin); i >= 0 {
		return strings.TrimSpace(text[i+len(requestBegin):])
	}
	return text
}

// userText is what the user wrote in a user message: its text parts
// without the ones Codex injects; "" when none is left.
func userText(content transcript.TextOrJSON) string {
	var kept []string
	for _, part := range contentParts(content) {
		if t := strings.TrimSpace(part); t != "" && !hasAnyPrefix(t, injected) && !isTaggedBlock(t) {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, "\n\n")
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// summaryPrefix opens the message of a Codex compaction, followed by a
// newline and the summary (codex-rs/core/templates/compact/
// summary_prefix.md and compact.rs, format!("{SUMMARY_PREFIX}\n{summary}")).
const summaryPrefix = "Another language model started to solve this problem"

// compactSummary is a Codex compaction's summary without the prefix Codex
// writes for the model.
func compactSummary(text string) string {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, summaryPrefix) {
		return text
	}
	if _, rest, ok := strings.Cut(text, "\n"); ok {
		return strings.TrimSpace(rest)
	}
	if _, rest, ok := strings.Cut(text, "assist with your own analysis:"); ok {
		return strings.TrimSpace(rest)
	}
	return ""
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

// reader reads a rollout in one of two passes. The first keeps the line
// of each event instead of the event (a rollback drops whole lines); the
// second gives the events of the lines that are left to the Builder as
// they come, so that what is held in memory does not grow with what the
// lines hold. Both run the same code on every line, so that they agree on
// which lines make events.
type reader struct {
	b     *transcript.Builder // the second pass's; nil in the first
	first bool
	// firstPayload holds the payload of the line the first pass reads.
	firstPayload payload

	metaSeen     bool
	subagent     bool
	started      string
	cwd          string
	turnCWD      string
	title        string
	sawUserEvent bool
	turnsEvent   []int // indexes into lines where a turn began, by source
	turnsItem    []int

	line  int     // the number of the line being read, from 1
	lines []int32 // first pass: the line of each event
	keep  []int32 // second pass: the lines whose events count, ascending
	want  uint8   // second pass: the source of the requests that count

	// itemCalls are the call ids of the rollout's tool call response
	// items (completedItem reads only calls that have none);
	// lastItemRequest is the text of the last user message response item,
	// which the completed UserMessage after it repeats.
	itemCalls       map[string]bool
	lastItemRequest string
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
	// then not read from the scripts (codemode.go). The second pass knows
	// them from the first.
	nestedCmd, nestedFile bool
}

// lastTurnCancelled says whether the user interrupted the last user turn
// that is left (after rollbacks).
func (c *reader) lastTurnCancelled() bool {
	if c.sawUserEvent {
		return c.abortEvent != 0 && c.abortEvent == len(c.turnsEvent)+1
	}
	return c.abortItem != 0 && c.abortItem == len(c.turnsItem)+1
}

// read reads a rollout in two passes: the first learns which lines a
// rollback drops, the second folds the others into the digest.
func read(r *io.SectionReader, lim transcript.Limits) (*transcript.Digest, error) {
	first := &reader{first: true}
	var st transcript.Stats
	if err := first.each(io.NewSectionReader(r, 0, r.Size()), lim, &st); err != nil {
		return nil, err
	}
	keep := first.lines[:0]
	for _, n := range first.lines {
		if len(keep) == 0 || keep[len(keep)-1] != n {
			keep = append(keep, n)
		}
	}
	c := &reader{b: transcript.NewBuilder(), keep: keep, want: srcItem,
		nestedCmd: first.nestedCmd, nestedFile: first.nestedFile}
	if first.sawUserEvent {
		c.want = srcEvent
	}
	// Paths are made relative to the directory the session began in.
	c.b.SetCWD(first.cwd)
	c.b.Observe(lim.Observe)
	d := c.b.Digest()
	if err := c.each(io.NewSectionReader(r, 0, r.Size()), lim, &d.Stats); err != nil {
		return nil, err
	}
	d.CWD = c.cwd
	if t, ok := transcript.ParseTime(c.started); ok {
		d.Session.StartedAt = &t
	}
	d.Title = c.title
	d.Cancelled = first.lastTurnCancelled() // the first pass saw the rollbacks
	return c.b.Finish(agentName)
}

// each reads the lines of r into c.
func (c *reader) each(r io.Reader, lim transcript.Limits, st *transcript.Stats) error {
	return transcript.EachLine(r, lim, st, func(b []byte) error {
		var l line
		if c.first {
			var f firstLine
			if err := transcript.Decode(b, &f); err != nil {
				return err
			}
			l = line{Timestamp: f.Timestamp, Type: f.Type, RecordType: f.RecordType}
			if f.Payload != nil {
				f.Payload.fill(&c.firstPayload)
				l.Payload = &c.firstPayload
			}
		} else if err := transcript.Decode(b, &l); err != nil {
			return err
		}
		c.line++
		c.record(b, &l)
		return nil
	})
}

// emit says whether the event about to be made counts: the first pass
// notes its line and makes none; the second makes it when its line is
// kept.
func (c *reader) emit() bool {
	if c.first {
		c.lines = append(c.lines, int32(c.line))
		return false
	}
	for len(c.keep) > 0 && int(c.keep[0]) < c.line {
		c.keep = c.keep[1:]
	}
	return len(c.keep) > 0 && int(c.keep[0]) == c.line
}

// emitRequest is emit for a request from src: of the two sources, only
// the one the rollout uses for its requests counts.
func (c *reader) emitRequest(src uint8) bool {
	return c.emit() && src == c.want
}

// count is the number of events so far (in the first pass).
func (c *reader) count() int { return len(c.lines) }

func (c *reader) record(raw []byte, l *line) {
	c.ts = l.Timestamp
	if c.b != nil {
		t, _ := transcript.ParseTime(l.Timestamp)
		c.b.Time(t)
	}
	p := l.Payload
	if p == nil {
		switch {
		case isItemType(l.Type):
			var bare payload
			if transcript.Decode(raw, &bare) == nil {
				c.item(&bare)
			}
			return
		case l.Type == "" && !c.metaSeen:
			// The oldest rollouts open with a bare meta line.
			var bare payload
			if transcript.Decode(raw, &bare) == nil && bare.ID != "" {
				c.meta(&bare)
				return
			}
		}
		if l.Type == "" && l.RecordType != "" {
			return
		}
	}
	switch l.Type {
	case "session_meta":
		if p != nil {
			c.meta(p)
		}
	case "turn_context":
		if p != nil && p.CWD != "" {
			c.turnCWD = p.CWD
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
		if p != nil && c.emit() {
			c.b.Compaction(transcript.FirstNonEmpty(compactSummary(p.Message), remoteCompaction(l.Timestamp)))
		}
	case "world_state", "token_usage_record":
		// Codex 0.169.0's: the environment the model was given (AGENTS.md,
		// skills, cwd, date, permissions; turn_context has the cwd) and
		// each response's tokens (token_count has the totals). Neither is
		// the session's work.
	case "inter_agent_communication", "inter_agent_communication_metadata":
		// What agents of one thread tree tell each other
		// (RolloutItem::InterAgentCommunication, openai/codex
		// codex-rs/protocol/src/protocol.rs), and since 0.171.0 whether
		// such a message starts a turn ({"trigger_turn"}): not the user's,
		// and what a subagent did is folded in from its own rollout.
	default:
		if c.b != nil {
			c.b.Digest().Stats.UnknownType(l.Type)
		}
	}
}

func (c *reader) meta(p *payload) {
	if c.metaSeen {
		return // a resumed or forked rollout repeats its parent's meta
	}
	c.metaSeen = true
	var parent string
	c.subagent, parent = subagentOf(p)
	c.cwd = p.CWD
	c.started = p.Timestamp
	if c.b == nil {
		return
	}
	d := c.b.Digest()
	d.Session.ID = p.ID
	d.Subagent = c.subagent
	d.Parent = transcript.ShortenHead(parent, transcript.MaxID)
	d.Session.AgentVersion = p.CLIVersion
	if p.Git != nil {
		d.GitBranch = p.Git.Branch
	}
}

func (c *reader) eventMsg(p *payload) {
	switch p.Type {
	case "user_message":
		if strings.TrimSpace(p.Message) == "" {
			return
		}
		c.sawUserEvent = true
		c.turnsEvent = append(c.turnsEvent, c.count())
		if c.emitRequest(srcEvent) {
			c.b.Request(request(p.Message))
		}
	case "agent_message":
		if c.emit() {
			c.b.AgentMessage("", p.Message)
		}
	case "task_complete":
		if strings.TrimSpace(p.LastAgentMessage) != "" && c.emit() {
			c.b.AgentMessage("", p.LastAgentMessage)
		}
	case "token_count":
		if p.Info == nil || p.Info.Total == nil {
			return
		}
		if c.emit() {
			t := p.Info.Total
			in, cached := max(t.Input, 0), max(t.Cached, 0)
			c.b.TotalTokens(handoff.Tokens{Input: max(in-cached, 0), Output: max(t.Output, 0), CacheRead: cached})
		}
	case "exec_command_end":
		id := p.CallID
		if !c.itemCalls[id] {
			// A call no response item made: a code-mode script's (or the
			// user's own shell command), kept in an extended rollout. A
			// forked subagent's rollout begins with its parent's events
			// (see patch_apply_end): those are the parent's commands.
			c.nestedCmd = true
			if !c.subagent && c.emit() {
				c.b.Command(id, commandOf(p.Command))
			}
		}
		exit := transcript.ExitCode(p.ExitCode)
		out := transcript.FirstNonEmpty(p.AggregatedOutput, p.FormattedOutput, strings.TrimSpace(p.Stdout+"\n"+p.Stderr))
		if p.Status == "declined" || rejected(out) {
			// The user declined it: it never ran (its exit code, -1, is
			// none).
			if c.emit() {
				c.b.Status(id, handoff.StatusRejected, out)
			}
			return
		}
		if c.emit() {
			c.b.OutcomeKnown(id, exit, exit != nil && *exit != 0, exit != nil, out)
		}
	case "patch_apply_end":
		id := p.CallID
		if !c.itemCalls[id] {
			c.nestedFile = true
		}
		if p.Success != nil {
			ok := *p.Success
			// A subagent forked with its parent's context begins with the
			// parent's events, its patch_apply_end among them, but none of
			// its tool calls (keep_forked_rollout_item, openai/codex
			// codex-rs/core/src/agent/control.rs): a subagent's patch counts
			// only when its call is in the rollout, so that folding it into
			// the parent does not count the parent's edits twice.
			if ok && !c.patched[id] && (!c.subagent || c.calls[id]) && c.emit() {
				c.b.Files(id, changeOps(p.Changes)...)
			}
			if c.emit() {
				c.b.OutcomeKnown(id, nil, !ok, true, transcript.FirstNonEmpty(p.Stderr, p.Stdout))
			}
		}
	case "context_compacted":
		// Written beside a remote compaction, whose summary is encrypted
		// (openai/codex protocol EventMsg::ContextCompacted): that it
		// happened, and when, is all there is to tell.
		if c.emit() {
			c.b.Compaction(remoteCompaction(c.ts))
		}
	case "thread_name_updated":
		if strings.TrimSpace(p.ThreadName) != "" {
			c.title = p.ThreadName
		}
	case "turn_aborted":
		// The user stopped the turn (TurnAbortReason::Interrupted; the
		// others, replaced, review_ended and budget_limited, are Codex's
		// own doing): openai/codex codex-rs/protocol/src/protocol.rs.
		if p.Reason == "interrupted" {
			c.abortEvent, c.abortItem = len(c.turnsEvent)+1, len(c.turnsItem)+1
		}
	case "item_completed":
		if p.Item == nil {
			return
		}
		switch item := p.Item; item.Type {
		case "Plan":
			// Plan mode's proposed plan is kept as a completed Plan item
			// (TurnItem::Plan {id, text}, codex-rs/protocol/src/items.rs;
			// persisted by codex-rs/rollout/src/policy.rs). An event, so
			// that a rollback drops it with its turn.
			if text := strings.TrimSpace(item.Text); text != "" && c.emit() {
				c.b.Plan(text, "")
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
		if p.Goal == nil || c.b == nil {
			return
		}
		if obj := strings.TrimSpace(p.Goal.Objective); obj != "" {
			status := transcript.FirstNonEmpty(untrusted.OneLine(p.Goal.Status, 40), "set")
			c.b.Digest().Goal = transcript.ShortenHead("Goal ("+status+"): "+obj, handoff.MaxItem)
		}
	case "thread_rolled_back":
		if n, ok := transcript.Int(p.NumTurns); ok && n > 0 {
			c.rollback(n)
		}
	}
}

// rollback drops the last n user turns. In the second pass the first has
// dropped them.
func (c *reader) rollback(n int64) {
	if !c.first {
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
	c.lines = c.lines[:cut]
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

func (c *reader) item(p *payload) {
	switch p.Type {
	case "function_call", "custom_tool_call", "local_shell_call":
		// The call is read from the response item: its completed item,
		// which 0.169 also writes, is not read again.
		id := transcript.FirstNonEmpty(p.CallID, p.ID)
		if id != "" {
			if c.itemCalls == nil {
				c.itemCalls = map[string]bool{}
			}
			c.itemCalls[id] = true
		}
		if c.subagent {
			if c.calls == nil {
				c.calls = map[string]bool{}
			}
			c.calls[id] = true
		}
	}
	switch p.Type {
	case "message":
		switch p.Role {
		case "user":
			text := userText(p.Content)
			if text == "" {
				return
			}
			c.lastItemRequest = text
			c.turnsItem = append(c.turnsItem, c.count())
			if c.emitRequest(srcItem) {
				c.b.Request(request(text))
			}
		case "assistant":
			if c.emit() {
				c.b.AgentMessage("", strings.Join(contentParts(p.Content), "\n"))
			}
		}
	case "reasoning":
		// Never read: it may hold encrypted content.
	case "function_call":
		var args toolArgs
		if decodeArgs(p.Arguments, &args) {
			c.functionCall(p.Name, p.CallID, &args)
		}
	case "custom_tool_call":
		if c.first {
			// The first pass reads no inputs: the line makes an event,
			// whatever its input turns out to be.
			c.emit()
			return
		}
		id, input := p.CallID, p.Input
		switch p.Name {
		case codeModeTool:
			c.codeModeExec(id, input)
		case "apply_patch":
			c.addPatch(id, c.patchOps(input, ""))
		case "shell", "shell_command", "exec_command":
			// A freeform tool's input: the arguments as JSON, or the
			// command itself.
			var args toolArgs
			if transcript.Decode([]byte(input), &args) == nil {
				c.functionCall(p.Name, id, &args)
			} else {
				c.shell(id, input, "")
			}
		}
	case "local_shell_call":
		if p.Action == nil {
			return
		}
		c.shell(transcript.FirstNonEmpty(p.CallID, p.ID), commandOf(p.Action.Command), p.Action.WorkingDirectory)
	case "function_call_output", "custom_tool_call_output":
		c.output(p.CallID, p.Output)
	}
}

// output reads a tool call's output.
func (c *reader) output(id string, raw transcript.TextOrJSON) {
	exit, failed, known, text := outcome(raw)
	if rejected(text) {
		if c.emit() {
			c.b.Status(id, handoff.StatusRejected, text)
		}
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
			if c.emit() {
				c.b.OutcomeKnown(cmd, exit, failed, known, text)
			}
			return
		}
	}
	if c.emit() {
		c.b.OutcomeKnown(id, exit, failed, known, text)
	}
}

// rejected reports whether a tool's output says the user declined it:
// Codex normalises a human's denial to these words (openai/codex
// codex-rs/core/src/tools/events.rs, ToolEmitter; exec_command_end then
// has status "declined").
func rejected(out string) bool {
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

func (c *reader) functionCall(name, id string, args *toolArgs) {
	switch name {
	case "shell", "container.exec", "local_shell", "shell_command":
		c.shell(id, commandOf(args.Command), args.Workdir)
	case "exec_command":
		cmd := args.Cmd
		if !cmd.Has() {
			cmd = args.Command
		}
		c.shell(id, commandOf(cmd), args.Workdir)
	case "apply_patch":
		c.addPatch(id, c.patchOps(transcript.FirstNonEmpty(args.Input, args.Patch), args.Workdir))
	case "write_stdin":
		if n, ok := transcript.Int(args.SessionID); ok {
			if c.polls == nil {
				c.polls = map[string]int64{}
			}
			c.polls[id] = n
		}
	case "update_plan":
		if args.Plan != nil && c.emit() {
			todos := make([]handoff.Todo, 0, len(args.Plan))
			for _, s := range args.Plan {
				text := s.Step
				if strings.TrimSpace(text) == "" {
					text = s.Content
				}
				todos = append(todos, handoff.Todo{Content: text, Status: s.Status})
			}
			c.b.Todos(todos)
		}
	}
}

// shell records a shell command, or the edits of an apply_patch run
// through the shell.
func (c *reader) shell(id, cmd, workdir string) {
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
	if c.emit() {
		c.b.Command(id, cmd)
	}
}

// addPatch records the file operations of a patch read from its text.
func (c *reader) addPatch(id string, ops []transcript.PathOp) {
	if len(ops) > 0 && id != "" {
		if c.patched == nil {
			c.patched = map[string]bool{}
		}
		c.patched[id] = true
	}
	if c.emit() {
		c.b.Files(id, ops...)
	}
}

// completedUserMessage reads a completed UserMessage item ({content:
// [{type: text, text}]}, 0.169.0) as the user message response item it
// follows when there is one: it is read only when it is not the text of
// the user message item just before it (a paginated rollout holds the
// completed item alone).
func (c *reader) completedUserMessage(item *completedItem) {
	text := userText(item.Content)
	if text == "" {
		return
	}
	if text == c.lastItemRequest {
		c.lastItemRequest = ""
		return
	}
	c.turnsItem = append(c.turnsItem, c.count())
	if c.emitRequest(srcItem) {
		c.b.Request(request(text))
	}
}

// completedItem reads a completed command or file change
// (ThreadItem::CommandExecution {id, command, cwd, status, exit_code,
// aggregated_output} and FileChange {id, changes, status, stderr}, as
// 0.169.0 writes them in item_completed events) when no response item of
// the rollout made that call: a rollout written with history_mode
// "paginated" (an app-server thread, 0.154) holds the items alone. Each
// makes two events in every pass, so rollbacks count alike.
func (c *reader) completedItem(item *completedItem) {
	id := item.ID
	if id == "" || c.itemCalls[id] {
		return
	}
	status := item.Status
	switch item.Type {
	case "CommandExecution":
		c.nestedCmd = true
		if c.emit() {
			c.b.Command(id, commandOf(item.Command))
		}
		out := item.AggregatedOutput
		if status == "declined" || rejected(out) {
			if c.emit() {
				c.b.Status(id, handoff.StatusRejected, out)
			}
			return
		}
		exit := transcript.ExitCode(item.ExitCode)
		failed := status == "failed" || exit != nil && *exit != 0
		if c.emit() {
			c.b.OutcomeKnown(id, exit, failed, exit != nil || status == "completed" || failed, out)
		}
	case "FileChange":
		c.nestedFile = true
		var ops []transcript.PathOp
		if status == "completed" {
			ops = changeOps(item.Changes)
		}
		if c.emit() {
			c.b.Files(id, ops...)
		}
		if c.emit() {
			c.b.OutcomeKnown(id, nil, status == "failed", status != "", item.Stderr)
		}
	}
}

// changeOps reads patch_apply_end's changes: absolute path → {type: add,
// update or delete, move_path}, as Codex's protocol FileChange writes them
// (openai/codex codex-rs/protocol, FileChange::{Add, Delete, Update}).
func changeOps(changes map[string]change) []transcript.PathOp {
	paths := make([]string, 0, len(changes))
	for p := range changes {
		paths = append(paths, p)
	}
	slices.Sort(paths) // a JSON object has no order: make ours fixed
	var ops []transcript.PathOp
	for _, p := range paths {
		if len(ops) >= transcript.MaxFiles {
			break
		}
		if strings.TrimSpace(p) == "" {
			continue
		}
		switch ch := changes[p]; ch.Type {
		case "add":
			ops = append(ops, transcript.PathOp{Path: p, Op: transcript.Create})
		case "delete":
			ops = append(ops, transcript.PathOp{Path: p, Op: transcript.Delete})
		case "update":
			if ch.MovePath != "" {
				ops = append(ops, transcript.PathOp{Path: p, Op: transcript.Delete}, transcript.PathOp{Path: ch.MovePath, Op: transcript.Create})
			} else {
				ops = append(ops, transcript.PathOp{Path: p, Op: transcript.Edit})
			}
		}
	}
	return ops
}

// patchOps reads the file headers of an apply_patch patch. Relative paths
// are resolved against the directory the patch ran in.
func (c *reader) patchOps(patch, workdir string) []transcript.PathOp {
	dir := transcript.FirstNonEmpty(transcript.JoinPath(c.turnCWD, workdir), c.turnCWD, c.cwd)
	var ops []transcript.PathOp
	var last string
	for line := range strings.Lines(patch) {
		if len(ops) >= transcript.MaxFiles {
			break
		}
		line = strings.TrimRight(line, "\r\n")
		if !strings.HasPrefix(line, "*** ") {
			continue
		}
		var op transcript.FileOp
		p := ""
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			op, p = transcript.Create, line[len("*** Add File: "):]
		case strings.HasPrefix(line, "*** Update File: "):
			op, p = transcript.Edit, line[len("*** Update File: "):]
		case strings.HasPrefix(line, "*** Delete File: "):
			op, p = transcript.Delete, line[len("*** Delete File: "):]
		case strings.HasPrefix(line, "*** Move to: "):
			// The updated file moves: the old path goes, the new one comes.
			if n := len(ops); n > 0 && ops[n-1].Path == last && ops[n-1].Op == transcript.Edit {
				ops[n-1].Op = transcript.Delete
				op, p = transcript.Create, line[len("*** Move to: "):]
			}
		}
		p = strings.TrimSpace(p)
		if op == 0 || p == "" {
			continue
		}
		last = transcript.JoinPath(dir, p)
		ops = append(ops, transcript.PathOp{Path: last, Op: op})
	}
	return ops
}

// outcome reads a tool call's output: plain text that may state the exit
// code, a JSON object {output, metadata: {exit_code}}, a list of content
// items, or an object with a success flag.
func outcome(v transcript.TextOrJSON) (exit *int, failed, known bool, text string) {
	var success *bool
	switch {
	case v.IsText:
		text = v.Text
		var o outputText
		if transcript.Decode([]byte(strings.TrimSpace(text)), &o) == nil && o.Output != nil {
			text = *o.Output
			exit = transcript.ExitCode(o.Metadata.ExitCode)
		}
	case kind(v.JSON) == '[':
		text = strings.Join(contentParts(v), "\n")
	case kind(v.JSON) == '{':
		var o outputObject
		if transcript.Decode(v.JSON, &o) == nil {
			text = strings.Join(contentParts(o.Content), "\n")
			success = o.Success
		}
	}
	// The patterns (?m)^Process running with session ID and
	// (?m)^(?:Exit code:|Process exited with code) (-?\d{1,10})\s*$.
	if exit == nil && !transcript.LineWithPrefix(text, "Process running with session ID") {
		if code, ok := transcript.ExitLine(text, "Exit code:", "Process exited with code"); ok {
			exit = code
		}
	}
	failed = (exit != nil && *exit != 0) || (success != nil && !*success) || patchRefused(text)
	known = exit != nil || success != nil || failed
	return exit, failed, known, text
}

// patchRefused reports whether a tool's output is apply_patch's refusal,
// which Codex sends to the model as the output in place of a result
// (openai/codex codex-rs/core/src/tools/handlers/apply_patch.rs:
// "apply_patch verification failed: …" when the patch does not match the
// file, "patch rejected: …" when it is empty or not allowed): nothing
// was written, so the edits the patch names are no change (issue 45).
func patchRefused(out string) bool {
	out = strings.TrimSpace(out)
	return strings.HasPrefix(out, "apply_patch verification failed") || strings.HasPrefix(out, "patch rejected:")
}

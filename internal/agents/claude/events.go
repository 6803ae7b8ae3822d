package claude

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// tells says, for the first pass, whether a line tells anything the
// digest holds, and whether it only answers tool calls (results, with
// perhaps the todo list the tool wrote): such a line belongs to the
// thread of the call it answers. It looks at what picks the thread only:
// the tool results' texts, the tools' outcomes and the plans put to the
// user do not count.
func tells(l *entry, raw []byte) (has, onlyResults bool) {
	switch l.Type {
	case "user":
		if l.IsMeta || l.Message == nil {
			return false, false
		}
		if l.IsCompactSummary {
			_, ok := messageContent(raw)
			return ok, false
		}
		texts, results, ok := l.Message.userTexts(raw)
		if !ok {
			return false, false
		}
		cancel := interrupted(texts)
		request := results == 0 && requestOrSummary(texts) != ""
		todos := l.ToolUseResult != nil && l.ToolUseResult.NewTodos != nil
		return results > 0 || cancel || request || todos, results > 0 && !cancel
	case "assistant":
		if l.Message == nil {
			return false, false
		}
		if u := l.Message.Usage; len(u) > 0 && u[0] == '{' {
			return true, false
		}
		_, isText, blocks, _ := content(raw, l.Message.Content)
		if isText {
			return true, false
		}
		for _, b := range blocks {
			switch {
			case b.Type == "text" && strings.TrimSpace(b.Text) != "":
				return true, false
			case b.Type == "tool_use" && b.Input != nil:
				switch b.Name {
				case "Bash", "TaskUpdate", "Edit", "MultiEdit", "Write", "NotebookEdit", "Read", "NotebookRead":
					return true, false
				case "TodoWrite":
					if b.Input.Todos != nil {
						return true, false
					}
				}
			}
		}
	case "attachment":
		a := l.Attachment
		if a == nil {
			return false, false
		}
		switch a.Type {
		case "queued_command":
			_, ok := queuedCommand(a)
			return ok, false
		case "task_reminder", "todo_reminder":
			return a.Content != nil, false
		}
	}
	return false, false
}

// userTexts are the texts of m, the message of the user line raw, in
// order, and the number of tool results it holds; false when the message
// is no JSON object.
func (m *threadMessage) userTexts(raw []byte) (texts []string, results int, ok bool) {
	text, isText, blocks, ok := content(raw, m.Content)
	if !ok {
		return nil, 0, false
	}
	if isText {
		texts = append(texts, text)
	}
	for _, b := range blocks {
		switch {
		case b.isStr:
			texts = append(texts, b.str)
		case b.Type == "text":
			texts = append(texts, b.Text)
		case b.Type == "tool_result":
			results++
		}
	}
	return texts, results, true
}

// events folds what a user, assistant or attachment line, raw, tells
// into b.
func events(b *transcript.Builder, l *line, raw []byte) {
	switch l.Type {
	case "user":
		user(b, l, raw)
	case "assistant":
		assistant(b, l, raw)
	case "attachment":
		attached(b, l.Attachment)
	}
}

// attached reads an attachment line: context Claude Code adds to a turn
// (Claude Code 2.1.88 src/utils/attachments.ts). Two kinds are the
// session's: queued_command, a prompt the user typed while the agent
// worked that the running turn absorbed ({prompt, commandMode, origin,
// isMeta}), and the task list reminders, task_reminder ({content: the
// tasks, {id, subject, status}}) and todo_reminder ({content: the todo
// list}). The others (files, hooks, skills, memory…) are not.
func attached(b *transcript.Builder, a *attachment) {
	if a == nil {
		return
	}
	switch a.Type {
	case "queued_command":
		if text, ok := queuedCommand(a); ok {
			b.Request(text)
		}
	case "task_reminder":
		if a.Content != nil {
			taskList(b, a.Content)
		}
	case "todo_reminder":
		if a.Content != nil {
			b.Todos(todoList(a.Content))
		}
	}
}

// queuedCommand returns the prompt of a queued_command attachment when
// the user typed it: its mode is "prompt" (not a task notification or a
// bash command), it is not meta, and its origin, when given, is human.
func queuedCommand(a *attachment) (string, bool) {
	if a == nil || a.Type != "queued_command" || a.IsMeta {
		return "", false
	}
	if mode := a.CommandMode; mode != "" && mode != "prompt" {
		return "", false
	}
	if a.Origin != nil && a.Origin.Kind != "" && a.Origin.Kind != "human" {
		return "", false
	}
	return requestText(contentText(a.Prompt))
}

// taskList reads a list of Claude Code tasks ({id, subject, status}) as
// the todo list, keeping their ids for later TaskUpdate calls.
func taskList(b *transcript.Builder, items []item) {
	var todos []handoff.Todo
	var ids []string
	for _, t := range items {
		if strings.TrimSpace(t.Subject) == "" {
			continue
		}
		todos = append(todos, handoff.Todo{Content: t.Subject, Status: t.Status})
		ids = append(ids, t.ID)
	}
	b.TaskList(ids, todos)
}

// todoList reads a list of todos ({content, status}); those without text
// are skipped.
func todoList(items []item) []handoff.Todo {
	var out []handoff.Todo
	for _, t := range items {
		if strings.TrimSpace(t.Content) == "" {
			continue
		}
		out = append(out, handoff.Todo{Content: t.Content, Status: t.Status})
		if len(out) >= maxTodos {
			break
		}
	}
	return out
}

// interrupted says whether the user stopped the turn ("[Request
// interrupted by user]", "… for tool use]"): open until a new request
// comes.
func interrupted(texts []string) bool {
	for _, t := range texts {
		if strings.HasPrefix(strings.TrimSpace(t), "[Request interrupted by user") {
			return true
		}
	}
	return false
}

// requestOrSummary is what the user asked in texts, the blocks of a user
// line: those the user typed, joined.
func requestOrSummary(texts []string) string {
	var kept []string
	for _, t := range texts {
		if t, ok := requestText(t); ok {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, "\n\n")
}

var exitCodeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:Exit code|exit code:?) (-?\d{1,10})\b`) })

func user(b *transcript.Builder, l *line, raw []byte) {
	if l.IsMeta || l.Message == nil {
		return
	}
	if l.IsCompactSummary {
		if c, ok := messageContent(raw); ok {
			b.Compaction(compactSummary(contentText(c)))
		}
		return
	}
	text, isText, blocks, ok := content(raw, l.Message.Content)
	if !ok {
		return
	}
	var texts []string
	if isText {
		texts = append(texts, text)
	}
	hasResult := false
	tur := l.ToolUseResult
	for i := range blocks {
		bl := &blocks[i]
		switch {
		case bl.isStr:
			texts = append(texts, bl.str)
		case bl.Type == "text":
			texts = append(texts, bl.Text)
		case bl.Type == "tool_result":
			hasResult = true
			if ran := result(b, raw, i, bl, tur, l.ToolDenialKind); ran && tur != nil {
				toolOutcome(b, tur)
			}
		}
	}
	if interrupted(texts) {
		b.Cancel()
	}
	if !hasResult {
		switch text := requestOrSummary(texts); {
		case strings.HasPrefix(text, continuation):
			// Older versions wrote the compaction summary unflagged.
			b.Compaction(compactSummary(text))
		case text != "":
			b.Request(text)
		}
	}
	// Older versions record the todo list the tool wrote in the result.
	if tur != nil && tur.NewTodos != nil {
		b.Todos(todoList(tur.NewTodos))
	}
}

// result reads a tool_result block, and says whether the call ran and
// did not fail. A Bash failure says is_error and starts "Exit code N"; a
// success is not marked at all. A call that did not run says why:
// toolDenialKind on the line (user-rejected, permission-rule,
// interrupted, cancelled; seen from 2.1.263), or, before that field, the
// fixed texts Claude Code answers a refused or interrupted call with
// (2.1.88 src/utils/messages.ts REJECT_MESSAGE, CANCEL_MESSAGE,
// SUBAGENT_REJECT_MESSAGE, INTERRUPT_MESSAGE_FOR_TOOL_USE; 1.0.98
// answered a missing permission "Claude requested permissions to …, but
// you haven't granted it yet."). A PreToolUse hook that blocks the call
// answers "PreToolUse:<tool> hook error: …" or "Hook PreToolUse:<tool>
// denied this tool" (2.1.88 src/utils/hooks.ts,
// services/tools/toolHooks.ts).
func result(b *transcript.Builder, raw []byte, i int, bl *block, tur *toolUseResult, denial string) bool {
	id := bl.ToolUseID
	// text is the result's text, read when it is wanted: when the call
	// failed, and to tell a command sent to the background, whose text
	// the line holds as it is or with letters escaped.
	text := func() string { return resultText(raw, i) }
	switch denial {
	case "":
	case "interrupted", "cancelled":
		b.Status(id, handoff.StatusInterrupted, "")
		return false
	default: // user-rejected, permission-rule, and kinds still to come
		b.Status(id, handoff.StatusRejected, "")
		return false
	}
	if bl.IsError {
		text := text()
		t := strings.TrimSpace(text)
		switch {
		case hasAnyPrefix(t, rejections):
			b.Status(id, handoff.StatusRejected, "")
			return false
		case strings.HasPrefix(t, "[Request interrupted by user"):
			b.Status(id, handoff.StatusInterrupted, "")
			return false
		case strings.HasPrefix(t, "Hook PreToolUse:") || strings.HasPrefix(t, "PreToolUse:") && strings.Contains(firstLine(t), "hook error"):
			b.Status(id, handoff.StatusBlocked, text)
			return false
		}
		var exit *int
		if m := exitCodeRe().FindStringSubmatch(t); m != nil {
			if n, err := strconv.ParseInt(m[1], 10, 32); err == nil {
				c := int(n)
				exit = &c
			}
		}
		b.Outcome(id, exit, true, text)
		return false
	}
	if tur != nil {
		if exit := transcript.ExitCode(tur.ExitCode); exit != nil {
			out := "" // the output of a success is not kept
			if *exit != 0 {
				out = firstNonEmpty(tur.Stderr, text())
			} else if b.Observing() {
				out = text()
			}
			b.Outcome(id, exit, *exit != 0, out)
			return *exit == 0
		}
		if tur.Interrupted {
			b.Status(id, handoff.StatusInterrupted, "")
			return false
		}
		if tur.BackgroundTaskID != "" {
			b.Status(id, handoff.StatusBackground, "")
			return true
		}
	}
	if mayHold(raw, background) {
		if strings.HasPrefix(strings.TrimSpace(text()), background) {
			b.Status(id, handoff.StatusBackground, "")
			return true
		}
	}
	zero, out := 0, ""
	if b.Observing() {
		out = text()
	}
	b.Outcome(id, &zero, false, out)
	return true
}

// background opens the answer to a command sent to the background.
const background = "Command running in background"

// mayHold says whether the JSON text raw may hold the ASCII text s in a
// string: as it is, or with some of its characters escaped (\u00XX).
func mayHold(raw []byte, s string) bool {
	if bytes.Contains(raw, []byte(s)) {
		return true
	}
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte(`\u00`))
		if j < 0 || i+j+6 > len(raw) {
			return false
		}
		i += j + 4
		if c, err := strconv.ParseUint(string(raw[i:i+2]), 16, 8); err == nil && strings.IndexByte(s, byte(c)) >= 0 {
			return true
		}
	}
}

// rejections open the answers to a call the user or a permission rule
// refused.
var rejections = []string{
	"The user doesn't want to proceed with this tool use",
	"The user doesn't want to take this action right now",
	"Permission for this tool use was denied",
	"Claude requested permissions to ",
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// toolOutcome reads what a successful tool call's toolUseResult tells
// beyond its success (Claude Code 2.1.88 src/tools/…): the task TaskCreate
// made ({task: {id, subject}}), the list TaskList read ({tasks: [{id,
// subject, status}]}), the answers AskUserQuestion collected ({questions:
// [{question}], answers: {question: answer}}), and the plan ExitPlanMode
// presented ({plan, filePath}).
func toolOutcome(b *transcript.Builder, tur *toolUseResult) {
	if t := tur.Task; t != nil && t.ID != "" && t.Subject != "" {
		b.Task(t.ID, t.Subject, "pending")
	}
	if tur.Tasks != nil {
		taskList(b, tur.Tasks)
	}
	if tur.Answers != nil {
		var order []string
		for _, q := range tur.Questions {
			order = append(order, q.Question)
		}
		rest := make([]string, 0, len(tur.Answers))
		for q := range tur.Answers {
			if !slices.Contains(order, q) {
				rest = append(rest, q)
			}
		}
		slices.Sort(rest)
		for _, q := range append(order, rest...) {
			if a, ok := tur.Answers[q]; ok && strings.TrimSpace(q) != "" && strings.TrimSpace(a) != "" {
				b.Decision(q, a)
			}
		}
	}
	if plan := tur.Plan; strings.TrimSpace(plan) != "" {
		// ExitPlanMode's result holds the plan only once the user
		// approved it ("User has approved your plan…", 2.1.328).
		b.Plan(plan, handoff.PlanApproved)
	}
}

func assistant(b *transcript.Builder, l *line, raw []byte) {
	msg := l.Message
	if msg == nil {
		return
	}
	msgID := firstNonEmpty(msg.ID, l.RequestID)
	text, isText, blocks, ok := content(raw, msg.Content)
	if !ok {
		return
	}
	if isText {
		b.AgentMessage(msgID, text)
	}
	for i := range blocks {
		bl := &blocks[i]
		switch bl.Type {
		case "text":
			if t := strings.TrimSpace(bl.Text); t != "" {
				b.AgentMessage(msgID, t)
			}
		case "tool_use":
			toolUse(b, bl)
		}
	}
	if u := msg.Usage; u != nil {
		b.Tokens(msgID, handoff.Tokens{
			Input:      count(u["input_tokens"]),
			Output:     count(u["output_tokens"]),
			CacheRead:  count(u["cache_read_input_tokens"]),
			CacheWrite: count(u["cache_creation_input_tokens"]),
		})
	}
}

func toolUse(b *transcript.Builder, bl *block) {
	id := bl.ID
	// An observer is told the tool's name; its arguments are decoded only
	// as far as the digest reads them.
	b.Tool(id, bl.Name, "")
	in := bl.Input
	if in == nil {
		return
	}
	switch bl.Name {
	case "Bash":
		b.CommandOn(id, in.Command, transcript.Delete, removedFiles(in.Command)...)
	case "TaskUpdate":
		// {taskId, subject?, status?: pending|in_progress|completed|deleted}
		// (Claude Code 2.1.88 src/tools/TaskUpdateTool); TaskCreate's task
		// is read from its result, which holds the new task's id.
		b.Task(in.TaskID, in.Subject, in.Status)
	case "ExitPlanMode":
		// {plan}: the plan put to the user (2.1.88
		// src/tools/ExitPlanModeTool); newer versions may leave it to the
		// result, read in toolOutcome.
		if plan := strings.TrimSpace(in.Plan); plan != "" {
			b.PlanCall(id, plan)
		}
	case "Edit":
		b.File(id, in.FilePath, transcript.Edit, 1)
	case "MultiEdit":
		b.File(id, in.FilePath, transcript.Edit, len(in.Edits))
	case "Write":
		b.File(id, in.FilePath, transcript.Write, 1)
	case "NotebookEdit":
		b.File(id, in.NotebookPath, transcript.Edit, 1)
	case "Read", "NotebookRead":
		b.File(id, firstNonEmpty(in.FilePath, in.NotebookPath), transcript.Read, 0)
	case "TodoWrite":
		if in.Todos != nil {
			b.Todos(todoList(in.Todos))
		}
	}
}

// removedFiles returns the files a plain "rm" command removes: one simple
// command (no chain, pipe, redirection, substitution or glob), whose
// operands are plain paths. Anything less plain removes nothing that is
// recorded.
func removedFiles(cmd string) []string {
	words, ok := plainWords(cmd)
	if !ok || len(words) < 2 || words[0] != "rm" {
		return nil
	}
	var paths []string
	operands := false
	for _, w := range words[1:] {
		switch {
		case !operands && w == "--":
			operands = true
		case !operands && strings.HasPrefix(w, "-"):
		default:
			paths = append(paths, w)
		}
	}
	return paths
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

// count reads a non-negative count; anything else is 0.
func count(n json.Number) int64 {
	if n == "" {
		return 0
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return max(i, 0)
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsNaN(f) || f >= math.MaxInt64 || f <= math.MinInt64 {
		return 0
	}
	return max(int64(f), 0)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

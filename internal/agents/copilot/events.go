package copilot

// GitHub Copilot CLI's session log: how one is read. Checked against
// @github/copilot 1.0.102, whose session-events.schema.json (schemas/ in
// the unpacked package) defines every line type, and against sessions it
// wrote itself (testdata/real-e2e, SOURCES.md).
//
// A session is a directory, <copilot home>/session-state/<id>/, holding
// events.jsonl (one event a line: {"type", "data", "id", "timestamp",
// "parentId"}), workspace.yaml (its name, cwd, branch) and session.db
// (SQLite; the todos). Capture reads events.jsonl, and the name in
// workspace.yaml for the title.

import (
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// event is one line of events.jsonl, as far as it is read: the outputs
// Copilot copies beside a result (detailedContent, telemetry) are never
// built.
type event struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	// AgentID names the subagent whose event it is: "Sub-agent instance
	// identifier. Absent for events from the root/main agent and
	// session-level events" (1.0.102's session-events.schema.json, on
	// every event type).
	AgentID string    `json:"agentId"`
	Data    eventData `json:"data"`
}

// eventData holds the fields of every event type read; each type fills
// its own.
type eventData struct {
	// session.start, session.resume
	SessionID      string `json:"sessionId"`
	CopilotVersion string `json:"copilotVersion"`
	StartTime      string `json:"startTime"`
	Context        struct {
		CWD    string `json:"cwd"`
		Branch string `json:"branch"`
	} `json:"context"`
	// user.message (content is what the user typed; transformedContent
	// adds the date and reminders Copilot injects), assistant.message
	Content      string        `json:"content"`
	MessageID    string        `json:"messageId"`
	ToolRequests []toolRequest `json:"toolRequests"`
	// ParentToolCallID is, on assistant.message and tool.execution_*,
	// the task call of the subagent whose event it is: the older form of
	// AgentID, deprecated in 1.0.102's schema.
	ParentToolCallID string `json:"parentToolCallId"`
	// tool.execution_complete
	ToolCallID     string `json:"toolCallId"`
	Success        *bool  `json:"success"`
	ShellExecution struct {
		ExitCode *int64 `json:"exitCode"`
	} `json:"shellExecution"`
	Result struct {
		Content string `json:"content"`
	} `json:"result"`
	Error struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"error"`
	// session.usage_record
	Usage struct {
		InputTokens      int64 `json:"inputTokens"`
		OutputTokens     int64 `json:"outputTokens"`
		CacheReadTokens  int64 `json:"cacheReadTokens"`
		CacheWriteTokens int64 `json:"cacheWriteTokens"`
	} `json:"usage"`
	// session.title_changed, session.compaction_complete
	Title          string `json:"title"`
	SummaryContent string `json:"summaryContent"`
}

// toolRequest is one tool call of an assistant message.
type toolRequest struct {
	ToolCallID string `json:"toolCallId"`
	Name       string `json:"name"`
	// Arguments are the call's arguments as the log holds them (an
	// observer is told them whole), read into toolArguments.
	Arguments json.RawMessage `json:"arguments"`
}

// toolArguments are the arguments of a tool call the digest reads.
type toolArguments struct {
	Command string `json:"command"` // bash
	Path    string `json:"path"`    // create, edit, view
	Query   string `json:"query"`   // sql
}

// known are the line types that say nothing the digest keeps: read, and
// not counted as unknown.
var known = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range []string{
		"system.message", "assistant.turn_start", "assistant.turn_end", "tool.execution_start",
		"session.shutdown", "session.info", "session.warning", "session.idle", "session.model_change",
		"session.mode_changed", "session.context_changed", "session.compaction_start", "session.truncation",
		"session.skills_loaded", "session.mcp_servers_loaded", "session.mcp_server_status_changed",
		"session.permissions_changed", "session.custom_agents_updated", "session.background_tasks_changed",
		"session.usage_info", "session.task_complete", "assistant.usage", "assistant.intent",
		"assistant.reasoning", "assistant.idle", "tool.shell_output", "user.model_selection",
		// A hook's run: its input and output (a sessionStart hook's
		// additionalContext is not a request).
		"hook.start", "hook.end",
		// The trace of a model call made outside a turn (a compaction's:
		// its answer is also in session.compaction_complete), and the
		// usage totals written after it.
		"model.turn_started", "model.model_call_started", "model.model_call_success", "model.message",
		"model.response", "model.turn_ended", "model.messages_snapshot", "session.usage_checkpoint",
	} {
		m[t] = true
	}
	return m
}()

// read reads a session's events.jsonl.
func read(r io.Reader, lim transcript.Limits) (*transcript.Digest, error) {
	lim = lim.WithDefaults()
	rd := &reader{b: transcript.NewBuilder(), sql: map[string]string{}}
	rd.b.Observe(lim.Observe) // the main agent's events only: a subagent's have builders of their own
	d := rd.b.Digest()
	err := transcript.EachLine(io.LimitReader(r, lim.MaxFile), lim, &d.Stats, func(line []byte) error {
		var e event
		if err := transcript.Decode(line, &e); err != nil {
			return err
		}
		rd.event(&e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	d, err = rd.b.Finish(transcript.Agent(Name))
	if err != nil {
		return nil, err
	}
	for _, id := range rd.subOrder {
		sub := rd.subs[id].Fold()
		sub.CWD = d.CWD
		transcript.MergeSubagent(d, sub, "subagent "+untrusted.OneLine(id, 64))
	}
	return d, nil
}

// readFile reads events.jsonl and takes the session's name from
// workspace.yaml beside it, when the user named the session or the log
// gave no title.
func readFile(r io.Reader, lim transcript.Limits, file string) (*transcript.Digest, error) {
	d, err := read(r, lim)
	if err != nil {
		return nil, err
	}
	if name, user := workspaceName(filepath.Join(filepath.Dir(file), "workspace.yaml")); name != "" && (user || d.Title == "") {
		d.Title = transcript.TitleFrom(name)
	}
	return d, nil
}

type reader struct {
	b *transcript.Builder
	// sql holds the queries of sql calls until their outcome: a query
	// that failed changed no todo.
	sql map[string]string
	// subs fold each subagent's tool calls apart, in the order they
	// first appear: its work is the session's, marked as the subagent's,
	// and its prompt (a user.message of its own) is no request of the
	// user's (issue 45).
	subs     map[string]*transcript.Builder
	subOrder []string
}

// maxSubagents bounds the subagents folded apart; the events of more are
// left out.
const maxSubagents = 64

// subagent is the builder of the subagent whose event e is, or nil for
// the main agent's (and for a subagent past maxSubagents, with skip).
func (rd *reader) subagent(e *event) (b *transcript.Builder, skip bool) {
	id := transcript.FirstNonEmpty(e.AgentID, e.Data.ParentToolCallID)
	if id == "" {
		return nil, false
	}
	if b := rd.subs[id]; b != nil {
		return b, false
	}
	if len(rd.subOrder) == maxSubagents {
		return nil, true
	}
	if rd.subs == nil {
		rd.subs = map[string]*transcript.Builder{}
	}
	b = transcript.NewBuilder()
	b.SetCWD(rd.b.Digest().CWD)
	rd.subs[id] = b
	rd.subOrder = append(rd.subOrder, id)
	return b, false
}

func (rd *reader) event(e *event) {
	if t, ok := transcript.ParseTime(e.Timestamp); ok {
		rd.b.Time(t)
	}
	d, data := rd.b.Digest(), &e.Data
	if sub, skip := rd.subagent(e); sub != nil || skip {
		switch e.Type {
		case "assistant.message":
			for i := range data.ToolRequests {
				if sub != nil {
					rd.call(sub, &data.ToolRequests[i])
				}
			}
		case "tool.execution_complete":
			if sub != nil {
				rd.outcome(sub, data)
			}
		case "session.usage_record":
			// The session's cost, the subagents' included.
			u := data.Usage
			rd.b.Tokens(e.ID, handoff.Tokens{Input: max(u.InputTokens, 0), Output: max(u.OutputTokens, 0),
				CacheRead: max(u.CacheReadTokens, 0), CacheWrite: max(u.CacheWriteTokens, 0)})
		}
		return
	}
	switch e.Type {
	case "session.start", "session.resume":
		if e.Type == "session.start" {
			d.Session.ID = data.SessionID
			d.Session.AgentVersion = data.CopilotVersion
			if st, ok := transcript.ParseTime(data.StartTime); ok {
				d.Session.StartedAt = &st
			}
		}
		if cwd := data.Context.CWD; cwd != "" {
			rd.b.SetCWD(cwd)
		}
		if br := data.Context.Branch; br != "" {
			d.GitBranch = br
		}
	case "user.message":
		rd.b.Request(data.Content)
	case "assistant.message":
		rd.b.AgentMessage(data.MessageID, data.Content)
		for i := range data.ToolRequests {
			rd.call(rd.b, &data.ToolRequests[i])
		}
	case "tool.execution_complete":
		rd.outcome(rd.b, data)
	case "session.usage_record":
		// One record a model call; the line's id is unique, where the
		// call's apiCallId is the provider's and may repeat.
		u := data.Usage
		rd.b.Tokens(e.ID, handoff.Tokens{Input: max(u.InputTokens, 0), Output: max(u.OutputTokens, 0),
			CacheRead: max(u.CacheReadTokens, 0), CacheWrite: max(u.CacheWriteTokens, 0)})
	case "session.compaction_complete":
		rd.b.Compaction(data.SummaryContent)
	case "session.title_changed":
		d.Title = data.Title
	case "abort", "session.abort":
		rd.b.Cancel()
	default:
		if !known[e.Type] {
			d.Stats.UnknownType(e.Type)
		}
	}
}

// call reads one tool request of an assistant message.
func (rd *reader) call(b *transcript.Builder, req *toolRequest) {
	id := req.ToolCallID
	args := &toolArguments{}
	_ = transcript.DecodeValue(req.Arguments, args) // arguments of another shape: none the digest reads
	b.Tool(id, req.Name, string(req.Arguments))
	switch req.Name {
	case "bash":
		b.Command(id, args.Command)
	case "create":
		b.File(id, args.Path, transcript.Create, 1)
	case "edit":
		b.File(id, args.Path, transcript.Edit, 1)
	case "view":
		b.File(id, args.Path, transcript.Read, 0)
	case "sql":
		if id != "" && len(rd.sql) < maxPendingSQL {
			rd.sql[id] = args.Query
		}
	}
}

// outcome reads a tool.execution_complete. A shell command's exit code
// decides: Copilot 1.0.102 writes success: true beside exitCode 1 or 2.
func (rd *reader) outcome(b *transcript.Builder, data *eventData) {
	id := data.ToolCallID
	success := data.Success != nil && *data.Success
	if q, ok := rd.sql[id]; ok {
		delete(rd.sql, id)
		if success {
			for _, t := range todoSQL(q) {
				b.Task(t.id, t.text, t.status)
			}
		}
	}
	if data.Error.Code == "denied" {
		b.Status(id, handoff.StatusRejected, data.Error.Message)
		return
	}
	out := data.Result.Content
	if out == "" {
		out = data.Error.Message
	}
	if c := data.ShellExecution.ExitCode; c != nil && *c >= math.MinInt32 && *c <= math.MaxInt32 {
		exit := int(*c)
		b.Outcome(id, &exit, exit != 0, out)
		return
	}
	if data.Success == nil {
		b.Done(id, out)
		return
	}
	b.Outcome(id, nil, !success, out)
}

// isEvent says whether a line looks like a Copilot event: a dotted type
// of its families, a data object and an id (or an abort with its data).
func isEvent(line []byte) bool {
	var e struct {
		Type string          `json:"type"`
		ID   string          `json:"id"`
		Data json.RawMessage `json:"data"`
	}
	if transcript.Decode(line, &e) != nil || len(e.Data) == 0 || e.Data[0] != '{' {
		return false
	}
	fam, _, dotted := strings.Cut(e.Type, ".")
	if !dotted || e.ID == "" {
		return e.Type == "abort"
	}
	switch fam {
	case "session", "user", "assistant", "tool", "system":
		return true
	}
	return false
}

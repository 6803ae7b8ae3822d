package crush

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// defaultTitle is the title Crush gives a session whose title the model
// did not write (DefaultSessionName, internal/agent/agent.go v0.90.0).
const defaultTitle = "Untitled Session"

// part is one element of a message's parts: {"type", "data"}
// (marshalParts, internal/message/message.go v0.90.0).
type part struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// The part types read; reasoning, image_url, binary and shell_command
// (the user's own ! commands in the TUI) are passed over.
const (
	partText       = "text"
	partToolCall   = "tool_call"
	partToolResult = "tool_result"
	partFinish     = "finish"
)

func knownPart(t string) bool {
	switch t {
	case partText, partToolCall, partToolResult, partFinish, "reasoning", "image_url", "binary", "shell_command":
		return true
	}
	return false
}

// textPart is a text part's data (TextContent).
type textPart struct {
	Text string `json:"text"`
}

// toolCall is a tool_call part's data (ToolCall): Input is the call's
// arguments as JSON text.
type toolCall struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Input string `json:"input"`
}

// toolResult is a tool_result part's data (ToolResult): Metadata is the
// tool's own, as JSON text.
type toolResult struct {
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
	Metadata   string `json:"metadata"`
	IsError    bool   `json:"is_error"`
}

// finish is a finish part's data (Finish): its reason is "canceled" when
// the user stopped the turn.
type finish struct {
	Reason string `json:"reason"`
}

// toolInput holds the arguments of the tools whose calls the digest
// keeps (internal/agent/tools of v0.90.0: bash, edit, multiedit, write,
// view, todos).
type toolInput struct {
	Command  string     `json:"command"`   // bash
	FilePath string     `json:"file_path"` // edit, multiedit, write, view
	Edits    []struct{} `json:"edits"`     // multiedit
	Todos    []todoItem `json:"todos"`     // todos
}

// todoItem is an item of the todo list (session.Todo, v0.90.0).
type todoItem struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// bashMetadata is bash's result metadata (BashResponseMetadata): a
// command moved to the background has not ended.
type bashMetadata struct {
	Background bool   `json:"background"`
	ShellID    string `json:"shell_id"`
}

// message is one message of the session or of a subagent's.
type message struct {
	id, session, role string
	created           int64
	summary           bool
	parts             []part
}

// read reads the session id of the database at path into a digest, its
// subagents' sessions folded in.
func read(path, id string, lim transcript.Limits) (*transcript.Digest, error) {
	lim = lim.WithDefaults()
	db, err := openDB(path, lim.MaxLine)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	d, err := readDB(db, id, projectDir(path), lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

func readDB(db *sqlitefile.DB, id, cwd string, lim transcript.Limits) (*transcript.Digest, error) {
	all, err := cachedSessions(db)
	if err != nil {
		return nil, err
	}
	s, err := pick(all, id)
	if err != nil {
		return nil, err
	}
	// The session and its subagents' (the agent and agentic_fetch
	// tools' task sessions), to any depth.
	in := transcript.Subtree(s.id, all, func(o sessionRow) (string, string) { return o.id, o.parent })
	b := transcript.NewBuilder()
	d := b.Digest()
	d.Session.ID = s.id
	d.Stats.Subagents = len(in) - 1
	if s.title != defaultTitle {
		d.Title = s.title
	}
	if cwd != "" {
		b.SetCWD(cwd)
	}
	d.Subagent, d.Parent = s.parent != "", s.parent
	msgs, err := messages(db, in, lim, &d.Stats)
	if err != nil {
		return nil, err
	}
	b.Time(unixTime(s.created))
	fold(b, s.id, msgs, &d.Stats, lim.Observe)
	b.Time(unixTime(s.updated))
	if s.todos != "" {
		var todos []todoItem
		if err := transcript.Unmarshal([]byte(s.todos), &todos); err != nil {
			d.Stats.Malformed++
		} else if len(todos) > 0 {
			b.Todos(handoffTodos(todos)) // the column is the list as it stands
		}
	} else if s.todosTooLarge {
		d.Stats.TooLong++
	}
	return b.Finish(Name)
}

// pick finds the session id among all; an id that is none of theirs
// picks the session active last that is no subagent's and has a
// message. Times are in seconds: of sessions active in the same second,
// the one created last is, and of those the row written last.
func pick(all []sessionRow, id string) (sessionRow, error) {
	for _, s := range all {
		if id != "" && s.id == id {
			return s, nil
		}
	}
	var best *sessionRow
	for i, s := range all {
		if s.parent == "" && s.messages > 0 && (best == nil || !later(*best, s)) {
			best = &all[i]
		}
	}
	if best == nil {
		return sessionRow{}, transcript.ErrNoRecords
	}
	return *best, nil
}

// later says whether a was active after b, by its last activity, then
// its creation.
func later(a, b sessionRow) bool {
	if a.updated != b.updated {
		return a.updated > b.updated
	}
	return a.created > b.created
}

// maxRows bounds the messages of one session.
const maxRows = 1 << 20

// messages reads the messages of the sessions in, oldest first (Crush
// lists them by created_at, in seconds; rows of one second keep the
// order they were written in).
func messages(db *sqlitefile.DB, in map[string]bool, lim transcript.Limits, st *transcript.Stats) ([]*message, error) {
	t, err := openTable(db, "messages", "id", "session_id", "role", "parts", "created_at", "is_summary_message")
	if err != nil {
		return nil, err
	}
	var out []*message
	// By the index on session_id: reading one session of a database of
	// many is not a scan of every session's messages.
	err = t.ScanEqual("session_id", slices.Sorted(maps.Keys(in)), func(r *sqlitefile.Row) error {
		sid, err := t.Text(r, "session_id")
		if err != nil || !in[sid] {
			return err
		}
		m := &message{session: sid}
		if m.id, err = t.Text(r, "id"); err != nil {
			return err
		}
		if m.role, err = t.Text(r, "role"); err != nil {
			return err
		}
		if m.created, err = t.Int(r, "created_at"); err != nil {
			return err
		}
		summary, err := t.Int(r, "is_summary_message")
		if err != nil {
			return err
		}
		m.summary = summary != 0
		st.Lines++
		data, err := t.TextBytes(r, "parts") // decoded at once: not copied
		switch {
		case errors.Is(err, sqlitefile.ErrTooLarge), err == nil && len(data) > lim.MaxLine:
			st.TooLong++
			return nil
		case err != nil || transcript.Unmarshal(data, &m.parts) != nil:
			st.Malformed++
			return nil
		}
		st.Records++
		if len(out) >= maxRows {
			return fmt.Errorf("more than %d messages", maxRows)
		}
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b *message) int {
		switch {
		case a.created < b.created:
			return -1
		case a.created > b.created:
			return 1
		}
		return 0
	})
	return out, nil
}

// requeued starts the request Crush sends again itself after it
// summarised a session in the middle of a turn (Run, internal/agent/
// agent.go v0.90.0): the user's words are the earlier request's.
const requeued = "The previous session was interrupted because it got too long, the initial user request was: `"

// call is a tool call whose result is still to come.
type call struct {
	key, name string
}

// fold feeds the messages to the builder in order: the session's own
// requests, answers, summaries and cancellation, and the tool calls of
// the session and its subagents (whose prompts and answers are the
// agent tool's, not the user's words or the agent's).
//
// observe, when set, is told the session's own messages' events
// (transcript.Limits.Observe): a subagent's calls are folded into the
// session's digest, but they are not its conversation.
func fold(b *transcript.Builder, id string, msgs []*message, st *transcript.Stats, observe func(transcript.Event)) {
	// A provider's call ids may repeat across turns: a result belongs to
	// the latest call of its id.
	open := map[string]call{}
	for _, m := range msgs {
		own := m.session == id
		if own {
			b.Observe(observe)
		} else {
			b.Observe(nil)
		}
		b.Time(unixTime(m.created))
		for i, p := range m.parts {
			if !knownPart(p.Type) {
				st.UnknownType(p.Type)
				continue
			}
			switch p.Type {
			case partText:
				var t textPart
				if transcript.Unmarshal(p.Data, &t) != nil {
					st.Malformed++
					continue
				}
				text(b, m, own, t.Text)
			case partToolCall:
				var c toolCall
				if transcript.Unmarshal(p.Data, &c) != nil || c.ID == "" {
					st.Malformed++
					continue
				}
				key := m.id + "/" + strconv.Itoa(i)
				open[m.session+"\x00"+c.ID] = call{key: key, name: c.Name}
				startTool(b, key, c)
			case partToolResult:
				var r toolResult
				if transcript.Unmarshal(p.Data, &r) != nil {
					st.Malformed++
					continue
				}
				c, ok := open[m.session+"\x00"+r.ToolCallID]
				if !ok {
					continue
				}
				delete(open, m.session+"\x00"+r.ToolCallID)
				endTool(b, c, r)
			case partFinish:
				var f finish
				if transcript.Unmarshal(p.Data, &f) != nil {
					st.Malformed++
					continue
				}
				if own && m.role == "assistant" && f.Reason == "canceled" {
					b.Cancel()
				}
			}
		}
	}
	b.Observe(observe) // the todo list read after is the session's
}

// text adds a text part: a user's request, the agent's answer, or the
// summary of a compaction.
func text(b *transcript.Builder, m *message, own bool, s string) {
	if !own || strings.TrimSpace(s) == "" {
		return
	}
	switch {
	case m.role == "user" && !strings.HasPrefix(s, requeued):
		b.Request(s)
	case m.role == "assistant" && m.summary:
		b.Compaction(s)
	case m.role == "assistant":
		b.AgentMessage(m.id, s)
	}
}

// startTool adds a tool call: bash as a command, the file tools as file
// operations, todos as the todo list.
func startTool(b *transcript.Builder, key string, c toolCall) {
	var in toolInput
	if c.Input != "" && transcript.Unmarshal([]byte(c.Input), &in) != nil {
		return // arguments the model got wrong: the tool ran nothing
	}
	b.Tool(key, c.Name, c.Input)
	switch c.Name {
	case "bash":
		if strings.TrimSpace(in.Command) != "" {
			b.Command(key, in.Command)
		}
	case "write":
		b.File(key, in.FilePath, transcript.Write, 1)
	case "edit":
		b.File(key, in.FilePath, transcript.Edit, 1)
	case "multiedit":
		b.File(key, in.FilePath, transcript.Edit, max(1, len(in.Edits)))
	case "view":
		b.File(key, in.FilePath, transcript.Read, 0)
	case "todos":
		b.Todos(handoffTodos(in.Todos))
	}
}

// endTool adds how a tool call ended. bash writes a failing command's
// exit code into its output ("Exit code N", formatOutput of
// internal/agent/tools/bash.go v0.90.0) and marks no error; is_error is
// a call the tool refused or could not run.
func endTool(b *transcript.Builder, c call, r toolResult) {
	switch c.name {
	case "bash":
		var md bashMetadata
		_ = transcript.Unmarshal([]byte(r.Metadata), &md)
		switch {
		case r.IsError:
			b.Outcome(c.key, nil, true, r.Content)
		case md.Background && md.ShellID != "":
			b.Status(c.key, handoff.StatusBackground, r.Content)
		case strings.Contains(r.Content, "Command was aborted before completion"):
			b.Status(c.key, handoff.StatusInterrupted, r.Content)
		default:
			code := exitCode(r.Content)
			b.Outcome(c.key, &code, code != 0, r.Content)
		}
	case "write", "edit", "multiedit":
		b.Outcome(c.key, nil, r.IsError, r.Content)
	default:
		if b.Observing() {
			// Another tool's result (view, ls, grep, fetch, an MCP
			// server's): an observer keeps it.
			b.Outcome(c.key, nil, r.IsError, r.Content)
		}
	}
}

// exitCode is the exit code bash's output states on its last line,
// before the working directory it appends ("Exit code N" then
// "\n\n<cwd>DIR</cwd>"); 0 when it states none (bash writes one only for
// a command that failed).
func exitCode(out string) int {
	out = strings.TrimRight(out, " \t\r\n")
	if i := strings.LastIndexByte(out, '\n'); strings.HasPrefix(out[i+1:], "<cwd>") && strings.HasSuffix(out, "</cwd>") {
		out = strings.TrimRight(out[:max(i, 0)], " \t\r\n")
	}
	last := out[strings.LastIndexByte(out, '\n')+1:]
	digits, ok := strings.CutPrefix(last, "Exit code ")
	if !ok || len(digits) > 9 {
		return 0
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// handoffTodos is a todo list as the handoff keeps it.
func handoffTodos(items []todoItem) []handoff.Todo {
	out := make([]handoff.Todo, 0, min(len(items), handoff.MaxItems))
	for _, t := range items {
		if len(out) >= handoff.MaxItems {
			break
		}
		out = append(out, handoff.Todo{Content: t.Content, Status: t.Status})
	}
	return out
}

// sessionCache keeps the session table of the databases read last
// (sqlitefile.StateCache): a full search index reads every session.
var sessionCache sqlitefile.StateCache[[]sessionRow]

// cachedSessions is sessions(db), kept while db's files stay as they are.
func cachedSessions(db *sqlitefile.DB) ([]sessionRow, error) { return sessionCache.Get(db, sessions) }

package opencode

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// messageData is a message row's data: MessageV2.Info of opencode
// 1.18.33 (packages/opencode/src/session/message-v2.ts), as far as the
// digest needs it.
type messageData struct {
	Role string `json:"role"`
	Time struct {
		Created int64 `json:"created"`
	} `json:"time"`
	// Summary is {diffs} on a user message, and true on the assistant
	// message that holds a compaction's summary.
	Summary json.RawMessage `json:"summary"`
	Tokens  *struct {
		Input  int64 `json:"input"`
		Output int64 `json:"output"`
		Cache  struct {
			Read  int64 `json:"read"`
			Write int64 `json:"write"`
		} `json:"cache"`
	} `json:"tokens"`
	// Error is set on an assistant message that did not finish; its
	// name is MessageAbortedError when the user stopped it.
	Error *struct {
		Name string `json:"name"`
	} `json:"error"`
}

// partData is a part row's data: MessageV2.Part of opencode 1.18.33.
type partData struct {
	Type string `json:"type"`
	// Text is a text part's; Synthetic marks text OpenCode added itself
	// (the "Continue if you have next steps" after a compaction, a
	// plugin's), never the user's.
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	// Tool and State are a tool part's: the tool's name, and its call as
	// it stands (status pending, running, completed or error).
	Tool  string    `json:"tool"`
	State toolState `json:"state"`
}

type toolState struct {
	Status string `json:"status"`
	// Input is the call's arguments as the part holds them (an observer
	// is told them whole), read into toolInput.
	Input  json.RawMessage `json:"input"`
	Output string          `json:"output"`
	Error  string          `json:"error"`
	// Metadata is the tool's own: bash's exit code, write's whether the
	// file existed, task's subagent session.
	Metadata struct {
		Exit   *int  `json:"exit"`
		Exists *bool `json:"exists"`
	} `json:"metadata"`
}

// toolInput holds the arguments of the tools whose calls the digest
// keeps (packages/opencode/src/tool/*.ts of 1.18.33).
type toolInput struct {
	Command   string     `json:"command"`   // bash
	FilePath  string     `json:"filePath"`  // write, edit, multiedit, read
	Edits     []struct{} `json:"edits"`     // multiedit
	PatchText string     `json:"patchText"` // apply_patch
	Todos     []todoItem `json:"todos"`     // todowrite
}

type todoItem struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// knownPart says whether a part type is read or deliberately passed
// over; any other is counted as unknown.
func knownPart(t string) bool {
	switch t {
	case "text", "tool", "compaction",
		"reasoning", "step-start", "step-finish", "patch", "file", "snapshot", "agent", "subtask", "retry":
		return true
	}
	return false
}

// message is one message of the session or of a subagent's, with its
// parts in order.
type message struct {
	id, session string
	created     int64
	data        messageData
	parts       []part
}

type part struct {
	id   string
	data partData
}

// read reads the session id of the database at path into a digest, its
// subagents' sessions (task) folded in.
func read(path, id string, name transcript.Agent, lim transcript.Limits) (*transcript.Digest, error) {
	lim = lim.WithDefaults()
	db, err := openDB(path, lim.MaxLine)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	d, err := readDB(db, id, name, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

func readDB(db *sqlitefile.DB, id string, name transcript.Agent, lim transcript.Limits) (*transcript.Digest, error) {
	lim = lim.WithDefaults()
	all, err := cachedSessions(db)
	if err != nil {
		return nil, err
	}
	s, err := pick(all, id)
	if err != nil {
		return nil, err
	}
	// The session and its subagents', to any depth.
	in := transcript.Subtree(s.id, all, func(o sessionRow) (string, string) { return o.id, o.parent })
	b := transcript.NewBuilder()
	b.Observe(lim.Observe) // the session's own turns: fold gives its subagents builders of their own
	d := b.Digest()
	d.Session.ID = s.id
	d.Session.AgentVersion = s.version
	d.Stats.Subagents = len(in) - 1
	if !isDefaultTitle(s.title) {
		d.Title = s.title
	}
	b.SetCWD(s.directory)
	d.Subagent, d.Parent = s.parent != "", s.parent

	msgs, err := messages(db, in, lim, &d.Stats)
	if err != nil {
		return nil, err
	}
	if err := parts(db, msgs, lim, &d.Stats); err != nil {
		return nil, err
	}
	todos, err := todoList(db, s.id)
	if err != nil {
		return nil, err
	}
	subs := fold(b, s.id, msgs)
	if len(todos) > 0 {
		b.Todos(todos) // the table is the list as it stands
	}
	d, err = b.Finish(name)
	if err != nil {
		return nil, err
	}
	// A subagent's (task) tool calls are the session's work, marked as
	// its (issue 45): they were folded apart, session by session.
	for _, sub := range subs {
		sd := sub.b.Fold()
		sd.CWD = d.CWD
		transcript.MergeSide(d, sd, "subagent "+untrusted.OneLine(sub.id, 64))
	}
	return d, nil
}

// subagent is the fold of one subagent session's tool calls.
type subagent struct {
	id string
	b  *transcript.Builder
}

// pick finds the session id among all; an id that is none of OpenCode's
// (no ses_ prefix: a file given by its path has none) picks the session
// active last that is no subagent's.
func pick(all []sessionRow, id string) (sessionRow, error) {
	if strings.HasPrefix(id, "ses_") {
		for _, s := range all {
			if s.id == id {
				return s, nil
			}
		}
		return sessionRow{}, fmt.Errorf("no session %s", id)
	}
	var best *sessionRow
	for i, s := range all {
		if s.parent == "" && (best == nil || s.updated > best.updated) {
			best = &all[i]
		}
	}
	if best == nil {
		return sessionRow{}, transcript.ErrNoRecords
	}
	return *best, nil
}

// isDefaultTitle says whether title is the one OpenCode gives a session
// before the model names it ("New session - " or "Child session - " and
// an ISO time: session/index.ts of 1.18.33).
func isDefaultTitle(title string) bool {
	return strings.HasPrefix(title, "New session - ") || strings.HasPrefix(title, "Child session - ")
}

// messages reads the messages of the sessions in, oldest first.
func messages(db *sqlitefile.DB, in map[string]bool, lim transcript.Limits, st *transcript.Stats) ([]*message, error) {
	t, err := openTable(db, "message", "id", "session_id", "time_created", "data")
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
		if m.created, err = t.Int(r, "time_created"); err != nil {
			return err
		}
		if !decodeRow(r, t, &m.data, lim, st) {
			return nil
		}
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
		if a.created != b.created {
			return cmpInt(a.created, b.created)
		}
		return strings.Compare(a.id, b.id)
	})
	return out, nil
}

// maxRows bounds the messages, and the parts, of one session.
const maxRows = 1 << 20

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// decodeRow decodes the row's data column into v, counting the row in
// st: too large (more than lim.MaxLine), malformed, or a record.
func decodeRow(r *sqlitefile.Row, t *sqlitefile.Named, v any, lim transcript.Limits, st *transcript.Stats) bool {
	st.Lines++
	data, err := t.TextBytes(r, "data") // decoded at once: not copied
	switch {
	case errors.Is(err, sqlitefile.ErrTooLarge), err == nil && len(data) > lim.MaxLine:
		st.TooLong++
		return false
	case err != nil || transcript.Unmarshal(data, v) != nil:
		st.Malformed++
		return false
	}
	st.Records++
	return true
}

// parts reads the parts of msgs into them, in the order OpenCode made
// them (part ids ascend with time).
func parts(db *sqlitefile.DB, msgs []*message, lim transcript.Limits, st *transcript.Stats) error {
	byID := make(map[string]*message, len(msgs))
	for _, m := range msgs {
		byID[m.id] = m
	}
	t, err := openTable(db, "part", "id", "message_id", "data")
	if err != nil {
		return err
	}
	n := 0
	err = t.ScanEqual("message_id", slices.Sorted(maps.Keys(byID)), func(r *sqlitefile.Row) error {
		mid, err := t.Text(r, "message_id")
		if err != nil {
			return err
		}
		m := byID[mid]
		if m == nil {
			return nil
		}
		var p part
		if p.id, err = t.Text(r, "id"); err != nil {
			return err
		}
		if !decodeRow(r, t, &p.data, lim, st) {
			return nil
		}
		if n++; n > maxRows {
			return fmt.Errorf("more than %d parts", maxRows)
		}
		if !knownPart(p.data.Type) {
			st.UnknownType(p.data.Type)
		}
		m.parts = append(m.parts, p)
		return nil
	})
	if err != nil {
		return err
	}
	for _, m := range msgs {
		slices.SortStableFunc(m.parts, func(a, b part) int { return strings.Compare(a.id, b.id) })
	}
	return nil
}

// todoList reads the session's todo list as it stands, in its order.
func todoList(db *sqlitefile.DB, id string) ([]handoff.Todo, error) {
	t, err := openTable(db, "todo", "session_id", "content", "status", "position")
	if err != nil {
		return nil, err
	}
	type row struct {
		pos  int64
		todo handoff.Todo
	}
	var rows []row
	err = t.ScanEqual("session_id", []string{id}, func(r *sqlitefile.Row) error {
		sid, err := t.Text(r, "session_id")
		if err != nil || sid != id {
			return err
		}
		var x row
		if x.todo.Content, err = t.Text(r, "content"); err != nil {
			return err
		}
		if x.todo.Status, err = t.Text(r, "status"); err != nil {
			return err
		}
		if x.pos, err = t.Int(r, "position"); err != nil {
			return err
		}
		if len(rows) < handoff.MaxItems {
			rows = append(rows, x)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(rows, func(a, b row) int { return cmpInt(a.pos, b.pos) })
	out := make([]handoff.Todo, len(rows))
	for i, r := range rows {
		out[i] = r.todo
	}
	return out, nil
}

// fold feeds the messages to the builder in order: the session's own
// requests, answers, tool calls, compactions and cancellation, and the
// tool calls of its subagents (their prompts and answers are the
// session's task calls, not the user's words or the agent's).
func fold(b *transcript.Builder, id string, msgs []*message) []subagent {
	compacting := false
	var subs []subagent
	subOf := func(session string) *transcript.Builder {
		for _, s := range subs {
			if s.id == session {
				return s.b
			}
		}
		sb := transcript.NewBuilder()
		sb.SetCWD(b.Digest().CWD)
		subs = append(subs, subagent{session, sb})
		return sb
	}
	for _, m := range msgs {
		own := m.session == id
		if m.data.Time.Created > 0 {
			b.Time(time.UnixMilli(m.data.Time.Created))
		}
		switch m.data.Role {
		case "user":
			if !own {
				continue
			}
			for _, p := range m.parts {
				switch {
				case p.data.Type == "compaction":
					compacting = true
				case p.data.Type == "text" && !p.data.Synthetic && strings.TrimSpace(p.data.Text) != "":
					b.Request(userText(p.data.Text))
				}
			}
		case "assistant":
			summary := string(m.data.Summary) == "true"
			if own && m.data.Tokens != nil {
				t := m.data.Tokens
				b.Tokens(m.id, handoff.Tokens{Input: t.Input, Output: t.Output, CacheRead: t.Cache.Read, CacheWrite: t.Cache.Write})
			}
			for _, p := range m.parts {
				switch p.data.Type {
				case "text":
					switch {
					case !own || strings.TrimSpace(p.data.Text) == "":
					case summary || compacting:
						b.Compaction(p.data.Text)
					default:
						b.AgentMessage(m.id, p.data.Text)
					}
				case "tool":
					if own {
						tool(b, p)
					} else {
						tool(subOf(m.session), p)
					}
				}
			}
			if summary {
				compacting = false
			}
			if own && m.data.Error != nil && m.data.Error.Name == "MessageAbortedError" {
				b.Cancel()
			}
		}
	}
	return subs
}

// userText is a request as the user typed it. 'opencode run' joins its
// arguments with spaces, quoting each that holds one ("…", its own
// quotes escaped: the run command of opencode 1.18.33), so a prompt
// given as one argument is stored quoted; that one argument is unquoted.
func userText(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	inner := s[1 : len(s)-1]
	if !strings.Contains(inner, " ") {
		return s
	}
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\\' && i+1 < len(inner) && inner[i+1] == '"' {
			i++
			continue
		}
		if inner[i] == '"' {
			return s // several arguments, some quoted
		}
	}
	return strings.ReplaceAll(inner, `\"`, `"`)
}

// tool adds a tool call: bash as a command, the file tools as file
// operations, todowrite as the todo list; its outcome when it ended.
func tool(b *transcript.Builder, p part) {
	st := p.data.State
	id := p.id // a part id is unique; a provider's call id may repeat across runs
	var in toolInput
	if len(st.Input) > 0 && transcript.Unmarshal(st.Input, &in) != nil {
		in = toolInput{} // arguments of another shape: none the digest reads
	}
	b.Tool(id, p.data.Tool, string(st.Input))
	switch p.data.Tool {
	case "bash":
		if strings.TrimSpace(in.Command) == "" {
			return
		}
		b.Command(id, in.Command)
	case "write":
		// Whether the file was there says created or rewritten; when
		// the metadata does not say, the fold decides by what it saw.
		op := transcript.Write
		if e := st.Metadata.Exists; e != nil && !*e {
			op = transcript.Create
		} else if e != nil {
			op = transcript.Edit
		}
		b.File(id, in.FilePath, op, 1)
	case "edit":
		b.File(id, in.FilePath, transcript.Edit, 1)
	case "multiedit":
		b.File(id, in.FilePath, transcript.Edit, max(1, len(in.Edits)))
	case "read":
		b.File(id, in.FilePath, transcript.Read, 0)
		return
	case "apply_patch":
		for _, f := range patchFiles(in.PatchText) {
			b.File(id, f.path, f.op, 1)
		}
	case "todowrite":
		if st.Status == "completed" {
			todos := make([]handoff.Todo, 0, len(in.Todos))
			for _, t := range in.Todos {
				todos = append(todos, handoff.Todo{Content: t.Content, Status: t.Status})
			}
			b.Todos(todos)
		}
		if !b.Observing() {
			return
		}
	default:
		if !b.Observing() {
			return
		}
		// Another tool (grep, glob, webfetch, an MCP server's): an
		// observer keeps its result; the digest keeps no such call.
	}
	switch st.Status {
	case "completed":
		b.Outcome(id, st.Metadata.Exit, st.Metadata.Exit != nil && *st.Metadata.Exit != 0, st.Output)
	case "error":
		switch {
		case strings.Contains(st.Error, "rejected permission"), strings.Contains(st.Error, "specified a rule"):
			b.Status(id, handoff.StatusRejected, st.Error)
		case strings.Contains(st.Error, "aborted"):
			b.Status(id, handoff.StatusInterrupted, st.Error)
		default:
			b.Outcome(id, st.Metadata.Exit, true, st.Error)
		}
	}
}

// patchFile is a file an apply_patch call names.
type patchFile struct {
	path string
	op   transcript.FileOp
}

// patchFiles lists the files of an apply_patch call's patch, the format
// OpenCode gives GPT models ("*** Add File: PATH", "*** Update File:",
// "*** Delete File:", "*** Move to:").
func patchFiles(patch string) []patchFile {
	var out []patchFile
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, h := range []struct {
			prefix string
			op     transcript.FileOp
		}{{"*** Add File: ", transcript.Create}, {"*** Update File: ", transcript.Edit}, {"*** Delete File: ", transcript.Delete}, {"*** Move to: ", transcript.Create}} {
			if p, ok := strings.CutPrefix(line, h.prefix); ok && strings.TrimSpace(p) != "" && len(out) < handoff.MaxItems {
				out = append(out, patchFile{strings.TrimSpace(p), h.op})
			}
		}
	}
	return out
}

// sessionCache keeps the session table of the databases read last
// (sqlitefile.StateCache): a full search index reads every session.
var sessionCache sqlitefile.StateCache[[]sessionRow]

// cachedSessions is sessions(db), kept while db's files stay as they are.
func cachedSessions(db *sqlitefile.DB) ([]sessionRow, error) { return sessionCache.Get(db, sessions) }

package qwen

import (
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// A Qwen Code session is JSON Lines, one ChatRecord a line
// (packages/core/src/services/chatRecordingService.ts, createBaseRecord):
// uuid and parentUuid, which link the records into a tree, sessionId,
// timestamp, type (user, assistant, tool_result, system), subtype,
// provenance, cwd, version (the CLI's), gitBranch, and by type:
//   - user: message, Gemini's Content ({role, parts}) of the prompt as the
//     model gets it; systemPayload.displayText is what the user typed when
//     a hook added context (hookContext), which the parts carry in a
//     <qwen:user-prompt-submit-context> part. Subtypes notification, cron,
//     goal_runtime are the CLI's own messages; mid_turn_user_message and
//     realtime_message are the user's;
//   - assistant: message (text, thought and functionCall parts), model,
//     usageMetadata, contextWindowSize;
//   - tool_result: message (functionResponse parts) and toolCallResult
//     ({callId, status, resultDisplay, error, errorType}), whose
//     resultDisplay is the shell's {type: "shell_result", exitCode,
//     outcome, output}, a file diff, a todo list, or text;
//   - system: systemPayload by subtype, of which chat_compression
//     ({info, compressedHistory}) and custom_title ({customTitle}) are
//     read, and the rest (ui_telemetry, attribution_snapshot,
//     file_history_snapshot, slash_command, at_command, session_source,
//     session_model, parent_session, rewind, turn_result and more) known
//     and skipped.
//
// A rewind re-roots the chain: the records after the turn it goes back to
// stay in the file on a dead branch. The session is the chain from the
// last record back to the first, as the CLI rebuilds it on resume
// (reconstructHistory).
type record struct {
	UUID           string          `json:"uuid"`
	ParentUUID     string          `json:"parentUuid"`
	SessionID      string          `json:"sessionId"`
	Timestamp      string          `json:"timestamp"`
	Type           string          `json:"type"`
	Subtype        string          `json:"subtype"`
	CWD            string          `json:"cwd"`
	Version        string          `json:"version"`
	GitBranch      string          `json:"gitBranch"`
	Message        *content        `json:"message"`
	Usage          *usage          `json:"usageMetadata"`
	ToolCallResult *toolCallResult `json:"toolCallResult"`
	SystemPayload  json.RawMessage `json:"systemPayload"`
	// AgentID is set on every record of a subagent's transcript.
	AgentID string `json:"agentId"`
}

// content is Gemini's Content: a role and its parts.
type content struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

type part struct {
	Text             *string           `json:"text"`
	Thought          bool              `json:"thought"`
	FunctionCall     *functionCall     `json:"functionCall"`
	FunctionResponse *functionResponse `json:"functionResponse"`
}

type functionCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResponse struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Response struct {
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
	} `json:"response"`
}

type usage struct {
	Prompt     int64 `json:"promptTokenCount"`
	Candidates int64 `json:"candidatesTokenCount"`
	Thoughts   int64 `json:"thoughtsTokenCount"`
	Cached     int64 `json:"cachedContentTokenCount"`
}

type toolCallResult struct {
	CallID        string          `json:"callId"`
	Status        string          `json:"status"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
	ErrorType     string          `json:"errorType"`
}

// display is the resultDisplay objects read: the shell's result and the
// todo list.
type display struct {
	Type     string `json:"type"`
	ExitCode *int   `json:"exitCode"`
	Outcome  string `json:"outcome"`
	Output   string `json:"output"`
	Todos    []todo `json:"todos"`
}

type todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// toolArgs are the arguments of the tools read: run_shell_command
// (command), write_file, edit, read_file (file_path), notebook_edit
// (notebook_path), todo_write (todos), and tool_call, which calls a
// deferred tool by name with its arguments.
type toolArgs struct {
	Command      string          `json:"command"`
	FilePath     string          `json:"file_path"`
	NotebookPath string          `json:"notebook_path"`
	Todos        []todo          `json:"todos"`
	Name         string          `json:"name"`
	Arguments    json.RawMessage `json:"arguments"`
}

type userPayload struct {
	DisplayText *string `json:"displayText"`
}

type compressionPayload struct {
	CompressedHistory []content `json:"compressedHistory"`
}

type titlePayload struct {
	CustomTitle string `json:"customTitle"`
}

type turnResultPayload struct {
	State string `json:"state"`
}

// resumeTrailer is what Qwen Code appends to a compaction summary before
// it puts it into the history (RESUME_TRAILER, postProcessSummary in
// chatCompressionService.ts): an instruction to the model, not the
// summary.
const resumeTrailer = "Resume the prior task using the summary above."

// hookContextTag opens the part that carries a UserPromptSubmit hook's
// context (packages/core/src/hooks/user-prompt-submit-context.ts).
const hookContextTag = "<qwen:"

// knownSystem says whether subtype is one of the system records 0.24.4
// writes that the digest does not use (chatRecordingService.ts).
func knownSystem(subtype string) bool {
	switch subtype {
	case "ui_telemetry", "attribution_snapshot", "file_history_snapshot", "slash_command", "at_command",
		"session_source", "session_model", "parent_session", "rewind", "omni_recall", "user_text_elements",
		"session_artifact_event", "session_artifact_snapshot", "session_sources_snapshot", "branch_checkpoint",
		"goal_state", "goal_turn_end", "background_task_completed":
		return true
	}
	return false
}

// Read reads the Qwen Code session at path; id is unused: a file holds one
// session.
func (Transcripts) Read(path, _ string, lim transcript.Limits) (*transcript.Digest, error) {
	d, err := transcript.ReadOpen(path, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
		return read(r, lim)
	})
	if err != nil || d.Subagent {
		return d, err
	}
	lim.Observe = nil // a subagent's turns are not the session's
	mergeSubagents(d, path, lim)
	return d, nil
}

// Subagents: Qwen Code writes a subagent's conversation (the agent tool,
// inline or in the background) to
// projects/<project>/subagents/<session id, sanitized>/agent-<agent id>.jsonl,
// beside a .meta.json, records of the session's own shape whose every
// line carries the agent's agentId (getAgentJsonlPath,
// packages/core/src/agents/agent-transcript.ts, in chunks/chunk-DPEB6S2R.js
// of 0.24.4). Such a file is never a session: discovery lists chats/
// alone, capture refuses it and names its parent, and reading the parent
// folds in the files its subagents touched and the commands they ran,
// marked as theirs; a subagent's prompt is no request of the user's.

// maxSubagents bounds the subagents' transcripts folded into a session.
const maxSubagents = 64

// mergeSubagents folds into d the transcripts of its subagents, for a
// session read at path (projects/<project>/chats/<id>.jsonl).
func mergeSubagents(d *transcript.Digest, path string, lim transcript.Limits) {
	if d.Session.ID == "" || filepath.Base(filepath.Dir(path)) != "chats" {
		return
	}
	dir := filepath.Join(filepath.Dir(filepath.Dir(path)), "subagents", safeName(d.Session.ID))
	var kids []transcript.Candidate
	transcript.ListFiles(dir, func(name string) bool {
		return strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl")
	}, &kids)
	slices.SortFunc(kids, func(a, b transcript.Candidate) int { return strings.Compare(a.Path, b.Path) })
	for _, k := range kids[:min(len(kids), maxSubagents)] {
		kid, err := transcript.ReadOpen(k.Path, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
			return read(r, lim)
		})
		if err != nil || !kid.Subagent || kid.Parent != d.Session.ID {
			continue
		}
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(k.Path), "agent-"), ".jsonl")
		transcript.MergeSubagent(d, kid, "subagent "+untrusted.OneLine(id, 64))
	}
}

// safeName is Qwen Code's sanitizeFilenameComponent: every character but
// ASCII letters, digits, _ and - becomes _.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// read reads a session in two passes: the first links the records, the
// second reads those on the session's chain.
func read(r *io.SectionReader, lim transcript.Limits) (*transcript.Digest, error) {
	live, err := chain(io.NewSectionReader(r, 0, r.Size()), lim)
	if err != nil {
		return nil, err
	}
	rd := newReader(live)
	rd.b.Observe(lim.Observe)
	if err := transcript.EachLine(io.NewSectionReader(r, 0, r.Size()), lim, &rd.b.Digest().Stats, rd.line); err != nil {
		return nil, err
	}
	return rd.finish()
}

// link is one record's place in the tree.
type link struct {
	UUID       string `json:"uuid"`
	ParentUUID string `json:"parentUuid"`
}

// chain is the set of the records on the chain that ends at the last
// record with a uuid; nil when no record has one (every record is read).
func chain(r io.Reader, lim transcript.Limits) (map[string]bool, error) {
	parent := map[string]string{}
	last := ""
	var st transcript.Stats
	err := transcript.EachLine(r, lim, &st, func(line []byte) error {
		var l link
		if err := transcript.Decode(line, &l); err != nil {
			return err
		}
		if l.UUID != "" {
			if _, seen := parent[l.UUID]; !seen {
				parent[l.UUID] = l.ParentUUID
			}
			last = l.UUID
		}
		return nil
	})
	if err != nil || last == "" {
		return nil, err
	}
	live := map[string]bool{}
	for id := last; id != "" && !live[id]; id = parent[id] {
		live[id] = true
	}
	return live, nil
}

// reader folds the records into a digest.
type reader struct {
	b    *transcript.Builder
	live map[string]bool
	// calls are the tool calls made and not yet answered: their tool,
	// by call id.
	calls       map[string]string
	customTitle string
	firstReq    string
	cwdSet      bool
	// qwen counts the records of Qwen Code's shape: none, and the file
	// is another's.
	qwen int
}

func newReader(live map[string]bool) *reader {
	return &reader{b: transcript.NewBuilder(), live: live, calls: map[string]string{}}
}

// maxOpenCalls bounds the calls remembered: a hostile file cannot grow
// the map past it.
const maxOpenCalls = 4096

func (rd *reader) line(line []byte) error {
	var rec record
	if err := transcript.Decode(line, &rec); err != nil {
		return err
	}
	d := rd.b.Digest()
	if (&probe{UUID: rec.UUID, SessionID: rec.SessionID, Type: rec.Type, Message: rec.Message, SystemPayload: rec.SystemPayload}).qwenLine() {
		rd.qwen++
	}
	if rec.Type == "system" && rec.Subtype == "custom_title" {
		// Titles are re-appended off the chain to stay near the end.
		var p titlePayload
		if transcript.Decode(rec.SystemPayload, &p) == nil && strings.TrimSpace(p.CustomTitle) != "" {
			rd.customTitle = p.CustomTitle
		}
		return nil
	}
	if rd.live != nil && rec.UUID != "" && !rd.live[rec.UUID] {
		return nil // on a branch a rewind left
	}
	if t, ok := transcript.ParseTime(rec.Timestamp); ok {
		rd.b.Time(t)
	}
	if rec.SessionID != "" && d.Session.ID == "" {
		d.Session.ID = rec.SessionID
	}
	if rec.AgentID != "" && !d.Subagent {
		// A subagent's transcript: its session id is its parent's.
		d.Subagent = true
		d.Parent = transcript.ShortenHead(rec.SessionID, 256)
	}
	if rec.CWD != "" && !rd.cwdSet {
		rd.b.SetCWD(rec.CWD)
		rd.cwdSet = true
	}
	if rec.Version != "" && rec.Version != "unknown" {
		d.Session.AgentVersion = rec.Version
	}
	if rec.GitBranch != "" {
		d.GitBranch = rec.GitBranch
	}
	switch rec.Type {
	case "user":
		rd.user(&rec)
	case "assistant":
		rd.assistant(&rec)
	case "tool_result":
		rd.toolResult(&rec)
	case "system":
		rd.system(&rec)
	default:
		d.Stats.UnknownType(rec.Type)
	}
	return nil
}

func (rd *reader) user(rec *record) {
	switch rec.Subtype {
	case "", "mid_turn_user_message", "realtime_message":
	case "notification", "cron", "goal_runtime":
		return // the CLI's own messages to the model
	default:
		rd.b.Digest().Stats.UnknownType("user/" + rec.Subtype)
		return
	}
	text := requestText(rec.Message, rec.SystemPayload)
	if strings.TrimSpace(text) == "" {
		return
	}
	if rd.firstReq == "" {
		rd.firstReq = text
	}
	rd.b.Request(text)
}

// requestText is what the user typed: the display text when the record
// keeps one apart (a hook added context to the prompt), else the text
// parts but those of the CLI's own context.
func requestText(msg *content, payload json.RawMessage) string {
	var p userPayload
	if len(payload) > 0 && transcript.Decode(payload, &p) == nil && p.DisplayText != nil {
		return *p.DisplayText
	}
	if msg == nil {
		return ""
	}
	var parts []string
	for _, pt := range msg.Parts {
		if pt.Text != nil && !strings.HasPrefix(strings.TrimSpace(*pt.Text), hookContextTag) {
			parts = append(parts, *pt.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (rd *reader) assistant(rec *record) {
	if u := rec.Usage; u != nil {
		// promptTokenCount counts the cached tokens too.
		rd.b.Tokens(rec.UUID, handoff.Tokens{Input: max(u.Prompt-u.Cached, 0), Output: max(u.Candidates, 0) + max(u.Thoughts, 0), CacheRead: max(u.Cached, 0)})
	}
	if rec.Message == nil {
		return
	}
	for _, pt := range rec.Message.Parts {
		switch {
		case pt.FunctionCall != nil:
			rd.call(pt.FunctionCall.ID, pt.FunctionCall.Name, pt.FunctionCall.Args, 0)
		case pt.Text != nil && !pt.Thought:
			rd.b.AgentMessage(rec.UUID, *pt.Text)
		}
	}
}

// call notes a tool call: what it runs or touches, by its id. A call
// through tool_call is read as the tool it names (once: a tool_call of
// tool_call is nothing).
func (rd *reader) call(id, name string, raw json.RawMessage, depth int) {
	if id == "" {
		return
	}
	var a toolArgs
	if len(raw) > 0 && transcript.Decode(raw, &a) != nil {
		return
	}
	switch name {
	case "tool_call":
		if depth == 0 && a.Name != "" {
			rd.call(id, a.Name, a.Arguments, 1)
		}
		return
	case "run_shell_command":
		rd.b.Command(id, a.Command)
	case "write_file":
		rd.b.File(id, a.FilePath, transcript.Write, 1)
	case "edit":
		rd.b.File(id, a.FilePath, transcript.Edit, 1)
	case "notebook_edit":
		rd.b.File(id, a.NotebookPath, transcript.Edit, 1)
	case "read_file":
		rd.b.File(id, a.FilePath, transcript.Read, 0)
	case "todo_write":
	default:
		return
	}
	if len(rd.calls) < maxOpenCalls {
		rd.calls[id] = name
	}
}

func (rd *reader) toolResult(rec *record) {
	res := rec.ToolCallResult
	if res == nil {
		return
	}
	name, ok := rd.calls[res.CallID]
	if !ok {
		return
	}
	delete(rd.calls, res.CallID)
	var disp display
	// A display of another shape (text) says nothing read here.
	_ = transcript.Decode(res.ResultDisplay, &disp)
	output := disp.Output
	if output == "" {
		output = responseText(rec, res.CallID)
	}
	switch {
	case res.Status == "cancelled":
		rd.b.Status(res.CallID, handoff.StatusInterrupted, output)
		return
	case name == "todo_write":
		if res.Status == "success" && disp.Type == "todo_list" {
			rd.b.Todos(todos(disp.Todos))
		}
	}
	if res.Status == "" {
		// A subagent's transcript keeps no status (its toolCallResult is
		// the call id and the duration): a response that is an error
		// failed; of any other, how it ended is not known.
		failed := hasError(rec, res.CallID)
		rd.b.OutcomeKnown(res.CallID, nil, failed, failed, output)
		return
	}
	failed := res.Status != "success"
	var exit *int
	if disp.Type == "shell_result" {
		exit = disp.ExitCode
		failed = failed || disp.Outcome == "failed"
	}
	rd.b.Outcome(res.CallID, exit, failed, output)
}

// hasError says whether the function response to the call id is an
// error.
func hasError(rec *record, id string) bool {
	if rec.Message == nil {
		return false
	}
	for _, pt := range rec.Message.Parts {
		if fr := pt.FunctionResponse; fr != nil && fr.ID == id {
			var s string
			if transcript.Unmarshal(fr.Response.Error, &s) == nil && s != "" {
				return true
			}
		}
	}
	return false
}

// responseText is the text the tool gave the model for call id: its
// output, else its error.
func responseText(rec *record, id string) string {
	if rec.Message == nil {
		return ""
	}
	for _, pt := range rec.Message.Parts {
		if fr := pt.FunctionResponse; fr != nil && fr.ID == id {
			for _, raw := range []json.RawMessage{fr.Response.Error, fr.Response.Output} {
				var s string
				if transcript.Unmarshal(raw, &s) == nil && s != "" {
					return s
				}
			}
		}
	}
	return ""
}

func todos(in []todo) []handoff.Todo {
	out := make([]handoff.Todo, 0, len(in))
	for _, t := range in {
		out = append(out, handoff.Todo{Content: t.Content, Status: t.Status})
	}
	return out
}

func (rd *reader) system(rec *record) {
	switch rec.Subtype {
	case "chat_compression":
		var p compressionPayload
		if transcript.Decode(rec.SystemPayload, &p) != nil || len(p.CompressedHistory) == 0 {
			return
		}
		first := p.CompressedHistory[0]
		for _, pt := range first.Parts {
			if pt.Text != nil {
				summary, _, _ := strings.Cut(*pt.Text, resumeTrailer)
				if s := strings.TrimSpace(summary); s != "" {
					rd.b.Compaction(s)
				}
				return
			}
		}
	case "turn_result":
		var p turnResultPayload
		if transcript.Decode(rec.SystemPayload, &p) == nil && p.State == "cancelled" {
			rd.b.Cancel()
		}
	default:
		if !knownSystem(rec.Subtype) {
			rd.b.Digest().Stats.UnknownType("system/" + rec.Subtype)
		}
	}
}

// notQwen is the error for a file of JSON objects none of which is Qwen
// Code's.
type notQwen struct{}

func (notQwen) Error() string {
	return transcript.ErrNoRecords.Error() + " of Qwen Code (uuid, sessionId, and a message of parts or a systemPayload)"
}

func (notQwen) Unwrap() error { return transcript.ErrNoRecords }

func (rd *reader) finish() (*transcript.Digest, error) {
	d := rd.b.Digest()
	if rd.qwen == 0 {
		return nil, notQwen{}
	}
	d.Title = rd.firstReq
	if rd.customTitle != "" {
		d.Title = rd.customTitle
	}
	return rd.b.Finish(agentName)
}

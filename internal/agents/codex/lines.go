package codex

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// A Codex CLI rollout is one {timestamp, type, payload} object per line:
// session_meta, turn_context, response_item (what the model saw and did),
// event_msg (what the user interface showed) and compacted. The user's
// text appears as both an event_msg user_message and a response_item
// message; the response items also carry injected context (AGENTS.md,
// environment) that the user did not type. Reasoning items may hold
// encrypted content: they are never read beyond their type. The oldest
// rollouts hold bare response items and open with a bare meta line.

// line is a rollout line.
type line struct {
	Timestamp  string   `json:"timestamp"`
	Type       string   `json:"type"`
	Payload    *payload `json:"payload"`
	RecordType string   `json:"record_type"`
}

// payload is a line's payload, of any type: the union of the fields of
// session_meta, turn_context, event_msg, response_item and compacted that
// the reader reads. Reasoning (encrypted_content, summary), instructions
// and rate limits are left out. A bare item or meta line of the oldest
// rollouts is read as a payload too.
type payload struct {
	// response_item
	Type      string                `json:"type"`
	Role      string                `json:"role"`
	Content   transcript.TextOrJSON `json:"content"` // a string, or a list of strings and {text} parts
	Name      string                `json:"name"`
	CallID    string                `json:"call_id"`
	Arguments transcript.TextOrJSON `json:"arguments"` // JSON text in a string, or an object
	Input     string                `json:"input"`
	Action    *shellAction          `json:"action"`
	ID        string                `json:"id"`
	Output    transcript.TextOrJSON `json:"output"` // text, a list of content items, or {content, success}

	// session_meta, turn_context
	CLIVersion     string                `json:"cli_version"`
	CWD            string                `json:"cwd"`
	Timestamp      string                `json:"timestamp"`
	Git            *gitInfo              `json:"git"`
	Source         transcript.TextOrJSON `json:"source"` // a name, or {"subagent": …}
	ThreadSource   string                `json:"thread_source"`
	ParentThreadID string                `json:"parent_thread_id"`

	// event_msg, compacted
	Message          string                `json:"message"`
	LastAgentMessage string                `json:"last_agent_message"`
	Info             *tokenInfo            `json:"info"`
	ExitCode         json.Number           `json:"exit_code"`
	AggregatedOutput string                `json:"aggregated_output"`
	FormattedOutput  string                `json:"formatted_output"`
	Stdout           string                `json:"stdout"`
	Stderr           string                `json:"stderr"`
	Success          *bool                 `json:"success"`
	ThreadName       string                `json:"thread_name"`
	NumTurns         json.Number           `json:"num_turns"`
	Reason           string                `json:"reason"`
	Status           string                `json:"status"`
	Command          transcript.TextOrJSON `json:"command"` // exec_command_end of a call no response item made
	Goal             *goal                 `json:"goal"`
	// item_completed: Plan, UserMessage, and the CommandExecution and
	// FileChange items a rollout without response items holds.
	Item *completedItem `json:"item"`
	// patch_apply_end: path → change.
	Changes map[string]change `json:"changes"`
}

// firstLine is a rollout line as the first of the two passes reads it:
// enough to tell which lines make events, where turns begin and what
// rollbacks drop, without tool outputs, patch inputs and changes, or
// command records. The second pass reads the lines whole.
type firstLine struct {
	Timestamp  string        `json:"timestamp"`
	Type       string        `json:"type"`
	Payload    *firstPayload `json:"payload"`
	RecordType string        `json:"record_type"`
}

type firstPayload struct {
	Type             string                `json:"type"`
	Role             string                `json:"role"`
	Content          transcript.TextOrJSON `json:"content"`
	Name             string                `json:"name"`
	CallID           string                `json:"call_id"`
	Arguments        transcript.TextOrJSON `json:"arguments"`
	Action           *shellAction          `json:"action"`
	ID               string                `json:"id"`
	CWD              string                `json:"cwd"`
	Timestamp        string                `json:"timestamp"`
	Source           transcript.TextOrJSON `json:"source"`
	ThreadSource     string                `json:"thread_source"`
	ParentThreadID   string                `json:"parent_thread_id"`
	Message          string                `json:"message"`
	LastAgentMessage string                `json:"last_agent_message"`
	Info             *tokenInfo            `json:"info"`
	Success          *bool                 `json:"success"`
	NumTurns         json.Number           `json:"num_turns"`
	Reason           string                `json:"reason"`
	Item             *struct {
		Type    string                `json:"type"`
		Text    string                `json:"text"`
		ID      string                `json:"id"`
		Content transcript.TextOrJSON `json:"content"`
	} `json:"item"`
}

// fill sets out to what the first pass read of p, as the second would
// read it without the fields the first leaves out.
func (p *firstPayload) fill(out *payload) {
	*out = payload{Type: p.Type, Role: p.Role, Content: p.Content, Name: p.Name, CallID: p.CallID,
		Arguments: p.Arguments, Action: p.Action, ID: p.ID, CWD: p.CWD, Timestamp: p.Timestamp,
		Source: p.Source, ThreadSource: p.ThreadSource, ParentThreadID: p.ParentThreadID, Message: p.Message,
		LastAgentMessage: p.LastAgentMessage, Info: p.Info, Success: p.Success, NumTurns: p.NumTurns, Reason: p.Reason}
	if p.Item != nil {
		out.Item = &completedItem{Type: p.Item.Type, Text: p.Item.Text, ID: p.Item.ID, Content: p.Item.Content}
	}
}

type shellAction struct {
	Command          transcript.TextOrJSON `json:"command"`
	WorkingDirectory string                `json:"working_directory"`
}

type gitInfo struct {
	Branch string `json:"branch"`
}

type tokenInfo struct {
	Total *tokenUsage `json:"total_token_usage"`
}

type tokenUsage struct {
	Input  int64 `json:"input_tokens"`
	Cached int64 `json:"cached_input_tokens"`
	Output int64 `json:"output_tokens"`
}

type goal struct {
	Objective string `json:"objective"`
	Status    string `json:"status"`
}

// completedItem is a ThreadItem of an item_completed event.
type completedItem struct {
	Type             string                `json:"type"`
	Text             string                `json:"text"`
	ID               string                `json:"id"`
	Command          transcript.TextOrJSON `json:"command"`
	Status           string                `json:"status"`
	AggregatedOutput string                `json:"aggregated_output"`
	ExitCode         json.Number           `json:"exit_code"`
	Changes          map[string]change     `json:"changes"`
	Stderr           string                `json:"stderr"`
	Content          transcript.TextOrJSON `json:"content"`
}

// change is a FileChange of one path.
type change struct {
	Type     string `json:"type"`
	MovePath string `json:"move_path"`
}

// toolArgs are the arguments of the tools read: the shell tools
// (command, or cmd for exec_command; workdir), apply_patch (input or
// patch), write_stdin (session_id) and update_plan (plan).
type toolArgs struct {
	Command   transcript.TextOrJSON `json:"command"`
	Cmd       transcript.TextOrJSON `json:"cmd"`
	Workdir   string                `json:"workdir"`
	Input     string                `json:"input"`
	Patch     string                `json:"patch"`
	SessionID json.Number           `json:"session_id"`
	Plan      []planStep            `json:"plan"`
}

type planStep struct {
	Step    string `json:"step"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// textPart is a part of a message content.
type textPart struct {
	Text *string `json:"text"`
}

// outputObject is a tool output given as an object.
type outputObject struct {
	Content transcript.TextOrJSON `json:"content"`
	Success *bool                 `json:"success"`
}

// outputText is a tool output's text when it is JSON:
// {output, metadata: {exit_code}}.
type outputText struct {
	Output   *string `json:"output"`
	Metadata struct {
		ExitCode json.Number `json:"exit_code"`
	} `json:"metadata"`
}

// subagentSource is a session_meta's source when it is an object.
type subagentSource struct {
	Subagent json.RawMessage `json:"subagent"`
}

type threadSpawn struct {
	ThreadSpawn struct {
		ParentThreadID string `json:"parent_thread_id"`
	} `json:"thread_spawn"`
}

// decodeArgs decodes a tool call's arguments: an object, or JSON text of
// one in a string; false for anything else.
func decodeArgs(v transcript.TextOrJSON, args *toolArgs) bool {
	if v.IsText {
		return transcript.Decode([]byte(v.Text), args) == nil
	}
	return kind(v.JSON) == '{' && transcript.Decode(v.JSON, args) == nil
}

// kind is the first byte of a JSON value: '"', '{', '[', a digit…; 0 for
// none.
func kind(raw json.RawMessage) byte {
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// contentParts returns the text of each part of a message content: a
// string, or a list of strings and objects with text.
func contentParts(v transcript.TextOrJSON) []string {
	if v.IsText {
		return []string{v.Text}
	}
	if kind(v.JSON) != '[' {
		return nil
	}
	var items []transcript.TextOrJSON
	if transcript.DecodeValue(v.JSON, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		if it.IsText {
			out = append(out, it.Text)
			continue
		}
		var p textPart
		if kind(it.JSON) == '{' && transcript.Decode(it.JSON, &p) == nil && p.Text != nil {
			out = append(out, *p.Text)
		}
	}
	return out
}

// commandOf reads a command given as a string or an argument vector.
func commandOf(v transcript.TextOrJSON) string {
	if v.IsText {
		return v.Text
	}
	var argv []any
	if kind(v.JSON) == '[' && transcript.DecodeValue(v.JSON, &argv) == nil {
		return commandString(argv)
	}
	return ""
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

// subagentOf reads a session_meta payload: whether the thread is a
// subagent's, and its parent thread when the meta names it.
func subagentOf(p *payload) (sub bool, parent string) {
	switch src := p.Source; {
	case src.IsText:
		sub = strings.HasPrefix(src.Text, "subagent")
	case kind(src.JSON) == '{':
		var obj subagentSource
		if transcript.Decode(src.JSON, &obj) == nil && len(obj.Subagent) > 0 {
			sub = true
			var ts threadSpawn
			if kind(obj.Subagent) == '{' && transcript.Decode(obj.Subagent, &ts) == nil {
				parent = ts.ThreadSpawn.ParentThreadID
			}
		}
	}
	if p.ThreadSource == "subagent" {
		sub = true
	}
	if p.ParentThreadID != "" {
		sub = true
		parent = transcript.FirstNonEmpty(parent, p.ParentThreadID)
	}
	return sub, parent
}

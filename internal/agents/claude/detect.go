package claude

import (
	"bytes"
	"encoding/json"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Claude Code sessions (~/.claude/projects/*/*.jsonl) are lines typed
// user, assistant, summary, system, file-history-snapshot,
// queue-operation…, carrying sessionId or uuid; its print mode's
// stream-json (`claude -p --output-format stream-json`) uses session_id
// and types such as system/init and result instead.

// probe is what recognition decodes of a line: Claude Code's marks, and
// those of the other agents' lines that come first in a file when they
// do (see Detect).
type probe struct {
	Type          string `json:"type"`
	SessionID     string `json:"sessionId"`
	UUID          string `json:"uuid"`
	LeafUUID      string `json:"leafUuid"`
	MessageID     string `json:"messageId"`
	StreamSession string `json:"session_id"` // print mode's stream-json
	Message       *struct {
		Parts json.RawMessage `json:"parts"`
	} `json:"message"`
	SystemPayload json.RawMessage `json:"systemPayload"`

	// Codex rollouts: {timestamp, type, payload}, the oldest opening
	// with a bare meta line {id, instructions…}.
	Payload      json.RawMessage `json:"payload"`
	ID           string          `json:"id"`
	Instructions json.RawMessage `json:"instructions"`
	// Gemini CLI's JSON Lines: a {sessionId, projectHash…} head, $set
	// and $rewindTo lines.
	ProjectHash string          `json:"projectHash"`
	Set         json.RawMessage `json:"$set"`
	RewindTo    json.RawMessage `json:"$rewindTo"`
}

// Detect says whether head, the start of a file, is a Claude Code session
// transcript, or its print mode's output (Foreign): the first of its first
// 50 lines that is a line of a transcript format known is Claude Code's.
// A file whose first line is no whole JSON object is none (a Gemini CLI
// chat of one object spans many lines).
func (Transcripts) Detect(head []byte) (transcript.Detected, bool) {
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return transcript.Detected{}, false
	}
	lines := bytes.Split(trimmed, []byte{'\n'})
	var first struct{}
	if transcript.Decode(bytes.TrimSpace(lines[0]), &first) != nil {
		return transcript.Detected{}, false
	}
	for i, line := range lines {
		if i == 50 {
			break
		}
		var p probe
		if transcript.Decode(bytes.TrimSpace(line), &p) != nil {
			continue
		}
		switch p.kind() {
		case printMode:
			return transcript.Detected{What: "Claude Code print-mode output (--output-format stream-json), not a session transcript: capture reads ~/.claude/projects", Foreign: true}, true
		case session:
			return transcript.Detected{Agent: agentName, What: "a Claude Code session transcript"}, true
		case another:
			return transcript.Detected{}, false
		}
	}
	return transcript.Detected{}, false
}

type lineKind uint8

const (
	unknown   lineKind = iota
	session            // a line of a Claude Code session
	printMode          // a line of Claude Code's print-mode stream-json
	another            // a line of another agent's format
)

// kind says what p is a line of. Another agent's line that comes first
// in a file makes it that agent's, as it did when one function
// recognised every agent: a Codex rollout's, a `codex exec --json`
// event's, a Gemini CLI chat recording's.
func (p *probe) kind() lineKind {
	switch {
	case len(p.Payload) > 0 && codexRolloutType(p.Type):
		return another
	case codexExecEvent(p.Type):
		return another
	case p.StreamSession != "" && (p.Type == "system" || p.Type == "result" || p.Type == "stream_event" || p.Type == "user" || p.Type == "assistant"):
		return printMode
	case known(p.Type) && (p.SessionID != "" || p.UUID != "" || p.LeafUUID != "" || p.MessageID != "") && !p.geminiShaped():
		return session
	case notNull(p.Set) || notNull(p.RewindTo):
		return another
	case p.SessionID != "" && p.ProjectHash != "":
		return another
	case p.Type == "" && p.ID != "" && notNull(p.Instructions):
		return another
	}
	return unknown
}

// geminiShaped says whether a line that is typed and linked as Claude
// Code's are carries what Claude Code never writes: a message of Gemini's
// Content shape (parts, not content) or a systemPayload. Such lines are
// another agent's (Qwen Code's), whose Detect in the agents table takes
// them.
func (p *probe) geminiShaped() bool {
	return p.Message != nil && len(p.Message.Parts) > 0 || len(p.SystemPayload) > 0
}

func notNull(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// codexRolloutType says whether typ is a line type of a Codex rollout.
func codexRolloutType(typ string) bool {
	switch typ {
	case "session_meta", "response_item", "event_msg", "turn_context", "compacted":
		return true
	}
	return false
}

// codexExecEvent says whether typ is an event type of `codex exec
// --json`.
func codexExecEvent(typ string) bool {
	switch typ {
	case "thread.started", "turn.started", "turn.completed", "turn.failed",
		"item.started", "item.updated", "item.completed":
		return true
	}
	return false
}

package codex

import "encoding/json"

// What the first lines of a file tell: a rollout is {timestamp, type,
// payload} with types session_meta, response_item, event_msg,
// turn_context, compacted (the oldest: a bare meta line with id and
// instructions); `codex exec --json` prints another stream, of
// thread.started, turn.*, item.* events (openai/codex
// codex-rs/exec/src/exec_events.rs).

// detectLine is a line as detection reads it: a rollout's fields, and
// those that make it another agent's.
type detectLine struct {
	Type         string          `json:"type"`
	Payload      json.RawMessage `json:"payload"`
	ID           string          `json:"id"`
	Instructions json.RawMessage `json:"instructions"`
	// Claude Code's: session_id in its print mode's stream-json, the
	// others in its session records.
	SessionIDSnake string `json:"session_id"`
	SessionID      string `json:"sessionId"`
	UUID           string `json:"uuid"`
	LeafUUID       string `json:"leafUuid"`
	MessageID      string `json:"messageId"`
	// What Claude Code never writes: Gemini's Content (message.parts) and
	// a systemPayload, in records linked as Claude Code's are.
	Message *struct {
		Parts json.RawMessage `json:"parts"`
	} `json:"message"`
	SystemPayload json.RawMessage `json:"systemPayload"`
	// Gemini CLI's chat lines.
	Set         json.RawMessage `json:"$set"`
	RewindTo    json.RawMessage `json:"$rewindTo"`
	ProjectHash string          `json:"projectHash"`
}

// What a line tells of its file.
const (
	isNothing     = iota
	isRolloutLine // a rollout's
	isExecEvent   // an event of `codex exec --json`
	isOther       // another agent's: the file is not Codex's
)

// is says what the line tells, in the order detection always tried the
// agents: a rollout's typed line, an exec event, another agent's line (a
// Claude Code print-mode event or session record, a Gemini CLI chat
// line), a rollout's bare meta line.
func (l *detectLine) is() int {
	switch l.Type {
	case "session_meta", "response_item", "event_msg", "turn_context", "compacted":
		if len(l.Payload) > 0 {
			return isRolloutLine
		}
	case "thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated", "item.completed":
		return isExecEvent
	}
	switch {
	case l.SessionIDSnake != "" && (l.Type == "system" || l.Type == "result" || l.Type == "stream_event" || l.Type == "user" || l.Type == "assistant"):
		return isOther
	case l.Type != "" && (l.SessionID != "" || l.UUID != "" || l.LeafUUID != "" || l.MessageID != "") &&
		!(l.Message != nil && l.Message.Parts != nil) && l.SystemPayload == nil:
		return isOther
	case notNull(l.Set) || notNull(l.RewindTo):
		return isOther
	case l.SessionID != "" && l.ProjectHash != "":
		return isOther
	case l.Type == "" && l.ID != "" && notNull(l.Instructions):
		return isRolloutLine
	}
	return isNothing
}

// notNull says whether a field is there with a value other than null.
func notNull(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

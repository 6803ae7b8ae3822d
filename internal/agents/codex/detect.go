package codex

import (
	"encoding/json"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// What the first lines of a file tell: a rollout is {timestamp, type,
// payload} with types session_meta, response_item, event_msg,
// turn_context, compacted (the oldest: a bare meta line with id and
// instructions); `codex exec --json` prints another stream, of
// thread.started, turn.*, item.* events (openai/codex
// codex-rs/exec/src/exec_events.rs).

// detectLine is a line as detection reads it: a rollout's fields.
type detectLine struct {
	Type         string          `json:"type"`
	Payload      json.RawMessage `json:"payload"`
	ID           string          `json:"id"`
	Instructions json.RawMessage `json:"instructions"`
}

// DetectLine says whether line is one of a Codex rollout's, or an event
// of `codex exec --json` (Foreign) (agent.LineDetector): a typed rollout
// line with its payload, an exec event, or a rollout's bare meta line.
func (Transcripts) DetectLine(line []byte) (transcript.Detected, bool) {
	var l detectLine
	if transcript.Decode(line, &l) != nil {
		return transcript.Detected{}, false
	}
	switch l.Type {
	case "session_meta", "response_item", "event_msg", "turn_context", "compacted":
		if len(l.Payload) > 0 {
			return rollout, true
		}
	case "thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated", "item.completed":
		return transcript.Detected{What: "a `codex exec --json` event stream, not a session rollout: capture reads the rollout in ~/.codex/sessions", Foreign: true}, true
	case "":
		if l.ID != "" && len(l.Instructions) > 0 && string(l.Instructions) != "null" {
			return rollout, true
		}
	}
	return transcript.Detected{}, false
}

// rollout is what a Codex session rollout is detected as.
var rollout = transcript.Detected{Agent: agentName, What: "a Codex session rollout"}

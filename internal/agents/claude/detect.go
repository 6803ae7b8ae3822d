package claude

import (
	"bytes"
	"encoding/json"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Claude Code sessions (~/.claude/projects/*/*.jsonl) are lines typed
// user, assistant, summary, system, file-history-snapshot,
// queue-operation…, carrying sessionId or uuid; its print mode's
// stream-json (`claude -p --output-format stream-json`) uses session_id
// and types such as system/init and result instead.

// probe is what recognition decodes of a line: Claude Code's marks.
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
}

// Detect says whether head, the start of a file, is a Claude Code session
// transcript, or its print mode's output (Foreign): one of its first
// lines is a line of either (DetectLine). A file whose first line is no
// whole JSON object is none. Which agent's line comes first in a file
// that mixes them is capture.Detect's to weigh.
func (t Transcripts) Detect(head []byte) (transcript.Detected, bool) {
	lines := bytes.Split(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte{'\n'})
	var first struct{}
	if transcript.Decode(bytes.TrimSpace(lines[0]), &first) != nil {
		return transcript.Detected{}, false
	}
	for i, line := range lines {
		if i == agent.MaxDetectLines {
			break
		}
		if d, ok := t.DetectLine(bytes.TrimSpace(line)); ok {
			return d, true
		}
	}
	return transcript.Detected{}, false
}

// DetectLine says whether line is one of a Claude Code session's, or of
// its print mode's stream-json (Foreign) (agent.LineDetector).
func (Transcripts) DetectLine(line []byte) (transcript.Detected, bool) {
	var p probe
	if transcript.Decode(line, &p) != nil {
		return transcript.Detected{}, false
	}
	switch {
	case p.StreamSession != "" && (p.Type == "system" || p.Type == "result" || p.Type == "stream_event" || p.Type == "user" || p.Type == "assistant"):
		return transcript.Detected{What: "Claude Code print-mode output (--output-format stream-json), not a session transcript: capture reads ~/.claude/projects", Foreign: true}, true
	case known(p.Type) && (p.SessionID != "" || p.UUID != "" || p.LeafUUID != "" || p.MessageID != "") && !p.geminiShaped():
		return transcript.Detected{Agent: agentName, What: "a Claude Code session transcript"}, true
	}
	return transcript.Detected{}, false
}

// geminiShaped says whether a line that is typed and linked as Claude
// Code's are carries what Claude Code never writes: a message of Gemini's
// Content shape (parts, not content) or a systemPayload. Such lines are
// another agent's (Qwen Code's), whose Detect in the agents table takes
// them.
func (p *probe) geminiShaped() bool {
	return p.Message != nil && len(p.Message.Parts) > 0 || len(p.SystemPayload) > 0
}

package transcript

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
)

// What a transcript file looks like, read from its first lines: the agent
// whose session it is, or, for a file no reader takes, a description to
// name in the error. The record types are those each agent writes:
//   - Claude Code sessions (~/.claude/projects/*/*.jsonl): lines typed
//     user, assistant, summary, system, file-history-snapshot,
//     queue-operation…, carrying sessionId or uuid; its print mode's
//     stream-json (`claude -p --output-format stream-json`) uses
//     session_id and types such as system/init and result instead;
//   - Codex rollouts (~/.codex/sessions): {timestamp, type, payload} with
//     types session_meta, response_item, event_msg, turn_context,
//     compacted (the oldest: a bare meta line); `codex exec --json`
//     prints another stream, of thread.started, turn.*, item.* events
//     (openai/codex codex-rs/exec/src/exec_events.rs);
//   - Gemini CLI chats: one JSON object with sessionId and messages (up to
//     early 2026), or JSON Lines opening with {sessionId, projectHash,
//     startTime, kind} and messages, $set and $rewindTo lines; its
//     logs.json is a prompt log, a JSON array of {sessionId, messageId,
//     type, message}, not a chat.

// KnownToThisVersion ends the description of JSON no reader takes; the
// caller that knows the table names the agents after it.
const KnownToThisVersion = "known to this version"

// DetectBytes bounds what detection reads.
const DetectBytes = 64 << 10

// Detected is what a file looks like.
type Detected struct {
	// Agent is the agent whose session the file is; "" when none.
	Agent Agent
	// What describes the file in words ("a Codex session rollout").
	What string
	// Foreign is set for a file recognised as another tool's output (a
	// prompt log, an event stream): no reader can take it.
	Foreign bool
	// owner is the agent whose other output a Foreign file is.
	owner Agent
}

// DetectFile reads the start of a transcript file and says what it is.
func DetectFile(path string) (Detected, error) {
	f, err := os.Open(path)
	if err != nil {
		return Detected{}, err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, DetectBytes))
	if err != nil {
		return Detected{}, fmt.Errorf("%s: %w", path, err)
	}
	return Detect(head), nil
}

// Detect says what a transcript whose first bytes are head looks like.
func Detect(head []byte) Detected {
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case len(trimmed) == 0:
		return Detected{What: "an empty file"}
	case trimmed[0] == '[':
		if bytes.Contains(trimmed, []byte(`"messageId"`)) && bytes.Contains(trimmed, []byte(`"sessionId"`)) {
			return Detected{What: "a Gemini CLI prompt log (logs.json), not a chat recording: capture reads ~/.gemini/tmp/*/chats", Foreign: true, owner: Gemini}
		}
		return Detected{What: "a JSON array, not a transcript"}
	case trimmed[0] != '{':
		return Detected{What: "not JSON (a transcript is JSON Lines or, for older Gemini CLI chats, one JSON object)"}
	}
	lines := bytes.Split(trimmed, []byte{'\n'})
	// A Gemini chat of one object spans many lines: its first line is
	// not a whole object.
	if first, ok := DecodeObject(bytes.TrimSpace(lines[0])); !ok || first == nil {
		// Another agent's session of one object has these keys too,
		// beside updated_at and origin, which a Gemini chat has not.
		other := bytes.Contains(trimmed, []byte(`"updated_at"`)) && bytes.Contains(trimmed, []byte(`"origin"`))
		if bytes.Contains(trimmed, []byte(`"messages"`)) && bytes.Contains(trimmed, []byte(`"sessionId"`)) && !other {
			return Detected{Agent: Gemini, What: "a Gemini CLI chat recording"}
		}
		return Detected{What: "JSON of no transcript format " + KnownToThisVersion}
	}
	for i, line := range lines {
		if i == 50 {
			break
		}
		m, ok := DecodeObject(bytes.TrimSpace(line))
		if !ok || m == nil {
			continue
		}
		if d, ok := detectLine(m); ok {
			return d
		}
	}
	return Detected{What: "JSON Lines of no transcript format " + KnownToThisVersion}
}

// detectLine recognises one line of a JSON Lines file, when it can.
func detectLine(m map[string]any) (Detected, bool) {
	typ := getStr(m, "type")
	_, hasPayload := m["payload"]
	switch {
	case hasPayload && codexLineTypes()[typ]:
		return Detected{Agent: Codex, What: "a Codex session rollout"}, true
	case codexExecEvents()[typ]:
		return Detected{What: "a `codex exec --json` event stream, not a session rollout: capture reads the rollout in ~/.codex/sessions", Foreign: true, owner: Codex}, true
	case getStr(m, "session_id") != "" && (typ == "system" || typ == "result" || typ == "stream_event" || typ == "user" || typ == "assistant"):
		return Detected{What: "Claude Code print-mode output (--output-format stream-json), not a session transcript: capture reads ~/.claude/projects", Foreign: true, owner: ClaudeCode}, true
	case claudeKnown()[typ] && (getStr(m, "sessionId") != "" || getStr(m, "uuid") != "" || getStr(m, "leafUuid") != "" || getStr(m, "messageId") != "") && !geminiShaped(m):
		return Detected{Agent: ClaudeCode, What: "a Claude Code session transcript"}, true
	case m["$set"] != nil || m["$rewindTo"] != nil:
		return Detected{Agent: Gemini, What: "a Gemini CLI chat recording"}, true
	case getStr(m, "sessionId") != "" && getStr(m, "projectHash") != "":
		return Detected{Agent: Gemini, What: "a Gemini CLI chat recording"}, true
	case typ == "" && getStr(m, "id") != "" && m["instructions"] != nil:
		return Detected{Agent: Codex, What: "a Codex session rollout"}, true
	}
	return Detected{}, false
}

// geminiShaped says whether a line that is typed and linked as Claude
// Code's are carries what Claude Code never writes: a message of Gemini's
// Content shape (parts, not content) or a systemPayload. Such lines are
// another agent's, whose Detect in the agents table takes them.
func geminiShaped(m map[string]any) bool {
	_, parts := getMap(m, "message")["parts"]
	_, payload := m["systemPayload"]
	return parts || payload
}

var codexLineTypes = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true,
	}
})

// codexExecEvents() are the event types of `codex exec --json`.
var codexExecEvents = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"thread.started": true, "turn.started": true, "turn.completed": true, "turn.failed": true,
		"item.started": true, "item.updated": true, "item.completed": true,
	}
})

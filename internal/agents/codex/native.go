package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/carry"
)

// Native writes Codex CLI rollouts (launch --native): one JSON object a
// line, each {"timestamp", "ordinal", "type", "payload"}, in
// sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl under
// CODEX_HOME (~/.codex), by the local time it began. The first line is
// the session_meta (id, timestamp, cwd, originator, cli_version, source);
// each user turn is a user_message event and a user message item; each
// assistant turn an assistant message item; each tool call a
// function_call item (exec_command {"cmd"} for a shell command,
// imported_tool_call {"tool", "arguments", "files"} for another) and its
// function_call_output,
// always written, since the model's API refuses a call without one. The
// format is read from the rollouts of testdata/real-e2e (Codex CLI
// 0.171.0) and openai/codex codex-rs/protocol (RolloutLine, SessionMeta,
// ResponseItem).
type Native struct{}

// Name is the target's name.
func (Native) Name() string { return Name }

// Checked lists the Codex CLI versions the format was checked against.
func (Native) Checked() []string { return []string{"0.171.0"} }

type rolloutLine struct {
	Timestamp string `json:"timestamp"`
	Ordinal   int    `json:"ordinal"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

type contentText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Plan lays c out as a Codex rollout under o.
func (w Native) Plan(c *carry.Conversation, o carry.Options) (*carry.Planned, error) {
	d, err := carry.Begin(Name, c, o, carry.NewID, carry.FitText)
	if err != nil {
		return nil, err
	}
	n := 0
	emit := func(typ string, payload any) error {
		n++
		return d.Line(rolloutLine{Timestamp: d.Stamp(), Ordinal: n - 1, Type: typ, Payload: payload})
	}
	checked := w.Checked()
	meta := map[string]any{
		"id": d.ID, "session_id": d.ID, "timestamp": d.Now.UTC().Format("2006-01-02T15:04:05.000Z"), "cwd": o.CWD,
		"originator": "session-handoff", "cli_version": checked[len(checked)-1],
		"source": "cli", "thread_source": "user",
	}
	if err := emit("session_meta", meta); err != nil {
		return nil, err
	}
	for i, t := range d.Want.Turns {
		var err error
		switch t.Kind {
		case carry.User:
			if err = emit("event_msg", map[string]any{"type": "user_message", "message": t.Text, "images": []string{}}); err == nil {
				err = emit("response_item", map[string]any{"type": "message", "role": "user", "content": []contentText{{"input_text", t.Text}}})
			}
		case carry.Assistant:
			err = emit("response_item", map[string]any{"type": "message", "role": "assistant", "content": []contentText{{"output_text", t.Text}}})
		case carry.Call:
			callID := fmt.Sprintf("imported_%d", i)
			name, args := "exec_command", map[string]any{"cmd": t.Text}
			if t.Text == "" {
				name, args = "imported_tool_call", map[string]any{"tool": t.Tool, "arguments": t.Arguments, "files": t.Files}
			}
			a, _ := json.Marshal(args)
			if err = emit("response_item", map[string]any{"type": "function_call", "name": name, "arguments": string(a), "call_id": callID}); err == nil {
				err = emit("response_item", map[string]any{"type": "function_call_output", "call_id": callID, "output": carry.CallOutput(t)})
			}
		}
		if err != nil {
			return nil, d.Turn(i, err)
		}
	}
	local := d.Now.Local()
	dir := filepath.Join(o.Home, "sessions", local.Format("2006"), local.Format("01"), local.Format("02"))
	return d.Planned(filepath.Join(dir, "rollout-"+local.Format("2006-01-02T15-04-05")+"-"+d.ID+".jsonl"),
		Agent().Program, "resume", d.ID), nil
}

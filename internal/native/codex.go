package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Codex writes Codex CLI rollouts: one JSON object a line, each
// {"timestamp", "ordinal", "type", "payload"}, in
// sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl under
// CODEX_HOME (~/.codex), by the local time it began. The first line is
// the session_meta (id, timestamp, cwd, originator, cli_version, source);
// each user turn is a user_message event and a user message item; each
// assistant turn an assistant message item; each tool call a
// function_call item (exec_command {"cmd"} for a shell command,
// imported_tool_call {"files"} for another) and its function_call_output,
// always written, since the model's API refuses a call without one. The
// format is read from the rollouts of internal/agents/codex/testdata/
// real-e2e (Codex CLI 0.171.0) and openai/codex codex-rs/protocol
// (RolloutLine, SessionMeta, ResponseItem).
type Codex struct{}

// Name is the target's name.
func (Codex) Name() string { return agents.Codex }

// Checked lists the Codex CLI versions the format was checked against.
func (Codex) Checked() []string { return []string{"0.171.0"} }

type codexLine struct {
	Timestamp string `json:"timestamp"`
	Ordinal   int    `json:"ordinal"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

type codexText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Plan lays c out as a Codex rollout under o.
func (w Codex) Plan(c *Conversation, o Options) (*Planned, error) {
	if o.Home == "" || o.CWD == "" {
		return nil, fmt.Errorf("codex: no home or working directory to write for")
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	id := o.ID
	if id == "" {
		id = newID(now)
	}
	want := written(c, w.Name(), codexFit)
	var buf bytes.Buffer
	n := 0
	ts := now.UTC()
	emit := func(typ string, payload any) error {
		line := codexLine{Timestamp: ts.Format("2006-01-02T15:04:05.000Z"), Ordinal: n, Type: typ, Payload: payload}
		n++
		ts = ts.Add(time.Millisecond)
		b, err := json.Marshal(line)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
		return nil
	}
	meta := map[string]any{
		"id": id, "session_id": id, "timestamp": ts.Format("2006-01-02T15:04:05.000Z"), "cwd": o.CWD,
		"originator": "session-handoff", "cli_version": w.Checked()[len(w.Checked())-1],
		"source": "cli", "thread_source": "user",
	}
	if err := emit("session_meta", meta); err != nil {
		return nil, err
	}
	for i, t := range want.Turns {
		var err error
		switch t.Kind {
		case User:
			if err = emit("event_msg", map[string]any{"type": "user_message", "message": t.Text, "images": []string{}}); err == nil {
				err = emit("response_item", map[string]any{"type": "message", "role": "user", "content": []codexText{{"input_text", t.Text}}})
			}
		case Assistant:
			err = emit("response_item", map[string]any{"type": "message", "role": "assistant", "content": []codexText{{"output_text", t.Text}}})
		case Call:
			callID := fmt.Sprintf("imported_%d", i)
			name, args := "exec_command", map[string]any{"cmd": t.Text}
			if t.Text == "" {
				name, args = "imported_tool_call", map[string]any{"files": t.Files}
			}
			a, _ := json.Marshal(args)
			if err = emit("response_item", map[string]any{"type": "function_call", "name": name, "arguments": string(a), "call_id": callID}); err == nil {
				err = emit("response_item", map[string]any{"type": "function_call_output", "call_id": callID, "output": callOutput(t)})
			}
		}
		if err != nil {
			return nil, fmt.Errorf("codex: turn %d: %w", i+1, err)
		}
	}
	local := now.Local()
	dir := filepath.Join(o.Home, "sessions", local.Format("2006"), local.Format("01"), local.Format("02"))
	return &Planned{
		Target: w.Name(), ID: id, Data: buf.Bytes(), conv: want,
		Path:   filepath.Join(dir, "rollout-"+local.Format("2006-01-02T15-04-05")+"-"+id+".jsonl"),
		Resume: []string{program(agents.Codex), "resume", id},
	}, nil
}

// codexFit is a turn as the Codex reader reads it back.
func codexFit(t Turn) Turn {
	switch t.Kind {
	case User:
		t.Text = transcript.ShortenMiddle(strings.TrimSpace(t.Text), transcript.MaxLastRequest)
	case Assistant:
		t.Text = transcript.ShortenMiddle(strings.TrimSpace(t.Text), transcript.MaxAgentMessage)
	case Call:
		t.Text = transcript.ShortenHead(strings.TrimSpace(t.Text), transcript.MaxCommandText)
		t.Output = transcript.ShortenMiddle(t.Output, MaxOutput)
	}
	return t
}

// callOutput is the output item's text of the call t: its exit, as Codex
// writes it, and its output.
func callOutput(t Turn) string {
	var b strings.Builder
	switch {
	case t.Exit != nil:
		fmt.Fprintf(&b, "Process exited with code %d\n", *t.Exit)
	case t.Status == "":
		b.WriteString("(no result was recorded for this call)\n")
	case t.Status != "ok":
		fmt.Fprintf(&b, "Status: %s\n", t.Status)
	}
	if len(t.Files) > 0 {
		fmt.Fprintf(&b, "Files: %s\n", strings.Join(t.Files, ", "))
	}
	b.WriteString("Output:\n")
	b.WriteString(t.Output)
	return b.String()
}

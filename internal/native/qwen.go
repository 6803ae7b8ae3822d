package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/session-handoff/session-handoff/internal/agents/qwen"
)

// QwenCode writes Qwen Code sessions: one JSON object a line in
// projects/<the worktree's path, every character but a letter or digit
// turned into "-">/chats/<id>.jsonl under ~/.qwen (Qwen Code's
// sanitizeCwd), where qwen --resume ID finds it. Each line is {"uuid",
// "parentUuid" (the line before), "sessionId", "timestamp", "type",
// "cwd", "version", "message": {"role", "parts"}}: a user turn is type
// "user" with a text part; an assistant turn type "assistant", role
// "model", a text part; a shell command an assistant line with a
// run_shell_command functionCall and a "tool_result" line with its
// functionResponse and toolCallResult {"callId", "status"}. Another tool
// call becomes the assistant's words about it, as for Claude Code. The
// format is read from internal/agents/qwen/testdata/real-e2e (Qwen Code
// 0.24.4).
type QwenCode struct{}

// Name is the target's name.
func (QwenCode) Name() string { return qwen.Name }

// Checked lists the Qwen Code versions the format was checked against.
func (QwenCode) Checked() []string { return []string{"0.24.4"} }

// Plan lays c out as a Qwen Code session under o.
func (w QwenCode) Plan(c *Conversation, o Options) (*Planned, error) {
	if o.Home == "" || o.CWD == "" {
		return nil, fmt.Errorf("%s: no home or working directory to write for", w.Name())
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	id := o.ID
	if id == "" {
		id = newRandomID() // Qwen Code resumes only UUID versions 1 to 5
	}
	want := written(c, w.Name(), claudeFit)
	var buf bytes.Buffer
	ts := now.UTC()
	parent := any(nil)
	n := 0
	emit := func(typ, role string, parts []any, extra map[string]any) error {
		n++
		uuid := fmt.Sprintf("%s-%08x", id[:23], n)
		line := map[string]any{"uuid": uuid, "parentUuid": parent, "sessionId": id, "timestamp": ts.Format("2006-01-02T15:04:05.000Z"),
			"type": typ, "cwd": o.CWD, "version": w.Checked()[len(w.Checked())-1], "message": map[string]any{"role": role, "parts": parts}}
		for k, v := range extra {
			line[k] = v
		}
		b, err := json.Marshal(line)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
		parent = uuid
		ts = ts.Add(time.Millisecond)
		return nil
	}
	text := func(s string) []any { return []any{map[string]string{"text": s}} }
	for i, t := range want.Turns {
		var err error
		switch t.Kind {
		case User:
			err = emit("user", "user", text(t.Text), nil)
		case Assistant:
			err = emit("assistant", "model", text(t.Text), nil)
		case Call:
			callID := fmt.Sprintf("call_imported_%d", i)
			call := map[string]any{"functionCall": map[string]any{"id": callID, "name": "run_shell_command", "args": map[string]string{"command": t.Text, "description": "imported"}}}
			if err = emit("assistant", "model", []any{call}, nil); err != nil {
				break
			}
			status := "success"
			if t.Failed {
				status = "error"
			}
			resp := map[string]any{"functionResponse": map[string]any{"id": callID, "name": "run_shell_command", "response": map[string]string{"output": callOutput(t)}}}
			err = emit("tool_result", "user", []any{resp}, map[string]any{"toolCallResult": map[string]any{"callId": callID, "status": status}})
		}
		if err != nil {
			return nil, fmt.Errorf("%s: turn %d: %w", w.Name(), i+1, err)
		}
	}
	slug := claudeSlug(o.CWD)
	return &Planned{
		Target: w.Name(), ID: id, Data: buf.Bytes(), conv: want,
		Path:   filepath.Join(o.Home, "projects", slug, "chats", id+".jsonl"),
		Resume: []string{program(w.Name()), "--resume", id},
	}, nil
}

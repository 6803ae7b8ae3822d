package qwen

import (
	"fmt"
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/carry"
)

// Native writes Qwen Code sessions (launch --native): one JSON object a
// line in projects/<the worktree's path, every character but a letter or
// digit turned into "-">/chats/<id>.jsonl under ~/.qwen (Qwen Code's
// sanitizeCwd), where qwen --resume ID finds it; the id a random UUID
// (version 4: Qwen Code resumes only versions 1 to 5). Each line is
// {"uuid", "parentUuid" (the line before), "sessionId", "timestamp",
// "type", "cwd", "version", "message": {"role", "parts"}}: a user turn is
// type "user" with a text part; an assistant turn type "assistant", role
// "model", a text part; a shell command an assistant line with a
// run_shell_command functionCall and a "tool_result" line with its
// functionResponse and toolCallResult {"callId", "status"}. Another tool
// call becomes the assistant's words about it (carry.FitShellOnly). The
// format is read from testdata/real-e2e (Qwen Code 0.24.4).
type Native struct{}

// Name is the target's name.
func (Native) Name() string { return Name }

// Checked lists the Qwen Code versions the format was checked against.
func (Native) Checked() []string { return []string{"0.24.4"} }

// Plan lays c out as a Qwen Code session under o.
func (w Native) Plan(c *carry.Conversation, o carry.Options) (*carry.Planned, error) {
	d, err := carry.Begin(Name, c, o, carry.NewRandomID, carry.FitShellOnly)
	if err != nil {
		return nil, err
	}
	checked := w.Checked()
	emit := func(typ, role string, parts []any, extra map[string]any) error {
		uuid, parent := d.Link()
		line := map[string]any{"uuid": uuid, "parentUuid": parent, "sessionId": d.ID, "timestamp": d.Stamp(),
			"type": typ, "cwd": o.CWD, "version": checked[len(checked)-1], "message": map[string]any{"role": role, "parts": parts}}
		for k, v := range extra {
			line[k] = v
		}
		return d.Line(line)
	}
	text := func(s string) []any { return []any{map[string]string{"text": s}} }
	for i, t := range d.Want.Turns {
		var err error
		switch t.Kind {
		case carry.User:
			err = emit("user", "user", text(t.Text), nil)
		case carry.Assistant:
			err = emit("assistant", "model", text(t.Text), nil)
		case carry.Call:
			callID := fmt.Sprintf("call_imported_%d", i)
			call := map[string]any{"functionCall": map[string]any{"id": callID, "name": "run_shell_command", "args": map[string]string{"command": t.Text, "description": "imported"}}}
			if err = emit("assistant", "model", []any{call}, nil); err != nil {
				break
			}
			status := "success"
			if t.Failed {
				status = "error"
			}
			resp := map[string]any{"functionResponse": map[string]any{"id": callID, "name": "run_shell_command", "response": map[string]string{"output": carry.CallOutput(t)}}}
			err = emit("tool_result", "user", []any{resp}, map[string]any{"toolCallResult": map[string]any{"callId": callID, "status": status}})
		}
		if err != nil {
			return nil, d.Turn(i, err)
		}
	}
	return d.Planned(filepath.Join(o.Home, "projects", carry.DashPath(o.CWD), "chats", d.ID+".jsonl"), Agent().Program, "--resume", d.ID), nil
}

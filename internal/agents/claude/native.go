package claude

import (
	"fmt"
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/carry"
)

// Native writes Claude Code sessions (launch --native): one JSON object a
// line in projects/<the worktree's path, every character but a letter or
// digit turned into "-">/<id>.jsonl under ~/.claude (CLAUDE_CONFIG_DIR),
// where claude --resume ID looks for a session of that directory. Each
// line is {"parentUuid" (the line before), "isSidechain": false, "type",
// "message", "uuid", "timestamp", "userType": "external", "cwd",
// "sessionId", "version"}; a user turn is a user message with text
// content; an assistant turn an assistant message with a text block; a
// shell command a Bash tool_use block and the user message with its
// tool_result; another tool call, which Claude Code's model could not be
// shown as a call of a tool it lacks, an assistant text block saying what
// it did (carry.FitShellOnly). The format is read from testdata/real-e2e
// (Claude Code 2.1.332).
type Native struct{}

// Name is the target's name.
func (Native) Name() string { return Name }

// Checked lists the Claude Code versions the format was checked against.
func (Native) Checked() []string { return []string{"2.1.332"} }

// maxProjectDir bounds the project directory's name: Claude Code
// shortens a longer one with a hash this writer does not make.
const maxProjectDir = 200

// Plan lays c out as a Claude Code session under o.
func (w Native) Plan(c *carry.Conversation, o carry.Options) (*carry.Planned, error) {
	slug := carry.DashPath(o.CWD)
	if len(slug) > maxProjectDir {
		return nil, fmt.Errorf("%s: the worktree's path is over %d characters, which Claude Code files under a hashed name", Name, maxProjectDir)
	}
	d, err := carry.Begin(Name, c, o, carry.NewID, carry.FitShellOnly)
	if err != nil {
		return nil, err
	}
	checked := w.Checked()
	emit := func(typ string, msg any, extra map[string]any) error {
		uuid, parent := d.Link()
		line := map[string]any{"parentUuid": parent, "isSidechain": false, "type": typ, "message": msg,
			"uuid": uuid, "timestamp": d.Stamp(), "userType": "external",
			"cwd": o.CWD, "sessionId": d.ID, "version": checked[len(checked)-1]}
		for k, v := range extra {
			line[k] = v
		}
		return d.Line(line)
	}
	assistant := func(i int, blocks ...map[string]any) map[string]any {
		return map[string]any{"id": fmt.Sprintf("msg_imported_%d", i), "type": "message", "role": "assistant",
			"model": "imported", "content": blocks, "stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": 0, "output_tokens": 0}}
	}
	for i, t := range d.Want.Turns {
		var err error
		switch t.Kind {
		case carry.User:
			err = emit("user", map[string]any{"role": "user", "content": t.Text}, nil)
		case carry.Assistant:
			err = emit("assistant", assistant(i, map[string]any{"type": "text", "text": t.Text}), nil)
		case carry.Call:
			callID := fmt.Sprintf("toolu_imported_%d", i)
			use := map[string]any{"type": "tool_use", "id": callID, "name": "Bash", "input": map[string]any{"command": t.Text, "description": "imported"}}
			if err = emit("assistant", assistant(i, use), nil); err != nil {
				break
			}
			out := carry.CallOutput(t)
			err = emit("user", map[string]any{"role": "user", "content": []map[string]any{
				{"type": "tool_result", "tool_use_id": callID, "content": out, "is_error": t.Failed}}},
				map[string]any{"toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false}})
		}
		if err != nil {
			return nil, d.Turn(i, err)
		}
	}
	return d.Planned(filepath.Join(o.Home, "projects", slug, d.ID+".jsonl"), Agent().Program, "--resume", d.ID), nil
}

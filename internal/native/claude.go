package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/agents"
)

// ClaudeCode writes Claude Code sessions: one JSON object a line in
// projects/<the worktree's path, every character but a letter or digit
// turned into "-">/<id>.jsonl under ~/.claude (CLAUDE_CONFIG_DIR), where
// claude --resume ID looks for a session of that directory. Each line is
// {"parentUuid" (the line before), "isSidechain": false, "type",
// "message", "uuid", "timestamp", "userType": "external", "cwd",
// "sessionId", "version"}; a user turn is a user message with text
// content; an assistant turn an assistant message with a text block; a
// shell command a Bash tool_use block and the user message with its
// tool_result; another tool call, which Claude Code's model could not be
// shown as a call of a tool it lacks, an assistant text block saying what
// it did. The format is read from internal/agents/claude/testdata/real-e2e
// (Claude Code 2.1.332).
type ClaudeCode struct{}

// Name is the target's name.
func (ClaudeCode) Name() string { return agents.ClaudeCode }

// Checked lists the Claude Code versions the format was checked against.
func (ClaudeCode) Checked() []string { return []string{"2.1.332"} }

// maxClaudeSlug bounds the project directory's name: Claude Code shortens
// a longer one with a hash this writer does not make.
const maxClaudeSlug = 200

// claudeSlug is Claude Code's directory name for the project at cwd.
func claudeSlug(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
}

// Plan lays c out as a Claude Code session under o.
func (w ClaudeCode) Plan(c *Conversation, o Options) (*Planned, error) {
	if o.Home == "" || o.CWD == "" {
		return nil, fmt.Errorf("%s: no home or working directory to write for", w.Name())
	}
	slug := claudeSlug(o.CWD)
	if len(slug) > maxClaudeSlug {
		return nil, fmt.Errorf("%s: the worktree's path is over %d characters, which Claude Code files under a hashed name", w.Name(), maxClaudeSlug)
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	id := o.ID
	if id == "" {
		id = newID(now)
	}
	want := written(c, w.Name(), claudeFit)
	var buf bytes.Buffer
	ts := now.UTC()
	parent := any(nil)
	n := 0
	emit := func(typ string, msg any, extra map[string]any) error {
		n++
		uuid := fmt.Sprintf("%s-%08x", id[:23], n)
		line := map[string]any{"parentUuid": parent, "isSidechain": false, "type": typ, "message": msg,
			"uuid": uuid, "timestamp": ts.Format("2006-01-02T15:04:05.000Z"), "userType": "external",
			"cwd": o.CWD, "sessionId": id, "version": w.Checked()[len(w.Checked())-1]}
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
	assistant := func(i int, blocks ...map[string]any) map[string]any {
		return map[string]any{"id": fmt.Sprintf("msg_imported_%d", i), "type": "message", "role": "assistant",
			"model": "imported", "content": blocks, "stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": 0, "output_tokens": 0}}
	}
	for i, t := range want.Turns {
		var err error
		switch t.Kind {
		case User:
			err = emit("user", map[string]any{"role": "user", "content": t.Text}, nil)
		case Assistant:
			err = emit("assistant", assistant(i, map[string]any{"type": "text", "text": t.Text}), nil)
		case Call:
			callID := fmt.Sprintf("toolu_imported_%d", i)
			use := map[string]any{"type": "tool_use", "id": callID, "name": "Bash", "input": map[string]any{"command": t.Text, "description": "imported"}}
			if err = emit("assistant", assistant(i, use), nil); err != nil {
				break
			}
			out := callOutput(t)
			err = emit("user", map[string]any{"role": "user", "content": []map[string]any{
				{"type": "tool_result", "tool_use_id": callID, "content": out, "is_error": t.Failed}}},
				map[string]any{"toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false}})
		}
		if err != nil {
			return nil, fmt.Errorf("%s: turn %d: %w", w.Name(), i+1, err)
		}
	}
	return &Planned{
		Target: w.Name(), ID: id, Data: buf.Bytes(), conv: want,
		Path:   filepath.Join(o.Home, "projects", slug, id+".jsonl"),
		Resume: []string{program(w.Name()), "--resume", id},
	}, nil
}

// claudeFit is a turn as the Claude Code reader reads it back: a call
// that ran no shell command becomes the assistant's words about it.
func claudeFit(t Turn) Turn {
	if t.Kind == Call && strings.TrimSpace(t.Text) == "" {
		text := "[tool call in the source session"
		if len(t.Files) > 0 {
			text += ": " + strings.Join(t.Files, ", ")
		}
		text += "]"
		if t.Output != "" {
			text += "\nresult:\n" + t.Output
		}
		t = Turn{Kind: Assistant, Text: text}
	}
	return codexFit(t)
}

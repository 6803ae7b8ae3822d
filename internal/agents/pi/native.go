package pi

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/carry"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Native writes pi sessions (launch --native): a session file as pi
// 0.73.1's SessionManager writes one (dist/core/session-manager.js,
// newSession, _persist; docs/session-format.md), at
// sessions/--<the worktree's path without its leading separator, each
// '/', '\' and ':' as '-'>--/<the time, ':' and '.' as '-'>_<id>.jsonl
// under pi's own directory (getDefaultSessionDir), where pi --session ID
// and pi --resume look for the sessions of that directory
// (SessionManager.list reads every *.jsonl there whose first line is a
// header). The first line is the header {"type": "session", "version": 3,
// "id" (a UUID, version 7, as pi makes them), "timestamp", "cwd"}; each
// later line an entry {"type": "message", "id" (8 hex digits), "parentId"
// (the entry before; null for the first), "timestamp", "message"}: a user
// turn a user message with a text block; an assistant turn an assistant
// message with a text block (api, provider and model "imported", no
// usage); a shell command an assistant message with a toolCall of pi's
// bash tool {"command"} and a toolResult message with its output. Another
// tool call becomes the assistant's words about it (carry.FitShellOnly):
// pi's model is shown only its own tools. A session directory moved by
// $PI_CODING_AGENT_SESSION_DIR or settings' sessionDir (which pi reads
// without a directory per project) is refused.
type Native struct{}

// Name is the target's name.
func (Native) Name() string { return Name }

// Checked lists the pi versions the format was checked against.
func (Native) Checked() []string { return []string{"0.73.1"} }

// sessionDirVar moves pi's sessions (dist/config.js, ENV_SESSION_DIR).
const sessionDirVar = "PI_CODING_AGENT_SESSION_DIR"

// projectDir is pi's directory name for the sessions of the project at
// cwd.
func projectDir(cwd string) string {
	s := cwd
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) {
		s = s[1:]
	}
	return "--" + strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' {
			return '-'
		}
		return r
	}, s) + "--"
}

// movedSessions names where pi's sessions were moved to under o, if they
// were: the variable, or a settings file (pi's own, the project's) that
// sets sessionDir.
func movedSessions(o carry.Options) string {
	if o.Env(sessionDirVar) != "" {
		return "$" + sessionDirVar
	}
	for _, f := range []string{filepath.Join(o.Home, "settings.json"), filepath.Join(o.CWD, ".pi", "settings.json")} {
		var s struct {
			SessionDir string `json:"sessionDir"`
		}
		if b, err := safefile.ReadFile(f, 1<<20); err == nil && json.Unmarshal(b, &s) == nil && s.SessionDir != "" {
			return "the sessionDir of " + f
		}
	}
	return ""
}

// Plan lays c out as a pi session under o.
func (w Native) Plan(c *carry.Conversation, o carry.Options) (*carry.Planned, error) {
	if moved := movedSessions(o); moved != "" {
		return nil, fmt.Errorf("%s keeps its sessions where %s says, without a directory per project, which this writer does not write", Name, moved)
	}
	d, err := carry.Begin(Name, c, o, carry.NewID, carry.FitShellOnly)
	if err != nil {
		return nil, err
	}
	ms := d.Now.UnixMilli()
	if err := d.Line(map[string]any{"type": "session", "version": 3, "id": d.ID, "timestamp": d.Stamp(), "cwd": o.CWD}); err != nil {
		return nil, err
	}
	n := 0
	var parent any
	entry := func(msg map[string]any) error {
		n++
		id := fmt.Sprintf("%08x", n)
		msg["timestamp"] = ms + int64(n)
		err := d.Line(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": d.Stamp(), "message": msg})
		parent = id
		return err
	}
	text := func(s string) []any { return []any{map[string]string{"type": "text", "text": s}} }
	assistant := func(content []any, stop string) map[string]any {
		return map[string]any{"role": "assistant", "content": content, "api": "imported", "provider": "imported", "model": "imported",
			"usage": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
				"cost": map[string]int{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
			"stopReason": stop}
	}
	for i, t := range d.Want.Turns {
		var err error
		switch t.Kind {
		case carry.User:
			err = entry(map[string]any{"role": "user", "content": text(t.Text)})
		case carry.Assistant:
			err = entry(assistant(text(t.Text), "stop"))
		case carry.Call:
			callID := fmt.Sprintf("call_imported_%d", i)
			call := map[string]any{"type": "toolCall", "id": callID, "name": "bash", "arguments": map[string]string{"command": t.Text}}
			if err = entry(assistant([]any{call}, "toolUse")); err == nil {
				err = entry(map[string]any{"role": "toolResult", "toolCallId": callID, "toolName": "bash",
					"content": text(carry.CallOutput(t)), "isError": t.Failed})
			}
		}
		if err != nil {
			return nil, d.Turn(i, err)
		}
	}
	stamp := strings.NewReplacer(":", "-", ".", "-").Replace(d.Now.UTC().Format("2006-01-02T15:04:05.000Z"))
	return d.Planned(filepath.Join(o.Home, "sessions", projectDir(o.CWD), stamp+"_"+d.ID+".jsonl"), Agent().Program, "--session", d.ID), nil
}

// Package integrate plugs session-handoff into coding agents' own
// settings: hooks that brief the agent when a session starts and capture
// the session before compaction and when it ends. Settings files are
// edited by inserting text only, so the user's other settings, their
// order and their comments are kept, and removing the hooks takes out
// exactly what was inserted.
package integrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/session-handoff/session-handoff/internal/jsonc"
)

// Hook is one hook to install.
type Hook struct {
	// Event is the agent's event name (SessionStart, PreCompact…).
	Event string
	// Command is the shell command the agent runs.
	Command string
	// Name labels the hook where the agent's format has names (Gemini).
	Name string
	// Timeout is the hook's declared timeout in the agent's unit; 0
	// declares none.
	Timeout int
	// Flat is set for GitHub Copilot CLI's format: each hook is an entry
	// of its own, {"type": "command", "bash", "timeoutSec"}, in a file
	// that starts {"version": 1}.
	Flat bool
}

// ErrNotObject is wrapped when the settings are not a JSON object, or
// "hooks" in them is not one.
var ErrNotObject = errors.New("not a JSON object")

// insertion is text to put at an offset of the original.
type insertion struct {
	at   int
	text string
}

// Insert adds hooks to settings text. It returns the new text and the
// snippets it inserted (for Remove); the rest of the text is kept byte
// for byte.
// Empty text is treated as "{}".
func Insert(text []byte, hooks []Hook) ([]byte, []string, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		text = []byte("{}\n")
		if len(hooks) > 0 && hooks[0].Flat {
			text = []byte("{\n  \"version\": 1\n}\n")
		}
	}
	members, open, err := jsonc.TopObject(text)
	if err != nil {
		return nil, nil, err
	}
	strict := json.Valid(text)
	var ins []insertion
	hooksAt := -1
	for _, m := range members {
		if m.Key == "hooks" {
			hooksAt = m.ValueStart
		}
	}
	if hooksAt < 0 {
		var b strings.Builder
		b.WriteString("\n  \"hooks\": {")
		for i, h := range groupByEvent(hooks) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n    %q: [%s]", h.event, groups(h.hooks))
		}
		b.WriteString("\n  }")
		if len(members) > 0 {
			b.WriteString(",")
		} else {
			b.WriteString("\n")
		}
		ins = append(ins, insertion{open + 1, b.String()})
	} else {
		if text[hooksAt] != '{' {
			return nil, nil, fmt.Errorf("\"hooks\": %w", ErrNotObject)
		}
		events, err := jsonc.ObjectAt(text, hooksAt)
		if err != nil {
			return nil, nil, err
		}
		var missing []eventHooks
		for _, h := range groupByEvent(hooks) {
			found := false
			for _, m := range events {
				if m.Key != h.event {
					continue
				}
				found = true
				if text[m.ValueStart] != '[' {
					return nil, nil, fmt.Errorf("\"hooks\".%q is not an array", h.event)
				}
				n, err := jsonc.ArrayLen(text, m.ValueStart)
				if err != nil {
					return nil, nil, err
				}
				snippet := groups(h.hooks)
				if n > 0 {
					snippet += ", "
				}
				ins = append(ins, insertion{m.ValueStart + 1, snippet})
			}
			if !found {
				missing = append(missing, h)
			}
		}
		if len(missing) > 0 {
			var b strings.Builder
			for i, h := range missing {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, "\n    %q: [%s]", h.event, groups(h.hooks))
			}
			if len(events) > 0 {
				b.WriteString(",")
			}
			ins = append(ins, insertion{hooksAt + 1, b.String()})
		}
	}
	sort.Slice(ins, func(i, j int) bool { return ins[i].at > ins[j].at })
	out := append([]byte(nil), text...)
	snippets := make([]string, 0, len(ins))
	for _, in := range ins {
		out = append(out[:in.at], append([]byte(in.text), out[in.at:]...)...)
		snippets = append(snippets, in.text)
	}
	if _, _, err := jsonc.TopObject(out); err != nil {
		return nil, nil, fmt.Errorf("internal error: the edited settings do not parse: %w", err)
	}
	if strict && !json.Valid(out) {
		return nil, nil, errors.New("internal error: the edited settings are not valid JSON")
	}
	return out, snippets, nil
}

// Remove takes the snippets Insert added out of text. A snippet that is
// no longer there is skipped; one that is there more than once is an
// error, since removing either could take the user's text.
func Remove(text []byte, snippets []string) ([]byte, int, error) {
	out := text
	removed := 0
	for _, s := range snippets {
		switch n := bytes.Count(out, []byte(s)); n {
		case 0:
		case 1:
			out = bytes.Replace(out, []byte(s), nil, 1)
			removed++
		default:
			return nil, 0, fmt.Errorf("an inserted hook appears %d times; remove the session-handoff hooks by hand", n)
		}
	}
	return out, removed, nil
}

type eventHooks struct {
	event string
	hooks []Hook
}

// groupByEvent keeps the hooks' order, grouped by event.
func groupByEvent(hooks []Hook) []eventHooks {
	var out []eventHooks
	for _, h := range hooks {
		if n := len(out); n > 0 && out[n-1].event == h.Event {
			out[n-1].hooks = append(out[n-1].hooks, h)
			continue
		}
		out = append(out, eventHooks{h.Event, []Hook{h}})
	}
	return out
}

// groups renders one hook group (the agents' shared shape) as JSON.
func groups(hooks []Hook) string {
	if len(hooks) > 0 && hooks[0].Flat {
		return flatEntries(hooks)
	}
	type command struct {
		Name    string `json:"name,omitempty"`
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout,omitempty"`
	}
	type group struct {
		Hooks []command `json:"hooks"`
	}
	var g group
	for _, h := range hooks {
		g.Hooks = append(g.Hooks, command{Name: h.Name, Type: "command", Command: h.Command, Timeout: h.Timeout})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(g); err != nil {
		// Encoding strings cannot fail.
		panic(err)
	}
	return strings.TrimSpace(b.String())
}

// flatEntries renders hooks in GitHub Copilot CLI's shape: one entry a
// hook, {"type": "command", "bash", "timeoutSec"} (docs.github.com,
// "GitHub Copilot CLI hooks reference"; checked with @github/copilot
// 1.0.102).
func flatEntries(hooks []Hook) string {
	type entry struct {
		Type    string `json:"type"`
		Bash    string `json:"bash"`
		Timeout int    `json:"timeoutSec,omitempty"`
	}
	var parts []string
	for _, h := range hooks {
		b, err := json.Marshal(entry{Type: "command", Bash: h.Command, Timeout: h.Timeout})
		if err != nil {
			panic(err) // encoding strings cannot fail
		}
		parts = append(parts, string(b))
	}
	return strings.Join(parts, ", ")
}

package integrate

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Plan works out how to install the agent's hooks, running program, in
// the file at path: entries added to its settings, or for an agent that
// loads a script of ours instead (agent.HookSpec.Script) that script,
// written whole.
func (a Agent) Plan(path, program string) (*Change, error) {
	if a.Script == nil {
		return PlanInstall(path, a.Hooks(program), a.Name)
	}
	script, err := a.ScriptText(program)
	if err != nil {
		return nil, err
	}
	before, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	c := &Change{Path: path, Before: before}
	switch {
	case bytes.Equal(before, script):
		c.Nothing = true
		return c, nil
	case before != nil && !Installed(before, a.Name):
		return nil, fmt.Errorf("%s exists and is not session-handoff's: move it away, or install with --user", path)
	}
	// A script of ours that runs another program, or of another
	// version, is replaced.
	c.After, c.Snippets = script, []string{string(script)}
	return c, nil
}

// scriptHook is one hook as a script of ours runs it.
type scriptHook struct {
	Event   string `json:"event"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// ScriptText is the agent's script running program's hooks: the hooks'
// commands are JSON strings in it, as in a settings file, so that
// Installed and InstalledPrograms read it as they read settings.
func (a Agent) ScriptText(program string) ([]byte, error) {
	var hooks []scriptHook
	for _, h := range a.Hooks(program) {
		hooks = append(hooks, scriptHook{Event: h.Event, Command: h.Command, Timeout: h.Timeout})
	}
	list, err := json.MarshalIndent(hooks, "", "  ")
	if err != nil {
		return nil, err
	}
	return a.Script(list), nil
}

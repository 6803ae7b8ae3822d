package integrate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
)

// Agent says where an agent keeps its settings and which hooks
// session-handoff installs there.
type Agent struct {
	// Name is the agent's id on the command line.
	Name string
	// ProjectSettings is the settings file in a project, relative to its
	// root; UserSettings the user's own, relative to the home directory
	// (or to UserDirEnv when that is set).
	ProjectSettings string
	UserSettings    string
	UserDirEnv      string
	// Events maps our hook names (session-start, pre-compact,
	// session-end) to the agent's event names.
	Events [][2]string
	// Named is set when the agent's hook entries carry a name.
	Named bool
	// NoHooks explains what to do instead for an agent without session
	// hooks.
	NoHooks string
}

// Agents are the agents integrate knows.
var Agents = []Agent{
	{Name: "claude-code", ProjectSettings: ".claude/settings.json", UserSettings: ".claude/settings.json", UserDirEnv: "CLAUDE_CONFIG_DIR",
		Events: [][2]string{{"session-start", "SessionStart"}, {"pre-compact", "PreCompact"}, {"session-end", "SessionEnd"}}},
	{Name: "gemini", ProjectSettings: ".gemini/settings.json", UserSettings: ".gemini/settings.json",
		Events: [][2]string{{"session-start", "SessionStart"}, {"pre-compact", "PreCompress"}, {"session-end", "SessionEnd"}}, Named: true},
	{Name: "codex", NoHooks: "Codex CLI runs no hooks at session start or end. Brief it with " +
		"'session-handoff render --as instructions --target codex --write' (a block in AGENTS.md), " +
		"and capture at the end with 'session-handoff capture --from codex' (or a handover run)."},
}

// LookupAgent finds an agent by name (claude is claude-code).
func LookupAgent(name string) (Agent, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "claude" {
		n = "claude-code"
	}
	if n == "gemini-cli" {
		n = "gemini"
	}
	if n == "codex-cli" {
		n = "codex"
	}
	var names []string
	for _, a := range Agents {
		if a.Name == n {
			return a, nil
		}
		names = append(names, a.Name)
	}
	return Agent{}, fmt.Errorf("unknown agent %q: want one of %s", handoff.Shorten(handoff.CleanText(name), 32), strings.Join(names, ", "))
}

// Hooks are the hooks to install for the agent, running program (the
// path of session-handoff, or its name on PATH).
func (a Agent) Hooks(program string) []Hook {
	var out []Hook
	for _, e := range a.Events {
		h := Hook{Event: e[1], Command: shellQuote(program) + " hook " + a.Name + " " + e[0]}
		if a.Named {
			h.Name = "session-handoff-" + e[0]
		}
		out = append(out, h)
	}
	return out
}

// SettingsPath is the settings file to edit: the project's, or with user
// the user's own.
func (a Agent) SettingsPath(projectRoot, home string, user bool, getenv func(string) string) string {
	if !user {
		return filepath.Join(projectRoot, filepath.FromSlash(a.ProjectSettings))
	}
	if a.UserDirEnv != "" {
		if d := getenv(a.UserDirEnv); d != "" {
			return filepath.Join(d, filepath.Base(a.UserSettings))
		}
	}
	return filepath.Join(home, filepath.FromSlash(a.UserSettings))
}

// EventName maps our hook name to the agent's event, "" when unknown.
func (a Agent) EventName(ours string) string {
	for _, e := range a.Events {
		if e[0] == ours {
			return e[1]
		}
	}
	return ""
}

// shellQuote quotes a program path for a hook command line when it needs
// it; the Marker after it stays literal.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~%!{}") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

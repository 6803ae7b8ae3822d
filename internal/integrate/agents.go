package integrate

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agents"
)

// Agent says where an agent keeps its settings and which hooks
// session-handoff installs there.
type Agent struct {
	// Name is the agent's id on the command line.
	Name string
	// ProjectSettings is the settings file in a project, relative to its
	// root; UserSettings the user's own, relative to the home directory
	// when the agent's own directory has not moved (see SettingsPath).
	ProjectSettings string
	UserSettings    string
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
	{Name: agents.ClaudeCode, ProjectSettings: ".claude/settings.json", UserSettings: ".claude/settings.json",
		Events: [][2]string{{"session-start", "SessionStart"}, {"pre-compact", "PreCompact"}, {"session-end", "SessionEnd"}}},
	{Name: agents.Gemini, ProjectSettings: ".gemini/settings.json", UserSettings: ".gemini/settings.json",
		Events: [][2]string{{"session-start", "SessionStart"}, {"pre-compact", "PreCompress"}, {"session-end", "SessionEnd"}}, Named: true},
	{Name: agents.Codex, NoHooks: "Codex CLI runs no hooks at session start or end. Brief it with " +
		"'session-handoff render --as instructions --target codex --write' (a block in AGENTS.md), " +
		"and capture at the end with 'session-handoff capture --from codex' (or a handover run)."},
}

// LookupAgent finds an agent by any name or alias the agents table
// (internal/agents) accepts.
func LookupAgent(name string) (Agent, error) {
	info, err := agents.Lookup(name)
	if err != nil {
		return Agent{}, err
	}
	for _, a := range Agents {
		if a.Name == info.Name {
			return a, nil
		}
	}
	return Agent{}, fmt.Errorf("%s: session-handoff has no integration for it", info.Display)
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
// the user's own, in the agent's own directory as the agents table finds
// it (under home unless CLAUDE_CONFIG_DIR or GEMINI_CLI_HOME moves it).
func (a Agent) SettingsPath(projectRoot, home string, user bool, getenv func(string) string) string {
	if !user {
		return filepath.Join(projectRoot, filepath.FromSlash(a.ProjectSettings))
	}
	if info, ok := agents.Find(a.Name); ok {
		if dirs := info.Dirs(home, getenv); len(dirs) > 0 {
			return filepath.Join(dirs[0], path.Base(a.UserSettings))
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

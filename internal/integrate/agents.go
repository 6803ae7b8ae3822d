package integrate

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Event is one of our hooks as an agent knows it.
type Event = agent.HookEvent

// Agent is an agent integrate installs hooks for: its name and the hook
// settings its folder in the agents table gives (agent.HookSpec).
type Agent struct {
	// Name is the agent's id on the command line.
	Name string
	agent.HookSpec
}

// Agents are the agents integrate knows: those of the agents table
// (internal/agents) that run hooks, in its order.
var Agents = func() []Agent {
	all := agents.All()
	out := make([]Agent, 0, len(all)) // made at init: no growth
	for _, a := range all {
		if a.HookSpec != nil {
			out = append(out, Agent{Name: a.Name, HookSpec: *a.HookSpec})
		}
	}
	return out
}()

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
	if info.MCP {
		return Agent{}, fmt.Errorf("%s runs no session hooks: 'session-handoff integrate %s --mcp' registers the MCP server with it", info.Display, info.Name)
	}
	return Agent{}, fmt.Errorf("%s: session-handoff has no integration for it", info.Display)
}

// Hooks are the hooks to install for the agent, running program (the
// path of session-handoff, or its name on PATH).
func (a Agent) Hooks(program string) []Hook {
	var out []Hook
	for _, e := range a.Events {
		h := Hook{Event: e.Theirs, Command: shellQuote(program) + " hook " + a.Name + " " + e.Ours, Timeout: e.Timeout}
		if a.Named {
			h.Name = "session-handoff-" + e.Ours
		}
		h.Flat = a.Flat
		out = append(out, h)
	}
	return out
}

// Scope is which of an agent's settings files integrate edits.
type Scope int

// The scopes.
const (
	// ScopeProject is the project's shared settings file.
	ScopeProject Scope = iota
	// ScopeLocal is the project's personal settings file.
	ScopeLocal
	// ScopeUser is the user's own settings, for every project.
	ScopeUser
)

// SettingsPath is the settings file to edit: the project's, or with user
// the user's own, in the agent's own directory as the agents table finds
// it (under home unless CLAUDE_CONFIG_DIR, CODEX_HOME or GEMINI_CLI_HOME
// moves it).
func (a Agent) SettingsPath(projectRoot, home string, user bool, getenv func(string) string) string {
	s := ScopeProject
	if user {
		s = ScopeUser
	}
	p, _ := a.ScopePath(s, projectRoot, home, getenv)
	return p
}

// ScopePath is the settings file of scope s; an error when the agent has
// no such file.
func (a Agent) ScopePath(s Scope, projectRoot, home string, getenv func(string) string) (string, error) {
	switch s {
	case ScopeLocal:
		if a.LocalSettings == "" {
			return "", fmt.Errorf("%s has no personal project settings file: use --project or --user", a.Name)
		}
		return filepath.Join(projectRoot, filepath.FromSlash(a.LocalSettings)), nil
	case ScopeUser:
		if info, ok := agents.Find(a.Name); ok {
			if dirs := info.Dirs(home, getenv); len(dirs) > 0 {
				// UserSettings less the agent's directory as it is
				// when nothing moves it: ".copilot/hooks/x.json" is
				// hooks/x.json in it, ".pi/agent/extensions/x.ts"
				// extensions/x.ts; else less its first element.
				_, rest, _ := strings.Cut(a.UserSettings, "/")
				if def := info.Dirs(home, func(string) string { return "" }); len(def) > 0 {
					if rel, err := filepath.Rel(home, def[0]); err == nil {
						if r, ok := strings.CutPrefix(a.UserSettings, filepath.ToSlash(rel)+"/"); ok {
							rest = r
						}
					}
				}
				return filepath.Join(dirs[0], filepath.FromSlash(rest)), nil
			}
		}
		return filepath.Join(home, filepath.FromSlash(a.UserSettings)), nil
	default:
		return filepath.Join(projectRoot, filepath.FromSlash(a.ProjectSettings)), nil
	}
}

// InstallPath is ScopePath for a file integrate writes or removes from:
// a project's file, once links in its directories are resolved, must lie
// inside the project (safefile.Within), so that a project whose .claude
// is a link to ~/.claude cannot send a project install into the user's
// settings. A user's file is the agent's directory's own by construction
// (its base name joined to that directory).
func (a Agent) InstallPath(s Scope, projectRoot, home string, getenv func(string) string) (string, error) {
	p, err := a.ScopePath(s, projectRoot, home, getenv)
	if err != nil {
		return "", err
	}
	if s != ScopeUser {
		if err := inProject(projectRoot, p); err != nil {
			return "", err
		}
	}
	return p, nil
}

// inProject checks that path, a file integrate writes, lies inside the
// project.
func inProject(projectRoot, path string) error {
	if err := safefile.Within(projectRoot, path, "the project"); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// EventName maps our hook name to the agent's event, "" when unknown.
func (a Agent) EventName(ours string) string {
	for _, e := range a.Events {
		if e.Ours == ours {
			return e.Theirs
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

// DefaultScope is the settings file integrate edits when no scope is
// named: the project's personal file (LocalSettings) when the agent has
// one and the shared file is tracked by git, so that teammates who do not
// have session-handoff get no hooks that fail at every session; the
// shared file otherwise. tracked says whether the shared file is tracked.
func (a Agent) DefaultScope(ctx context.Context, projectRoot string) (s Scope, tracked bool, err error) {
	if a.LocalSettings == "" {
		return ScopeProject, false, nil
	}
	tracked, err = git.Tracked(ctx, filepath.Join(projectRoot, filepath.FromSlash(a.ProjectSettings)))
	if err != nil {
		return ScopeProject, false, err
	}
	if tracked {
		return ScopeLocal, true, nil
	}
	return ScopeProject, false, nil
}

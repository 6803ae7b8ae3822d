package integrate

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Event is one of our hooks as an agent knows it.
type Event struct {
	// Ours is our name for it: session-start, pre-compact, session-end.
	Ours string
	// Theirs is the agent's event name.
	Theirs string
	// Timeout is the timeout the installed hook declares, in the agent's
	// unit (seconds for Claude Code and Codex); 0 declares none.
	Timeout int
}

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
	// LocalSettings is the project's settings file that is not shared
	// with the team (not committed), relative to the root; "" when the
	// agent has none.
	LocalSettings string
	// Events are the hooks installed, in order.
	Events []Event
	// Named is set when the agent's hook entries carry a name.
	Named bool
	// Flat is set for GitHub Copilot CLI: flat hook entries (Hook.Flat),
	// camelCase input ({"sessionId", "cwd", …}, no transcript path) and
	// a session-start output of {"additionalContext"} at the top level.
	Flat bool
	// Trust says how the agent asks the user to trust newly installed
	// hooks, in one sentence; "" when it runs them as they are.
	Trust string
	// Docs is where the hook format was checked.
	Docs string
}

// Agents are the agents integrate knows.
var Agents = []Agent{
	{Name: agents.ClaudeCode, ProjectSettings: ".claude/settings.json", UserSettings: ".claude/settings.json",
		// .claude/settings.local.json is the project's personal settings
		// file, not shared with the team: Claude Code writes there itself
		// "so changes don't affect teammates" (CHANGELOG 2.1.71,
		// anthropics/claude-code at 5cfc0a1;
		// https://code.claude.com/docs/en/settings).
		LocalSettings: ".claude/settings.local.json",
		// SessionEnd hooks share a 1.5-second budget, raised to the
		// longest declared per-hook timeout up to 60 seconds
		// (https://code.claude.com/docs/en/hooks, "timeout"; CHANGELOG
		// 2.1.74, anthropics/claude-code at 5cfc0a1). PreCompact waits for
		// its hooks (600 s by default): ours declares a minute, which the
		// capture fits many times over.
		Events: []Event{{"session-start", "SessionStart", 0}, {"pre-compact", "PreCompact", 60}, {"session-end", "SessionEnd", 60}},
		Docs:   "https://code.claude.com/docs/en/hooks"},
	{Name: agents.Gemini, ProjectSettings: ".gemini/settings.json", UserSettings: ".gemini/settings.json",
		// Timeouts are in milliseconds, 60,000 by default; SessionEnd is
		// best effort (the CLI does not wait) and PreCompress advisory
		// (google-gemini/gemini-cli docs/hooks/reference.md at 5411f11).
		Events: []Event{{"session-start", "SessionStart", 0}, {"pre-compact", "PreCompress", 0}, {"session-end", "SessionEnd", 0}}, Named: true,
		Trust: "Gemini CLI runs a project's hooks only in a folder you trust, and warns before it runs a project hook it has not seen (google-gemini/gemini-cli docs/cli/trusted-folders.md, docs/hooks/best-practices.md).",
		Docs:  "https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/reference.md"},
	// Codex reads hooks from hooks.json beside each active config layer:
	// $CODEX_HOME/hooks.json and, in a project it trusts,
	// <repo>/.codex/hooks.json; on by default since [features].hooks
	// replaced codex_hooks. The shape is Claude Code's: {"hooks": {EVENT:
	// [{"matcher"?, "hooks": [{"type": "command", "command", "timeout"
	// (seconds), "statusMessage"}]}]}} (openai/codex
	// codex-rs/config/src/hook_config.rs and
	// codex-rs/hooks/src/engine/discovery.rs at 0082977;
	// https://developers.openai.com/codex/hooks). SessionEnd exists since
	// Codex 0.145 (openai/codex#33895) and is clamped to 3 seconds
	// (SESSION_END_MAX_TIMEOUT_SEC in codex-rs/hooks/src/events/session_end.rs),
	// with a warning at every start when a hook declares more.
	{Name: agents.Codex, ProjectSettings: ".codex/hooks.json", UserSettings: ".codex/hooks.json",
		Events: []Event{{"session-start", "SessionStart", 0}, {"pre-compact", "PreCompact", 60}, {"session-end", "SessionEnd", 3}},
		// A hook that is not managed runs only once the user has reviewed
		// and trusted it (its hash is kept under [hooks.state] in
		// config.toml); /hooks in the Codex CLI is where that is done
		// (codex-rs/hooks/src/engine/discovery.rs, hook_trust_status).
		Trust: "Codex runs a new hook only after you review and trust it: start codex, type /hooks and trust the three session-handoff hooks (again after each change to them); a project's .codex/hooks.json loads only in a project Codex trusts.",
		Docs:  "https://developers.openai.com/codex/hooks"},
	// GitHub Copilot CLI loads every .github/hooks/*.json of the project
	// (and of its hooks directory, ~/.copilot/hooks), {"version": 1,
	// "hooks": {EVENT: [{"type": "command", "bash", "timeoutSec"}]}}; a
	// hook's input is camelCase JSON ({"sessionId", "timestamp", "cwd",
	// "source"|"reason"}), and a sessionStart hook's {"additionalContext"}
	// reaches the model as a message of its own before the prompt
	// (checked with @github/copilot 1.0.102, offline; docs.github.com,
	// "GitHub Copilot CLI hooks reference"). The default timeout is 30 s.
	{Name: agents.Copilot, ProjectSettings: ".github/hooks/session-handoff.json", UserSettings: ".copilot/hooks/session-handoff.json",
		Events: []Event{{"session-start", "sessionStart", 0}, {"pre-compact", "preCompact", 60}, {"session-end", "sessionEnd", 60}}, Flat: true,
		// cli-main.js of 1.0.102: repo hooks load in prompt mode when the
		// folder is trusted, GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS is
		// "true" or all is allowed ("Loading repo hooks in prompt mode").
		Trust: "GitHub Copilot CLI runs a repository's hooks (.github/hooks) in a folder you have trusted; in prompt mode (-p) only with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true or COPILOT_ALLOW_ALL set.",
		Docs:  "https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference"},
	// Qwen Code reads Claude Code's shape from the hooks of its
	// settings.json (the project's .qwen/settings.json, ~/.qwen/settings.json
	// or $QWEN_HOME/settings.json): {"hooks": {EVENT: [{"matcher"?,
	// "hooks": [{"type": "command", "command", "timeout" (seconds, 60 by
	// default)}]}]}}, with Claude Code's input ({"session_id",
	// "transcript_path", "cwd", "hook_event_name", "source"|"reason"|
	// "trigger"}) and a SessionStart output of
	// {"hookSpecificOutput": {"additionalContext"}}, which reaches the
	// model in <qwen:session-start-context> with < and > escaped
	// (packages/core/src/hooks/hookEventHandler.ts, types.ts and
	// hook-timeout.ts in the bundle of 0.24.4). It fires SessionEnd only
	// when an interactive session ends or is cleared, never after a
	// prompt run (qwen -p): the session-end capture runs at Stop too, at
	// the end of every turn, each capture of a session updating the last.
	{Name: agents.QwenCode, ProjectSettings: ".qwen/settings.json", UserSettings: ".qwen/settings.json",
		Events: []Event{{"session-start", "SessionStart", 0}, {"pre-compact", "PreCompact", 60}, {"session-end", "SessionEnd", 60}, {"session-end", "Stop", 60}},
		Trust:  "Qwen Code runs a project's hooks only in a folder it trusts when folder trust is on (security.folderTrust.enabled; ~/.qwen/trustedFolders.json).",
		Docs:   "packages/core/src/hooks (github.com/QwenLM/qwen-code, @qwen-code/qwen-code 0.24.4)"},
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
				// UserSettings less its first element, the agent's
				// directory: ".copilot/hooks/x.json" is hooks/x.json there.
				_, rest, _ := strings.Cut(a.UserSettings, "/")
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

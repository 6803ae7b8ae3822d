// Package agents is the one table of the AI coding agents session-handoff
// knows by name: their names and aliases, the program that starts them,
// where they keep their own files and transcripts, the instruction file
// they read, and whether they run session hooks. Every command-facing
// parser of an agent's name (capture --from, sessions, render/launch
// --target, integrate, hook, handover steps) goes through Lookup, so that
// an alias accepted by one is accepted by all.
//
// It lives under internal/ and imports only handoff (for quoting), so that
// every user can import it: internal/capture (transcripts), the public
// targets package (render profiles and start commands, which must not
// import internal/capture: internal/archtest holds it to that), and
// internal/integrate (hooks). Keeping the table in targets would have
// made capture, a reader of transcripts, depend on targets and through it
// on render, internal/instructions and the rendering of handoffs.
package agents

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
)

// Agent describes one coding agent.
type Agent struct {
	// Name is the agent's id on the command line and in records.
	Name string
	// Display is the agent's name as people write it.
	Display string
	// Aliases are other names accepted for it, in the normal form Lookup
	// compares (lower case, '-' for '_').
	Aliases []string
	// Program is the executable that starts it, looked up on PATH.
	Program string
	// InstructionFile is the project file it reads at every start,
	// relative to the project root.
	InstructionFile string
	// Hooks is set when the agent runs hooks at session start and end
	// and integrate installs session-handoff's into them.
	Hooks bool
	// MCP is set when integrate --mcp registers session-handoff's MCP
	// server with the agent.
	MCP bool
	// Checked is the agent's version that session-handoff was last
	// checked against, end to end or on transcripts it wrote.
	Checked string
	// SessionsHelp says where the agent keeps its transcripts, for
	// help texts: the default place and the variable that moves it.
	SessionsHelp string
	// HookContextLimit is how many characters (Codex: bytes) of a
	// session-start hook's additionalContext the agent takes whole; 0
	// when it states none.
	HookContextLimit int
	// SettingsFiles are the files in a project that hold the agent's own
	// settings, where integrate installs hooks and MCP servers, relative
	// to the root; a name ending in / is the agent's directory as git
	// lists it when nothing in it is tracked.
	SettingsFiles []string

	// dirs are the agent's own directories, most preferred first: where
	// it keeps its settings and transcripts.
	dirs func(home string, getenv func(string) string) []string
	// sessions is the directory under each of dirs that holds its
	// transcripts.
	sessions string
}

// The agents' names.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	Gemini     = "gemini"
	Copilot    = "copilot"
)

var table = []Agent{
	{
		Name: ClaudeCode, Display: "Claude Code", Aliases: []string{"claude", "claudecode"},
		Program: "claude", InstructionFile: "CLAUDE.md", Hooks: true, MCP: true,
		SessionsHelp: "~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects", Checked: "2.1.332",
		// Claude Code replaces a SessionStart additionalContext over
		// 10,000 characters with a short preview and a file path
		// (https://code.claude.com/docs/en/hooks, "SessionStart";
		// issue 18).
		HookContextLimit: 10_000,
		dirs: func(home string, getenv func(string) string) []string {
			if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
				return []string{d}
			}
			cfg := getenv("XDG_CONFIG_HOME")
			if cfg == "" || !filepath.IsAbs(cfg) {
				cfg = filepath.Join(home, ".config")
			}
			return []string{filepath.Join(home, ".claude"), filepath.Join(cfg, "claude")}
		},
		sessions:      "projects",
		SettingsFiles: []string{".claude/", ".claude/settings.json", ".claude/settings.local.json", ".mcp.json"},
	},
	{
		Name: Codex, Display: "Codex CLI", Aliases: []string{"codex-cli"},
		Program: "codex", InstructionFile: "AGENTS.md", Hooks: true, MCP: true,
		SessionsHelp: "$CODEX_HOME/sessions, default ~/.codex/sessions", Checked: "0.171.0",
		// Codex writes a hook's text of more than 2,500 tokens (about 4
		// bytes each) to a file and gives the model a preview and the path
		// (HOOK_OUTPUT_TOKEN_LIMIT, openai/codex
		// codex-rs/hooks/src/output_spill.rs at 2eb791e): 10,000 bytes,
		// which a byte budget of the same size keeps to.
		HookContextLimit: 10_000,
		dirs: func(home string, getenv func(string) string) []string {
			if d := getenv("CODEX_HOME"); d != "" {
				return []string{d}
			}
			return []string{filepath.Join(home, ".codex")}
		},
		sessions:      "sessions",
		SettingsFiles: []string{".codex/", ".codex/hooks.json", ".codex/config.toml"},
	},
	{
		Name: Gemini, Display: "Gemini CLI", Aliases: []string{"gemini-cli"},
		Program: "gemini", InstructionFile: "GEMINI.md", Hooks: true, MCP: true,
		SessionsHelp: "~/.gemini/tmp, or $GEMINI_CLI_HOME/.gemini/tmp", Checked: "0.61.0",
		dirs: func(home string, getenv func(string) string) []string {
			if h := getenv("GEMINI_CLI_HOME"); h != "" {
				return []string{filepath.Join(h, ".gemini")}
			}
			return []string{filepath.Join(home, ".gemini")}
		},
		sessions:      "tmp",
		SettingsFiles: []string{".gemini/", ".gemini/settings.json"},
	},
	{
		// GitHub Copilot CLI (@github/copilot 1.0.102). It reads AGENTS.md
		// too, and .github/instructions/**/*.instructions.md (targets).
		Name: Copilot, Display: "GitHub Copilot CLI", Aliases: []string{"github-copilot", "copilot-cli"},
		Program: "copilot", InstructionFile: ".github/copilot-instructions.md", Hooks: true, MCP: true,
		SessionsHelp: "~/.copilot/session-state, or $COPILOT_HOME/session-state", Checked: "1.0.102",
		// Its directory is $COPILOT_HOME, else ~/.copilot; versions before
		// the "XDG migration" kept session-state under $XDG_STATE_HOME/.copilot,
		// which 1.0.102 moves to ~/.copilot when it starts (cli-main.js of
		// @github/copilot 1.0.102: NJ, VEt, x4n).
		dirs: func(home string, getenv func(string) string) []string {
			if d := getenv("COPILOT_HOME"); d != "" {
				return []string{d}
			}
			out := []string{filepath.Join(home, ".copilot")}
			if st := getenv("XDG_STATE_HOME"); st != "" && filepath.IsAbs(st) {
				out = append(out, filepath.Join(st, ".copilot"))
			}
			return out
		},
		sessions: "session-state",
		// .github/ and .github/hooks/ are how git lists the file while
		// nothing else there is tracked: a .github that is new as a
		// whole is then taken for integrate's, not the user's work.
		SettingsFiles: []string{".github/", ".github/hooks/", ".github/hooks/session-handoff.json", ".github/mcp.json"},
	},
}

// All returns every agent, in a fixed order.
func All() []Agent {
	out := make([]Agent, len(table))
	copy(out, table)
	return out
}

// Names lists the agents' names.
func Names() []string {
	out := make([]string, len(table))
	for i, a := range table {
		out[i] = a.Name
	}
	return out
}

// HookNames lists the agents that run session hooks.
func HookNames() []string { return namesWhere(func(a Agent) bool { return a.Hooks }) }

// MCPNames lists the agents integrate --mcp registers the server with.
func MCPNames() []string { return namesWhere(func(a Agent) bool { return a.MCP }) }

func namesWhere(keep func(Agent) bool) []string {
	var out []string
	for _, a := range table {
		if keep(a) {
			out = append(out, a.Name)
		}
	}
	return out
}

// Choices writes names and then extra as a usage line writes choices:
// "claude-code|codex|all".
func Choices(names []string, extra ...string) string {
	return strings.Join(append(append([]string(nil), names...), extra...), "|")
}

// OrList writes names as a sentence lists them: "a, b or c".
func OrList(names ...string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// IsSettingsFile says whether rel, a path relative to a project's root
// in git's form, is one of an agent's SettingsFiles: a change to it is
// the agent's or integrate's, not the user's work.
func IsSettingsFile(rel string) bool {
	rel = strings.TrimPrefix(rel, "./")
	for _, a := range table {
		for _, f := range a.SettingsFiles {
			if rel == f {
				return true
			}
		}
	}
	return false
}

// Normal is the form names are compared in: trimmed, lower case, with '_'
// read as '-'.
func Normal(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
}

// Find returns the agent named name or one of its aliases.
func Find(name string) (Agent, bool) {
	n := Normal(name)
	for _, a := range table {
		if a.Name == n {
			return a, true
		}
		for _, al := range a.Aliases {
			if al == n {
				return a, true
			}
		}
	}
	return Agent{}, false
}

// Lookup is Find with an error that quotes name cleaned and shortened (it
// may be hostile) and lists the agents' names.
func Lookup(name string) (Agent, error) {
	if a, ok := Find(name); ok {
		return a, nil
	}
	return Agent{}, fmt.Errorf("unknown agent %q: want one of %s", handoff.Shorten(handoff.CleanText(name), 40), strings.Join(Names(), ", "))
}

// Dirs are the agent's own directories (settings and transcripts), most
// preferred first, under home unless the agent's environment variable
// (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME) moves them; getenv is
// the commands' own lookup.
func (a Agent) Dirs(home string, getenv func(string) string) []string {
	if a.dirs == nil {
		return nil
	}
	return a.dirs(home, getenv)
}

// SessionRoots are the directories that hold the agent's transcripts,
// whether they exist or not.
func (a Agent) SessionRoots(home string, getenv func(string) string) []string {
	var out []string
	for _, d := range a.Dirs(home, getenv) {
		out = append(out, filepath.Join(d, a.sessions))
	}
	return out
}

// Package kilo is Kilo Code's CLI (@kilocode/cli, github.com/Kilo-Org/kilocode,
// packages/opencode) as session-handoff knows it: its entry in the agents
// table (internal/agents). The CLI is a fork of OpenCode that keeps
// OpenCode's SQLite database under its own names (kilo.db in
// ~/.local/share/kilo, KILO_DB), with the same session, message, part and
// todo tables and the same JSON in them; its sessions are read by
// OpenCode's reader (internal/agents/opencode), given Kilo's Layout.
//
// Checked against @kilocode/cli 7.7.7 (the newest release whose binary,
// @kilocode/cli-linux-x64, the npm registry holds: 7.8.1 has none there):
// its binary's own code, and a database it wrote itself offline against a
// scripted model (testdata/real-e2e, SOURCES.md).
package kilo

import (
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents/opencode"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is Kilo Code's CLI's name in the agents table.
const Name transcript.Agent = "kilo"

// checked is the version session-handoff was checked against.
const checked = "7.7.7"

// layout is Kilo's database in OpenCode's layout. Its path is
// Database.path of 7.7.7: KILO_DB (absolute, or relative to the data
// directory), else kilo.db in the data directory (the latest, beta and
// prod channels), else kilo-<channel>.db. Its schema has tables OpenCode's
// has not, created by its first migrations: kilo_board_message and
// kilo_board.
var layout = opencode.Layout{Name: Name, Display: "Kilo Code", What: "a Kilo Code database", Stem: "kilo", DBVar: "KILO_DB",
	Marks: []string{"kilo_board_message", "kilo_board"}}

// Agent is Kilo Code's CLI's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: string(Name), Display: layout.Display, Aliases: []string{"kilocode", "kilo-code", "kilocode-cli"},
		Program: "kilo", InstructionFile: "AGENTS.md", Hooks: true, MCP: true, Checked: checked,
		SessionsHelp: "~/.local/share/kilo/kilo.db, or $XDG_DATA_HOME/kilo/kilo.db, or $KILO_DB",
		OwnDirs:      opencode.Dirs(layout),
		// A project's kilo.json and plugin are integrate's when new.
		SettingsFiles: []string{"kilo.json", ".kilo/", ".kilo/plugin/", ".kilo/plugin/session-handoff.js"},
		Transcripts:   opencode.Transcripts(layout),
		Profile: agent.Profile{
			// Instruction.state of 7.7.7: AGENTS.md, CLAUDE.md (unless
			// KILO_DISABLE_CLAUDE_CODE_PROMPT) and CONTEXT.md found from
			// the directory up to the worktree's root, the user's
			// ~/.config/kilo/AGENTS.md, "instructions" in kilo.json, and
			// the rules of .kilo/rules, .kilocode/rules and the legacy
			// .kilocoderules.
			Reads: []string{"AGENTS.md, CLAUDE.md or CONTEXT.md, from the directory up to the project's root", "~/.config/kilo/AGENTS.md",
				`"instructions" in kilo.json (files and globs)`, ".kilo/rules/, .kilocode/rules/, .kilocoderules"},
			InstructionBudget: 16 << 10,
			Launch: []agent.Launch{
				{How: "write the instructions, then start the agent with a short prompt", Command: `session-handoff render --as instructions --target kilo --write && kilo --prompt "Continue the work described in AGENTS.md"`},
				// run --file attaches the file to the message, as
				// OpenCode's (kilo run --help, 7.7.7).
				{How: "headless, the handoff attached to the prompt", Command: `kilo run --file FILE "Continue the work described in the attached handoff"`},
			},
			Style: agent.Style{Agent: layout.Display, Guidance: []string{"Keep the next steps in your todo list (todowrite) and work through them in order. " + agent.CheckGuidance}},
			// "mcp" in kilo.json (or kilo.jsonc, opencode.json), the
			// project's or the user's (~/.config/kilo), each server
			// {"type": "local", "command": [program, args…]}: OpenCode's
			// config schema, which 7.7.7 keeps (ALL_CONFIG_FILES
			// kilo.jsonc, kilo.json, opencode.jsonc, opencode.json).
			MCP: &agent.MCPRegistration{ProjectFile: "kilo.json", UserFile: "~/.config/kilo/kilo.json", Format: "json", Key: "mcp", Entry: opencode.LocalEntry,
				Register: "session-handoff integrate kilo --mcp",
				Docs:     "the config schema in the binary of @kilocode/cli 7.7.7 (OpenCode's, https://opencode.ai/docs/mcp-servers/)"},
		},
		// 'kilo [project] --prompt TEXT' starts the TUI with the prompt,
		// as OpenCode's (kilo --help, 7.7.7).
		StartArgs: func(dir, message string) []string { return []string{"--prompt", message} },
		// The hooks are OpenCode's plugin, which Kilo loads as OpenCode
		// does: {plugin,plugins}/*.{ts,js} of each config directory (the
		// project's .kilo or .kilocode, the user's ~/.config/kilo), with
		// the same hooks (experimental.chat.system.transform,
		// experimental.session.compacting, the event session.idle: the
		// binary of 7.7.7). Kilo installs @kilocode/plugin into that
		// directory at its next start, online.
		HookSpec: &agent.HookSpec{ProjectSettings: ".kilo/plugin/session-handoff.js", UserSettings: ".config/kilo/plugin/session-handoff.js",
			Events: opencode.HookEvents(), Whole: opencode.Plugin(layout),
			Docs: "OpenCode's plugins (https://opencode.ai/docs/plugins/), as the binary of @kilocode/cli 7.7.7 loads them"},
	}
}

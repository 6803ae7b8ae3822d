// Package claude is Claude Code as session-handoff knows it: its entry in the
// agents table (internal/agents) and the reader of its session transcripts.
package claude

import (
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is Claude Code's name in session-handoff.
const Name = "claude-code"

// agentName is Name as the transcript package types it.
const agentName = transcript.Agent(Name)

// Agent is Claude Code's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: Name, Display: "Claude Code", Aliases: []string{"claude", "claudecode"},
		Program: "claude", InstructionFile: "CLAUDE.md", Hooks: true, MCP: true,
		SessionsHelp: "~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects", Checked: "2.1.332",
		// Claude Code replaces a SessionStart additionalContext over
		// 10,000 characters with a short preview and a file path
		// (https://code.claude.com/docs/en/hooks, "SessionStart";
		// issue 18).
		HookContextLimit: 10_000,
		OwnDirs:          Dirs,
		SessionsDir:      SessionsDir,
		SettingsFiles:    []string{".claude/", ".claude/settings.json", ".claude/settings.local.json", ".mcp.json"},
		Transcripts:      Transcripts{},
		// The model's thinking is a content block of the Messages API that
		// Claude Code keeps in message.content as the API returned it:
		// {"type":"thinking","thinking","signature"} and
		// {"type":"redacted_thinking","data"}
		// (https://docs.claude.com/en/docs/build-with-claude/extended-thinking).
		Reasoning: transcript.Reasoning{Types: []string{"thinking", "redacted_thinking"}},
		Profile: agent.Profile{
			Reads: []string{"CLAUDE.md and .claude/CLAUDE.md in the project and its parent directories",
				"CLAUDE.local.md (personal, not committed)", "~/.claude/CLAUDE.md (every project)",
				"@path imports inside those files (up to five hops)"},
			// CLAUDE.local.md: "personal project-specific preferences", read
			// beside CLAUDE.md and not committed
			// (https://code.claude.com/docs/en/memory).
			PersonalFile:      "CLAUDE.local.md",
			InstructionBudget: 24 << 10,
			Launch: []agent.Launch{
				{How: "interactive, briefed: session-handoff writes the prompt to a private file and starts the agent on it", Command: "session-handoff launch --target claude-code"},
				{How: "one-shot (print mode), prompt on stdin", Command: `claude -p "Continue the work in the handoff on stdin." < FILE`},
				{How: "interactive: write the block into CLAUDE.local.md, then start", Command: "session-handoff render --as instructions --target claude-code --write && claude"},
			},
			// No tool named: Claude Code 2.1.328 offers no task-list tool in
			// print mode (-p), where the e2e suite runs it.
			Style: agent.Style{Agent: "Claude Code", Guidance: []string{
				"If you keep a task list, put the next steps in it before you start, and mark each done as you finish it. " + agent.CheckGuidance}},
			Notes: []string{"Claude Code warns when CLAUDE.md grows large; the block is kept to about 6,000 tokens by default.",
				"render --write puts the handoff in CLAUDE.local.md, which is yours; --shared in CLAUDE.md, which the team shares."},
			// Project scope is .mcp.json at the root, {"mcpServers": {NAME:
			// {"command", "args", "env"}}}; user scope lives in ~/.claude.json and
			// is written by 'claude mcp add --scope user NAME -- COMMAND ARGS'.
			MCP: &agent.MCPRegistration{ProjectFile: ".mcp.json", UserFile: "~/.claude.json", Format: "json", Key: "mcpServers",
				Register:     "session-handoff integrate claude-code --mcp",
				RegisterUser: "claude mcp add --scope user session-handoff -- session-handoff mcp --agent claude-code",
				Docs:         "https://code.claude.com/docs/en/mcp (installation scopes)"},
		},
		// 'claude "query"' starts an interactive session with an initial
		// prompt. Reading a file outside the project asks the user once.
		// (--append-system-prompt-file would lift an imported handoff into
		// the system prompt, and some versions take it in print mode only.)
		StartArgs: func(dir, message string) []string { return []string{message} },

		Package: plugin,
		HookSpec: &agent.HookSpec{ProjectSettings: ".claude/settings.json", UserSettings: ".claude/settings.json",
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
			Events: []agent.HookEvent{{Ours: "session-start", Theirs: "SessionStart"}, {Ours: "pre-compact", Theirs: "PreCompact", Timeout: 60}, {Ours: "session-end", Theirs: "SessionEnd", Timeout: 60}},
			Docs:   "https://code.claude.com/docs/en/hooks"},
		// Its native writer (launch --native): native.go.
		Native: Native{},
	}
}

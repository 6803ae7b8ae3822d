// Package claude is Claude Code as session-handoff knows it: its entry in the
// agents table (internal/agents). Its transcript reader is still in
// internal/transcript.
package claude

import (
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Agent is Claude Code's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: string(transcript.ClaudeCode), Display: "Claude Code", Aliases: []string{"claude", "claudecode"},
		Program: "claude", InstructionFile: "CLAUDE.md", Hooks: true, MCP: true,
		SessionsHelp: "~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects", Checked: "2.1.332",
		// Claude Code replaces a SessionStart additionalContext over
		// 10,000 characters with a short preview and a file path
		// (https://code.claude.com/docs/en/hooks, "SessionStart";
		// issue 18).
		HookContextLimit: 10_000,
		OwnDirs:          transcript.ClaudeDirs,
		SessionsDir:      transcript.ClaudeSessionsDir,
		SettingsFiles:    []string{".claude/", ".claude/settings.json", ".claude/settings.local.json", ".mcp.json"},
		Transcripts:      transcript.ReaderOf(transcript.ClaudeCode),
	}
}

// Package copilot is GitHub Copilot CLI as session-handoff knows it: its entry in the
// agents table (internal/agents). Its transcript reader is still in
// internal/transcript.
package copilot

import (
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Agent is GitHub Copilot CLI's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		// GitHub Copilot CLI (@github/copilot 1.0.102). It reads AGENTS.md
		// too, and .github/instructions/**/*.instructions.md (targets).
		Name: string(transcript.Copilot), Display: "GitHub Copilot CLI", Aliases: []string{"github-copilot", "copilot-cli"},
		Program: "copilot", InstructionFile: ".github/copilot-instructions.md", Hooks: true, MCP: true,
		SessionsHelp: "~/.copilot/session-state, or $COPILOT_HOME/session-state", Checked: "1.0.102",
		// Its directory is $COPILOT_HOME, else ~/.copilot; versions before
		// the "XDG migration" kept session-state under $XDG_STATE_HOME/.copilot,
		// which 1.0.102 moves to ~/.copilot when it starts (cli-main.js of
		// @github/copilot 1.0.102: NJ, VEt, x4n).
		OwnDirs:     transcript.CopilotDirs,
		SessionsDir: transcript.CopilotSessionsDir,
		// .github/ and .github/hooks/ are how git lists the file while
		// nothing else there is tracked: a .github that is new as a
		// whole is then taken for integrate's, not the user's work.
		SettingsFiles: []string{".github/", ".github/hooks/", ".github/hooks/session-handoff.json", ".github/mcp.json"},
		Transcripts:   transcript.ReaderOf(transcript.Copilot),
	}
}

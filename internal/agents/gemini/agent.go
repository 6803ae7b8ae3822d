// Package gemini is Gemini CLI as session-handoff knows it: its entry in the
// agents table (internal/agents). Its transcript reader is still in
// internal/transcript.
package gemini

import (
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Agent is Gemini CLI's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: string(transcript.Gemini), Display: "Gemini CLI", Aliases: []string{"gemini-cli"},
		Program: "gemini", InstructionFile: "GEMINI.md", Hooks: true, MCP: true,
		SessionsHelp: "~/.gemini/tmp, or $GEMINI_CLI_HOME/.gemini/tmp", Checked: "0.61.0",
		OwnDirs:       transcript.GeminiDirs,
		SessionsDir:   transcript.GeminiSessionsDir,
		SettingsFiles: []string{".gemini/", ".gemini/settings.json"},
		Transcripts:   transcript.ReaderOf(transcript.Gemini),
	}
}

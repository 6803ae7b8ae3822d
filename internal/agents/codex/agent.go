// Package codex is Codex CLI as session-handoff knows it: its entry in the
// agents table (internal/agents). Its transcript reader is still in
// internal/transcript.
package codex

import (
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Agent is Codex CLI's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: string(transcript.Codex), Display: "Codex CLI", Aliases: []string{"codex-cli"},
		Program: "codex", InstructionFile: "AGENTS.md", Hooks: true, MCP: true,
		SessionsHelp: "$CODEX_HOME/sessions, default ~/.codex/sessions", Checked: "0.171.0",
		// Codex writes a hook's text of more than 2,500 tokens (about 4
		// bytes each) to a file and gives the model a preview and the path
		// (HOOK_OUTPUT_TOKEN_LIMIT, openai/codex
		// codex-rs/hooks/src/output_spill.rs at 2eb791e): 10,000 bytes,
		// which a byte budget of the same size keeps to.
		HookContextLimit: 10_000,
		OwnDirs:          transcript.CodexDirs,
		SessionsDir:      transcript.CodexSessionsDir,
		SettingsFiles:    []string{".codex/", ".codex/hooks.json", ".codex/config.toml"},
		Transcripts:      transcript.ReaderOf(transcript.Codex),
	}
}

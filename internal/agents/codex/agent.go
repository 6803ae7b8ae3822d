// Package codex is Codex CLI (github.com/openai/codex) as session-handoff
// knows it: its entry in the agents table (internal/agents) and the
// reader of its session rollouts: where they live (Find), how one is
// recognised (Detect), how it is read (Read), and its subagents'.
package codex

import (
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is Codex CLI's name in session-handoff.
const Name = "codex"

// agentName is Name as the transcript package types it.
const agentName = transcript.Agent(Name)

// Agent is Codex CLI's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: Name, Display: "Codex CLI", Aliases: []string{"codex-cli"},
		Program: "codex", InstructionFile: "AGENTS.md", Hooks: true, MCP: true,
		SessionsHelp: "$CODEX_HOME/sessions, default ~/.codex/sessions", Checked: "0.171.0",
		// Codex writes a hook's text of more than 2,500 tokens (about 4
		// bytes each) to a file and gives the model a preview and the path
		// (HOOK_OUTPUT_TOKEN_LIMIT, openai/codex
		// codex-rs/hooks/src/output_spill.rs at 2eb791e): 10,000 bytes,
		// which a byte budget of the same size keeps to.
		HookContextLimit: 10_000,
		OwnDirs:          Dirs,
		SessionsDir:      SessionsDir,
		SettingsFiles:    []string{".codex/", ".codex/hooks.json", ".codex/config.toml"},
		Transcripts:      Transcripts{},
		// Reasoning in a rollout (codex-rs/protocol: ResponseItem::Reasoning
		// {summary, content, encrypted_content}; EventMsg's AgentReasoning,
		// AgentReasoningRawContent and their deltas, AgentReasoningSectionBreak,
		// ReasoningContentDelta, ReasoningRawContentDelta; TurnItem::Reasoning),
		// and the reasoning_text parts of its content.
		Reasoning: transcript.Reasoning{
			Types: []string{"reasoning", "Reasoning", "reasoning_text", "agent_reasoning", "agent_reasoning_delta",
				"agent_reasoning_raw_content", "agent_reasoning_raw_content_delta", "agent_reasoning_section_break",
				"reasoning_content_delta", "reasoning_raw_content_delta", "reasoning_summary_part_added"},
			Members: []string{"encrypted_content"}},
		Profile: agent.Profile{
			Reads: []string{"~/.codex/AGENTS.md (or AGENTS.override.md), whole",
				"AGENTS.md (or AGENTS.override.md) in each directory from the git root down to the working directory, joined",
				"at most project_doc_max_bytes of those project files together (32 KiB by default)"},
			MaxFileSize:       32 << 10,
			InstructionBudget: 16 << 10,
			Launch: []agent.Launch{
				{How: "interactive, briefed: session-handoff writes the prompt to a private file and starts the agent on it", Command: "session-handoff launch --target codex"},
				{How: "one-shot, prompt on stdin (the - argument)", Command: "codex exec - < FILE"},
				{How: "interactive: write the block into AGENTS.md, then start", Command: "session-handoff render --as instructions --target codex --write && codex"},
			},
			// No tool named: codex exec 0.169.0 offers no update_plan.
			Style: agent.Style{Agent: "Codex CLI", Guidance: []string{
				"If you keep a plan, put the next steps in it before you start, and keep it current. " + agent.CheckGuidance}},
			Notes: []string{"Codex reads at most project_doc_max_bytes (32 KiB by default) of the AGENTS.md files from the git root down; the block is sized so that the root file stays under it, with the limit taken from .codex/config.toml or ~/.codex/config.toml when set.",
				"Where AGENTS.override.md exists at the root, Codex reads it instead of AGENTS.md, and the block goes there.",
				"Codex has no personal project file: AGENTS.override.md would hide AGENTS.md and ~/.codex/AGENTS.md briefs every project, so the block goes into AGENTS.md; keep it out of commits, or render a prompt instead."},
			// [mcp_servers.NAME] with command and args, in $CODEX_HOME/config.toml
			// or, for a project Codex trusts, .codex/config.toml (older Codex
			// versions read only the user's file).
			MCP: &agent.MCPRegistration{ProjectFile: ".codex/config.toml", UserFile: "~/.codex/config.toml", Format: "toml", Key: "mcp_servers",
				ProjectNote: "Codex reads a project's .codex/config.toml only when it trusts the project; --user registers the server for every project",
				Register:    "session-handoff integrate codex --mcp",
				Docs:        "https://developers.openai.com/codex/config-reference (mcp_servers), https://developers.openai.com/codex/mcp"},
		},
		// 'codex "prompt"' starts the TUI with an initial prompt; its
		// sandboxes let it read files anywhere.
		StartArgs: func(dir, message string) []string { return []string{message} },
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
		ForProject: forProject,
		HookTrust:  hookTrust,
		HookSpec: &agent.HookSpec{ProjectSettings: ".codex/hooks.json", UserSettings: ".codex/hooks.json",
			Events: []agent.HookEvent{{Ours: "session-start", Theirs: "SessionStart"}, {Ours: "pre-compact", Theirs: "PreCompact", Timeout: 60}, {Ours: "session-end", Theirs: "SessionEnd", Timeout: 3}},
			// A hook that is not managed runs only once the user has reviewed
			// and trusted it (its hash is kept under [hooks.state] in
			// config.toml); /hooks in the Codex CLI is where that is done
			// (codex-rs/hooks/src/engine/discovery.rs, hook_trust_status).
			Trust: "Codex runs a new hook only after you review and trust it: start codex, type /hooks and trust the three session-handoff hooks (again after each change to them); a project's .codex/hooks.json loads only in a project Codex trusts.",
			Docs:  "https://developers.openai.com/codex/hooks"},
		// Its native writer (launch --native): native.go.
		Native: Native{},
	}
}

// Dirs are Codex's own directories: $CODEX_HOME, or ~/.codex
// (agent.Agent.OwnDirs).
func Dirs(home string, getenv func(string) string) []string {
	if d := getenv("CODEX_HOME"); d != "" {
		return []string{d}
	}
	return []string{filepath.Join(home, ".codex")}
}

// SessionsDir is the directory under each of Dirs that holds the
// rollouts.
const SessionsDir = "sessions"

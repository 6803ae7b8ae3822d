// Package copilot is GitHub Copilot CLI as session-handoff knows it: its
// entry in the agents table (internal/agents), where its sessions live,
// how its session log is recognised and read (events.go, sessions.go,
// todosql.go), its render target, start command, MCP registration and
// hooks.
package copilot

import (
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is GitHub Copilot CLI's name on the command line and in records.
const Name = "copilot"

// Agent is GitHub Copilot CLI's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		// GitHub Copilot CLI (@github/copilot 1.0.102). It reads AGENTS.md
		// too, and .github/instructions/**/*.instructions.md (targets).
		Name: Name, Display: "GitHub Copilot CLI", Aliases: []string{"github-copilot", "copilot-cli"},
		Program: "copilot", InstructionFile: ".github/copilot-instructions.md", Hooks: true, MCP: true,
		SessionsHelp: "~/.copilot/session-state, or $COPILOT_HOME/session-state", Checked: "1.0.102",
		OwnDirs:     dirs,
		SessionsDir: "session-state",
		// .github/ and .github/hooks/ are how git lists the file while
		// nothing else there is tracked: a .github that is new as a
		// whole is then taken for integrate's, not the user's work.
		SettingsFiles: []string{".github/", ".github/hooks/", ".github/hooks/session-handoff.json", ".github/mcp.json"},
		Transcripts:   sessions{},
		// Copilot CLI's events (1.0.102's session-events.schema.json):
		// assistant.reasoning and its deltas ({reasoningId, content}), an
		// assistant.message's reasoningText, reasoningOpaque,
		// reasoningBlocks and encryptedContent, a user.message's
		// responsesReasoning; the model.* trace events hold the raw API's
		// reasoning_text, reasoning_opaque and reasoning_content.
		Reasoning: transcript.Reasoning{
			Types: []string{"assistant.reasoning", "assistant.reasoning_delta"},
			Members: []string{"reasoningText", "reasoningOpaque", "reasoningBlocks", "encryptedContent", "responsesReasoning",
				"reasoning_text", "reasoning_opaque", "reasoning_content"}},
		Profile: agent.Profile{
			Reads: []string{".github/copilot-instructions.md", ".github/instructions/**/*.instructions.md (frontmatter applyTo)", "AGENTS.md (also CLAUDE.md, GEMINI.md)"},
			// A path-specific instructions file whose applyTo matches every
			// file applies to every request; it is a file of its own, so the
			// handoff stays out of the shared one
			// (https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions).
			PersonalFile:      ".github/instructions/handoff.instructions.md",
			PersonalHeader:    "---\napplyTo: \"**\"\n---\n",
			InstructionBudget: 16 << 10,
			Launch: []agent.Launch{
				{How: "write the instructions, then start the agent with a short prompt", Command: `session-handoff render --as instructions --target copilot --write && copilot -p "Continue the work described in .github/instructions/handoff.instructions.md"`},
			},
			Style: agent.Style{Agent: "GitHub Copilot", Guidance: []string{"Work through the next steps in order. " + agent.CheckGuidance}},
			Notes: []string{"GitHub asks for repository instructions of no more than about two pages; keep the budget small."},
			// GitHub Copilot CLI 1.0.102 ('copilot mcp --help'): user servers in
			// ~/.copilot/mcp-config.json ($COPILOT_HOME), workspace servers in
			// .mcp.json or .github/mcp.json, {"mcpServers": {NAME: {"command",
			// "args"}}} (type local by default). .github/mcp.json, not .mcp.json,
			// which Claude Code's registration names itself in. A workspace's
			// servers load in a folder the user trusts; in prompt mode (-p) with
			// GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP=true too. Checked offline:
			// the tools reached the model as session-handoff-handoff_list….
			MCP: &agent.MCPRegistration{ProjectFile: ".github/mcp.json", UserFile: "~/.copilot/mcp-config.json", Format: "json", Key: "mcpServers",
				Register: "session-handoff integrate copilot --mcp",
				Docs:     "copilot mcp --help (@github/copilot 1.0.102)"},
		},
		// 'copilot -i "prompt"' starts interactive mode and runs the prompt;
		// --add-dir lets its tools read the prompt file's directory (copilot
		// --help, 1.0.102).
		StartArgs: func(dir, message string) []string { return []string{"--add-dir", dir, "-i", message} },
		// GitHub Copilot CLI loads every .github/hooks/*.json of the project
		// (and of its hooks directory, ~/.copilot/hooks), {"version": 1,
		// "hooks": {EVENT: [{"type": "command", "bash", "timeoutSec"}]}}; a
		// hook's input is camelCase JSON ({"sessionId", "timestamp", "cwd",
		// "source"|"reason"}), and a sessionStart hook's {"additionalContext"}
		// reaches the model as a message of its own before the prompt
		// (checked with @github/copilot 1.0.102, offline; docs.github.com,
		// "GitHub Copilot CLI hooks reference"). The default timeout is 30 s.
		HookSpec: &agent.HookSpec{ProjectSettings: ".github/hooks/session-handoff.json", UserSettings: ".copilot/hooks/session-handoff.json",
			Events: []agent.HookEvent{{Ours: "session-start", Theirs: "sessionStart"}, {Ours: "pre-compact", Theirs: "preCompact", Timeout: 60}, {Ours: "session-end", Theirs: "sessionEnd", Timeout: 60}}, Flat: true,
			// cli-main.js of 1.0.102: repo hooks load in prompt mode when the
			// folder is trusted, GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS is
			// "true" or all is allowed ("Loading repo hooks in prompt mode").
			Trust: "GitHub Copilot CLI runs a repository's hooks (.github/hooks) in a folder you have trusted; in prompt mode (-p) only with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true or COPILOT_ALLOW_ALL set.",
			Docs:  "https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference"},
		// Copilot writes a session's log when the session shuts down: after
		// the sessionEnd hook, and after the preCompact hook of a /compact
		// run (which fires no sessionEnd).
		LateSession: &agent.LateSession{IsID: IsSessionID, File: EventsFile, Ended: Ended},
		HookTrust:   hookTrust,
	}
}

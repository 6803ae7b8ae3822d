// Package qwen is Qwen Code (@qwen-code/qwen-code, github.com/QwenLM/qwen-code)
// as session-handoff knows it: its entry in the agents table
// (internal/agents) and the reader of its session transcripts.
//
// What is cited here is the published bundle of 0.24.4, whose chunks/*.js
// name the packages/core/src files they were built from.
package qwen

import (
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is Qwen Code's name in session-handoff.
const Name = "qwen-code"

// agentName is Name as the transcript package types it.
const agentName = transcript.Agent(Name)

// Agent is Qwen Code's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: Name, Display: "Qwen Code", Aliases: []string{"qwen"},
		Program: "qwen", InstructionFile: "QWEN.md", Hooks: true, MCP: true,
		SessionsHelp: "~/.qwen/projects/*/chats, or under $QWEN_RUNTIME_DIR or $QWEN_HOME",
		Checked:      "0.24.4",
		OwnDirs:      Dirs,
		SessionsDir:  "projects",
		// .qwen/ is how git lists the directory while nothing in it is
		// tracked.
		SettingsFiles: []string{".qwen/", ".qwen/settings.json"},
		Transcripts:   Transcripts{},
		// Qwen Code records Gemini's Content: a part marked {"thought": true}
		// is the model's thinking (packages/core/src/services/chatRecordingService.ts),
		// as are Gemini CLI's "thoughts" where a record keeps them.
		Reasoning: transcript.Reasoning{Members: []string{"thoughts", "thoughtSignature"}, Flags: []string{"thought"}},
		// Qwen Code reads QWEN.md and AGENTS.md (context.fileName changes
		// the names) from the project and its parents, ~/.qwen,
		// <root>/.qwen/QWEN.local.md, and the rules in ~/.qwen/rules and
		// <root>/.qwen/rules (loadServerHierarchicalMemory and loadRules,
		// packages/core/src/utils), the project's own only in a folder it
		// trusts. It states no size limit for them.
		Profile: agent.Profile{
			Reads: []string{"QWEN.md and AGENTS.md in the project and its parent directories (or the names set in context.fileName)",
				".qwen/QWEN.local.md in the project (personal)", ".qwen/rules/*.md (frontmatter paths for conditional rules)",
				"~/.qwen/QWEN.md and ~/.qwen/rules (every project)", "@file.md imports inside those files"},
			PersonalFile:      ".qwen/QWEN.local.md",
			InstructionBudget: 24 << 10,
			Launch: []agent.Launch{
				{How: "interactive, briefed: session-handoff writes the prompt to a private file and starts the agent on it", Command: "session-handoff launch --target qwen-code"},
				{How: "one-shot: the prompt is appended to what arrives on stdin", Command: `qwen "Continue the work in the handoff above." < FILE`},
				{How: "interactive: write the block into .qwen/QWEN.local.md, then start", Command: "session-handoff render --as instructions --target qwen-code --write && qwen"},
			},
			Style: agent.Style{Agent: "Qwen Code", Guidance: []string{"Work through the next steps in order. " + agent.CheckGuidance}},
			Notes: []string{"Qwen Code reads a project's .qwen/QWEN.local.md and .qwen/rules only in a folder it trusts (when folder trust is on)."},
			// "mcpServers": {NAME: {"command", "args"}} in settings.json,
			// the project's .qwen/settings.json or the user's (~/.qwen,
			// $QWEN_HOME). A project's server waits for the user's 'qwen mcp
			// approve NAME', bound to a hash of its configuration
			// (~/.qwen/mcpApprovals.json). Its tools are deferred: the model
			// finds them with tool_search, as mcp__session-handoff__TOOL, and
			// calls them through tool_call.
			MCP: &agent.MCPRegistration{ProjectFile: ".qwen/settings.json", UserFile: "~/.qwen/settings.json", Format: "json", Key: "mcpServers",
				Register: "session-handoff integrate qwen-code --mcp && qwen mcp approve session-handoff",
				Docs:     "qwen mcp --help (@qwen-code/qwen-code 0.24.4)"},
		},
		// 'qwen -i "prompt"' runs the prompt and stays interactive; its
		// file tools keep to the workspace, to which
		// --include-directories adds the prompt file's directory (qwen
		// --help, 0.24.4: Gemini CLI's flags, whose fork it is).
		StartArgs: func(dir, message string) []string { return []string{"--include-directories", dir, "-i", message} },
		// Qwen Code reads Claude Code's shape from the hooks of its
		// settings.json (the project's .qwen/settings.json,
		// ~/.qwen/settings.json or $QWEN_HOME/settings.json): {"hooks":
		// {EVENT: [{"matcher"?, "hooks": [{"type": "command", "command",
		// "timeout" (seconds, 60 by default)}]}]}}, with Claude Code's
		// input ({"session_id", "transcript_path", "cwd",
		// "hook_event_name", "source"|"reason"|"trigger"}) and a
		// SessionStart output of {"hookSpecificOutput":
		// {"additionalContext"}}, which reaches the model in
		// <qwen:session-start-context> with < and > escaped, and not the
		// transcript (packages/core/src/hooks/hookEventHandler.ts,
		// types.ts, hook-timeout.ts). It fires SessionEnd only when an
		// interactive session ends or is cleared, never after a prompt run:
		// at Stop, the end of every turn, the turn-end hook captures (each
		// capture of a session updating the last) and runs no handover.
		HookSpec: &agent.HookSpec{ProjectSettings: ".qwen/settings.json", UserSettings: ".qwen/settings.json",
			Events: []agent.HookEvent{{Ours: "session-start", Theirs: "SessionStart"}, {Ours: "pre-compact", Theirs: "PreCompact", Timeout: 60},
				{Ours: "session-end", Theirs: "SessionEnd", Timeout: 60}, {Ours: "turn-end", Theirs: "Stop", Timeout: 60}},
			Trust: "Qwen Code runs a project's hooks only in a folder it trusts when folder trust is on (security.folderTrust.enabled; ~/.qwen/trustedFolders.json).",
			Docs:  "packages/core/src/hooks (github.com/QwenLM/qwen-code, @qwen-code/qwen-code 0.24.4)"},
		// Its native writer (launch --native): native.go.
		Native: Native{},
	}
}

// Dirs are Qwen Code's own directories: first the one that holds its
// settings, $QWEN_HOME or ~/.qwen (Storage.getGlobalQwenDir,
// packages/core/src/config/storage.ts), then $QWEN_RUNTIME_DIR, which
// moves its sessions, todos and temporary files out of it
// (Storage.getRuntimeBaseDir). The settings' advanced.runtimeOutputDir
// moves them too; it is not read here.
func Dirs(home string, getenv func(string) string) []string {
	var out []string
	if d := getenv("QWEN_HOME"); d != "" && filepath.IsAbs(d) {
		out = append(out, filepath.Clean(d))
	} else if home != "" {
		out = append(out, filepath.Join(home, ".qwen"))
	}
	if d := getenv("QWEN_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) && (len(out) == 0 || filepath.Clean(d) != out[0]) {
		out = append(out, filepath.Clean(d))
	}
	return out
}

// Package cline is Cline CLI as session-handoff knows it: its entry in
// the agents table (internal/agents) and the reader of the sessions it
// keeps, ~/.cline/data/sessions/<id>/ (Cline CLI 3.0.65, npm cline, on
// @cline/core and @cline/shared 0.0.86).
package cline

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is Cline's name in the agents table and in records.
const Name = "cline"

// agentName is Name as the transcript package spells an agent.
const agentName = transcript.Agent(Name)

// Agent is Cline CLI's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: Name, Display: "Cline", Aliases: []string{"cline-cli"},
		Program: "cline", Checked: "3.0.65",
		// Cline reads the project's AGENTS.md, .clinerules (a file, or a
		// folder of .md, .markdown and .txt files) and .cline/rules/
		// (@cline/shared 0.0.86, storage/paths.ts
		// resolveRulesConfigSearchPaths; @cline/core 0.0.86,
		// extensions/config/user-instruction-config-loader.ts).
		InstructionFile: "AGENTS.md",
		SessionsHelp:    "~/.cline/data/sessions, or $CLINE_DIR/data/sessions",
		OwnDirs:         Dirs,
		SessionsDir:     filepath.Join("data", "sessions"),
		// The plugin integrate writes (plugin.go); .cline/ and
		// .cline/plugins/ are how git lists it while nothing else there is
		// tracked.
		Hooks: true, HookSpec: &hookSpec, MCP: true,
		SettingsFiles: []string{".cline/", ".cline/plugins/", hookSpec.ProjectSettings},
		Transcripts:   reader{},
		// Cline's messages.json keeps the Messages API's content blocks,
		// thinking and redacted_thinking among them (its reader skips
		// them: reader.go, assistant); the reasoning block and members are
		// what OpenAI-compatible providers call the same thing, left out in
		// case a provider's message is kept as it came.
		Reasoning: transcript.Reasoning{Types: []string{"thinking", "redacted_thinking", "reasoning"},
			Members: []string{"reasoning_details", "reasoning_content"}},
		Profile: agent.Profile{
			Reads: []string{"AGENTS.md", ".clinerules (a file, or a folder of .md, .markdown and .txt files)", ".cline/rules/",
				"~/.agents/AGENTS.md, ~/.cline/rules/, ~/Documents/Cline/Rules/"},
			// A rules file of its own in .cline/rules/, which Cline reads
			// at every start beside the team's .clinerules, whether that is
			// a file or a folder (checked offline: its text was in the
			// model's first request).
			PersonalFile:      ".cline/rules/handoff.md",
			InstructionBudget: 16 << 10,
			Launch: []agent.Launch{
				{How: "interactive, briefed: session-handoff writes the prompt to a private file and starts the agent on it", Command: "session-handoff launch --target cline"},
				{How: "one-shot, prompt on stdin (it runs until the model calls submit_and_exit)", Command: "cline --yolo < FILE"},
				{How: "interactive: write the block into .cline/rules/handoff.md, then start", Command: "session-handoff render --as instructions --target cline --write && cline"},
			},
			Style: agent.Style{Agent: "Cline", Guidance: []string{"Work through the next steps in order. " + agent.CheckGuidance}},
			// Cline 3.0.65 reads MCP servers from one file, the user's
			// ($CLINE_MCP_SETTINGS_PATH, else data/settings/ in its
			// directory), {"mcpServers": {NAME: {"command", "args"}}}
			// (@cline/core 0.0.86, extensions/mcp/config-loader.ts); a
			// project has none.
			MCP: &agent.MCPRegistration{UserFile: "~/.cline/data/settings/cline_mcp_settings.json", Format: "json", Key: "mcpServers",
				Register: "session-handoff integrate cline --mcp --user",
				Docs:     "@cline/core 0.0.86, extensions/mcp/config-loader.ts; cline mcp --help"},
			Notes: []string{"Cline 3.0.65 runs a TaskStart hook file without waiting for it, and its output never reaches the model: session-handoff's hooks for Cline are a plugin (integrate cline), whose beforeRun briefs each run.",
				"A run stopped with Ctrl-C ends without the plugin's afterRun (checked offline with SIGINT): capture it with 'session-handoff capture --from cline'.",
				"A --yolo run ends only when the model calls submit_and_exit."},
		},
		// 'cline -i PROMPT' opens the terminal UI and runs the prompt
		// (cline --help, 3.0.65).
		StartArgs: func(dir, message string) []string { return []string{"-i", message} },
	}
}

// Dirs are Cline's directories, where it keeps its hooks, plugins and
// rules and, under data/, its settings and sessions: $CLINE_DIR, else
// ~/.cline (@cline/shared 0.0.86, storage/paths.ts resolveClineDir).
// $CLINE_DATA_DIR and $CLINE_SESSION_DATA_DIR, which move data/ and
// data/sessions/ alone, are not followed.
func Dirs(home string, getenv func(string) string) []string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d := strings.TrimSpace(getenv("CLINE_DIR")); d != "" {
		return []string{d}
	}
	if home == "" {
		return nil
	}
	return []string{filepath.Join(home, ".cline")}
}

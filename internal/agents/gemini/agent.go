// Package gemini is Gemini CLI (google-gemini/gemini-cli) as
// session-handoff knows it: its entry in the agents table
// (internal/agents), where its chat recordings lie, how they are
// recognised and read into a digest, its subagents, and the prompt size
// its hooks read.
package gemini

import (
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is Gemini CLI's name in session-handoff.
const Name = "gemini"

// agentName is Name as the transcript package types it.
const agentName = transcript.Agent(Name)

// SessionsDir is the directory under each of Dirs that holds its chat
// recordings.
const SessionsDir = "tmp"

// Dirs are the agent's own directories, most preferred first, under home
// unless GEMINI_CLI_HOME moves them (agent.Agent.OwnDirs).
func Dirs(home string, getenv func(string) string) []string {
	if h := getenv("GEMINI_CLI_HOME"); h != "" {
		return []string{filepath.Join(h, ".gemini")}
	}
	return []string{filepath.Join(home, ".gemini")}
}

// Agent is Gemini CLI's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: Name, Display: "Gemini CLI", Aliases: []string{"gemini-cli"},
		Program: "gemini", InstructionFile: "GEMINI.md", Hooks: true, MCP: true,
		SessionsHelp: "~/.gemini/tmp, or $GEMINI_CLI_HOME/.gemini/tmp", Checked: "0.61.0",
		OwnDirs:       Dirs,
		SessionsDir:   SessionsDir,
		SettingsFiles: []string{".gemini/", ".gemini/settings.json"},
		Transcripts:   Transcripts{},
		// A chat record's gemini message keeps the model's thought
		// summaries in "thoughts" ([{subject, description, timestamp}];
		// packages/core/src/services/chatRecordingService.ts, MessageRecord),
		// and a Content part the API marked {"thought": true} is a thought.
		Reasoning: transcript.Reasoning{Members: []string{"thoughts", "thoughtSignature"}, Flags: []string{"thought"}},
		Profile: agent.Profile{
			Reads: []string{"GEMINI.md in the project, its parent directories and the directories below (or the names set in context.fileName)",
				"~/.gemini/GEMINI.md (every project)", "@file.md imports inside those files"},
			InstructionBudget: 24 << 10,
			Launch: []agent.Launch{
				{How: "interactive, briefed: session-handoff writes the prompt to a private file and starts the agent on it", Command: "session-handoff launch --target gemini"},
				{How: "one-shot: -p is appended to what arrives on stdin", Command: `gemini -p "Continue the work in the handoff above." < FILE`},
				{How: "interactive: write the block into GEMINI.md, then start", Command: "session-handoff render --as instructions --target gemini --write && gemini"},
			},
			Style: agent.Style{Agent: "Gemini CLI", Guidance: []string{
				"Put the next steps in your todo list (write_todos) before you start, and keep it current. " + agent.CheckGuidance}},
			Notes: []string{"Gemini CLI's only personal file, ~/.gemini/GEMINI.md, is read in every project, so the block goes into the project's GEMINI.md; keep it out of commits, or render a prompt instead."},
			// "mcpServers": {NAME: {"command", "args"}} in settings.json, the
			// project's .gemini/settings.json or ~/.gemini/settings.json.
			MCP: &agent.MCPRegistration{ProjectFile: ".gemini/settings.json", UserFile: "~/.gemini/settings.json", Format: "json", Key: "mcpServers",
				Register: "session-handoff integrate gemini --mcp",
				Docs:     "https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md"},
		},
		// 'gemini -i "prompt"' runs the prompt and stays interactive. Its
		// file tools refuse paths outside the workspace, so the prompt
		// file's directory is added with --include-directories (which takes
		// values until the next flag, hence before -i).
		StartArgs: func(dir, message string) []string { return []string{"--include-directories", dir, "-i", message} },

		HookSpec: &agent.HookSpec{ProjectSettings: ".gemini/settings.json", UserSettings: ".gemini/settings.json",
			// Timeouts are in milliseconds, 60,000 by default; SessionEnd is
			// best effort (the CLI does not wait) and PreCompress advisory
			// (google-gemini/gemini-cli docs/hooks/reference.md at 5411f11).
			Events: []agent.HookEvent{{Ours: "session-start", Theirs: "SessionStart"}, {Ours: "pre-compact", Theirs: "PreCompress"}, {Ours: "session-end", Theirs: "SessionEnd"}}, Named: true,
			Trust: "Gemini CLI runs a project's hooks only in a folder you trust, and warns before it runs a project hook it has not seen (google-gemini/gemini-cli docs/cli/trusted-folders.md, docs/hooks/best-practices.md).",
			Docs:  "https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/reference.md"},
		CompactCaptures: willCompress,
		HookTrust:       hookTrust,
		Package:         extension,
		// Its native writer (launch --native): native.go.
		Native: Native{},
	}
}

// Package pi is pi, the coding agent of @mariozechner/pi-coding-agent
// (github.com/badlogic/pi-mono, packages/coding-agent), as session-handoff
// knows it: its entry in the agents table (internal/agents), where its
// sessions live and how one is recognised and read. Checked against pi
// 0.73.1 from the npm registry: its dist/ code and docs/session-format.md,
// and the sessions it wrote itself in the end-to-end suite
// (testdata/real-e2e, SOURCES.md).
package pi

import (
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is pi's name on the command line and in records.
const Name = "pi"

// Agent is pi's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: Name, Display: "pi", Aliases: []string{"pi-coding-agent"},
		Program: "pi", Hooks: true,
		// pi reads AGENTS.md, else CLAUDE.md, in ~/.pi/agent and in the
		// working directory and each of its parents
		// (dist/core/resource-loader.js of 0.73.1, loadContextFileFromDir).
		InstructionFile: "AGENTS.md",
		Checked:         "0.73.1",
		SessionsHelp:    "~/.pi/agent/sessions, or $PI_CODING_AGENT_DIR/sessions",
		OwnDirs:         dirs,
		SessionsDir:     "sessions",
		Transcripts:     transcripts{},
		// pi's assistant content blocks: {"type":"thinking","thinking",
		// "thinkingSignature"} (packages/ai/src/types.ts, ThinkingContent).
		Reasoning: transcript.Reasoning{Types: []string{"thinking"}, Members: []string{"thinkingSignature"}},
		Profile: agent.Profile{
			// dist/core/resource-loader.js of 0.73.1: loadProjectContextFiles
			// (the first of AGENTS.md, CLAUDE.md in each directory),
			// discoverSystemPromptFile, discoverAppendSystemPromptFile. No
			// limit on their size.
			Reads: []string{"AGENTS.md, else CLAUDE.md, in ~/.pi/agent and in the working directory and each of its parents, all of them, outermost first",
				".pi/SYSTEM.md, else ~/.pi/agent/SYSTEM.md (replaces pi's system prompt)",
				".pi/APPEND_SYSTEM.md, else ~/.pi/agent/APPEND_SYSTEM.md (added to the system prompt)"},
			InstructionBudget: 16 << 10,
			Launch: []agent.Launch{
				{How: "interactive, briefed: session-handoff writes the prompt to a private file and starts the agent on it", Command: "session-handoff launch --target pi"},
				// @FILE puts the file's text into the first message
				// (dist/cli/args.js of 0.73.1, fileArgs).
				{How: "one-shot (print mode), the prompt file attached", Command: `pi -p @FILE "Continue the work in the attached handoff."`},
			},
			// pi has no task-list tool (read, bash, edit, write; grep,
			// find, ls when enabled).
			Style: agent.Style{Agent: "pi", Guidance: []string{"Work through the next steps in order. " + agent.CheckGuidance}},
			Notes: []string{"pi reads AGENTS.md in preference to CLAUDE.md in each directory: in a project that has both, a block in CLAUDE.md is not read.",
				"pi has no MCP client (by design, its README says) and no hook commands."},
		},
		// 'pi "message"' starts interactive mode with a first message; its
		// read tool reads any path (dist/cli/args.js, core/tools/read.js of
		// 0.73.1).
		StartArgs: func(dir, message string) []string { return []string{message} },
		// .pi/ and .pi/extensions/ are how git lists the extension while
		// nothing else there is tracked.
		SettingsFiles: []string{".pi/", ".pi/extensions/", projectExtension},
		// Its hooks are an extension of ours (extension.go).
		HookSpec: &agent.HookSpec{ProjectSettings: projectExtension, UserSettings: ".pi/agent/extensions/session-handoff.ts",
			Events: []agent.HookEvent{{Ours: "session-start", Theirs: eventStart, Timeout: 60},
				{Ours: "pre-compact", Theirs: eventCompact, Timeout: 60}, {Ours: "session-end", Theirs: eventEnd, Timeout: 60}},
			Whole: extension,
			Docs:  "docs/extensions.md of @mariozechner/pi-coding-agent 0.73.1"},
		// Its native writer (launch --native): native.go.
		Native: Native{},
	}
}

// projectExtension is the extension integrate writes in a project: pi
// loads .pi/extensions/*.ts of its working directory, without asking
// (dist/core/extensions/loader.js of 0.73.1, discoverAndLoadExtensions).
const projectExtension = ".pi/extensions/session-handoff.ts"

// dirs is pi's own directory: $PI_CODING_AGENT_DIR (a leading ~/ is the
// home directory), else ~/.pi/agent (dist/config.js of 0.73.1,
// getAgentDir). pi also takes a sessions directory of its own from
// $PI_CODING_AGENT_SESSION_DIR, --session-dir or settings' sessionDir,
// which holds the files without a directory per project: capture
// --transcript reads a file there.
func dirs(home string, getenv func(string) string) []string {
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		if d == "~" {
			return []string{home}
		}
		if rest, ok := strings.CutPrefix(d, "~/"); ok {
			return []string{filepath.Join(home, rest)}
		}
		return []string{d}
	}
	return []string{filepath.Join(home, ".pi", "agent")}
}

// transcripts finds, recognises and reads pi's sessions.
type transcripts struct{}

// Read reads the session file at path; id is unused (a file is one
// session).
func (transcripts) Read(path, _ string, lim transcript.Limits) (*transcript.Digest, error) {
	return readFile(path, lim)
}

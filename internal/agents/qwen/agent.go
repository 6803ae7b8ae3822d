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

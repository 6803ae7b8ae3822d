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
		Program: "qwen", InstructionFile: "QWEN.md",
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

// Dirs are the directories Qwen Code keeps its sessions under, most
// preferred first: its runtime directory is $QWEN_RUNTIME_DIR, else its
// own directory, $QWEN_HOME or ~/.qwen (Storage.getRuntimeBaseDir and
// getGlobalQwenDir, packages/core/src/config/storage.ts). The settings'
// advanced.runtimeOutputDir moves it too; it is not read here.
func Dirs(home string, getenv func(string) string) []string {
	var out []string
	for _, v := range []string{"QWEN_RUNTIME_DIR", "QWEN_HOME"} {
		if d := getenv(v); d != "" && filepath.IsAbs(d) {
			out = append(out, filepath.Clean(d))
		}
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".qwen"))
	}
	return out
}

//go:build e2e

package e2e

import (
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// agent is what the suite knows of one agent: how to run it headless and
// offline against the fake model, and how its model calls its tools.
type agent struct {
	// name is session-handoff's name for it (integrate, hook, capture).
	name string
	// command is its program in agentBin.
	command string
	// env is the environment that points it at the fake model and keeps
	// it quiet; setup writes its settings files.
	env   func(w *world) []string
	setup func(w *world)
	// trustHooks trusts the installed hooks as the user would.
	trustHooks func(w *world)
	// headless is the command line of one headless session.
	headless func(w *world, prompt string) []string
	// writeFile and shell are the model's calls of its file-writing and
	// shell tools.
	writeFile func(w *world, rel, content string) fakemodel.Call
	shell     func(cmd string) fakemodel.Call
}

// claudeCode runs Claude Code's native binary
// (@anthropic-ai/claude-code, bin/claude.exe) on the Messages API.
var claudeCode = agent{
	name: "claude-code", command: "claude",
	env: func(w *world) []string {
		return []string{
			"ANTHROPIC_BASE_URL=" + w.model.URL,
			"ANTHROPIC_API_KEY=sk-ant-e2e-fake",
			// bypassPermissions is refused to root unless the CLI is told
			// it runs in a sandbox.
			"IS_SANDBOX=1",
			// No telemetry, error reports, update checks or other
			// traffic that is not the model's.
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1",
		}
	},
	setup:      func(w *world) {},
	trustHooks: func(w *world) {}, // Claude Code runs the hooks in its settings as they are
	headless: func(w *world, prompt string) []string {
		return []string{"claude", "-p", prompt, "--permission-mode", "bypassPermissions"}
	},
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "Write", Args: map[string]any{"file_path": filepath.Join(w.project, rel), "content": content}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "Bash", Args: map[string]any{"command": cmd, "description": "run " + cmd}}
	},
}

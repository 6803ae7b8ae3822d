//go:build e2e

package e2e

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// opencode runs OpenCode (opencode-ai, a Bun-compiled binary in the
// opencode-linux-x64 package that the package's postinstall links as
// bin/opencode.exe) on OpenAI Chat Completions: a provider of the bundled
// @ai-sdk/openai-compatible in ~/.config/opencode/opencode.json. Its
// sessions are rows of ~/.local/share/opencode/opencode.db (SQLite, WAL).
// Its hooks are session-handoff's plugin (integrate opencode), in the
// hook, MCP, compaction and doctor scenarios.
var opencode = agent{
	name: "opencode", command: "opencode",
	env: func(w *world) []string { return opencodeOffline("OPENCODE_") },
	setup: func(w *world) {
		w.writeHome(".config/opencode/opencode.json", opencodeConfig(w, ""))
		opencodeDepsInstalled(w, filepath.Join(w.home, ".config", "opencode"))
	},
	// A project's plugins load as they are, once OpenCode has installed
	// @opencode-ai/plugin into .opencode, which it does at its first start
	// there, online; offline, the install is marked as done.
	trustHooks: func(w *world) { opencodeDepsInstalled(w, filepath.Join(w.project, ".opencode")) },
	approveMCP: func(w *world) {}, // a project's opencode.json's MCP servers start as they are
	// The plugin captures at session.idle in a process of its own, which
	// may end after OpenCode: wait for its record.
	afterSession: waitForCapture,
	// opencode mcp list connects to each server and says so.
	mcpConnected: func(out string) bool {
		return strings.Contains(out, "session-handoff") && strings.Contains(out, "connected")
	},
	// MCP tools are offered at once, as SERVER_TOOL.
	mcpTool: func(name string) string { return "session-handoff_" + name },
	headless: func(w *world, prompt string) []string {
		return []string{"opencode", "run", prompt}
	},
	// OpenCode compacts on its own when the last answer's tokens fill the
	// model's context (SessionCompaction.isOverflow): a context of 1,000
	// tokens is full after any answer of the fake model (1,020 tokens).
	// After a compaction it adds a synthetic "Continue if you have next
	// steps" turn, which would overflow and compact again, forever: a
	// plugin turns that off (experimental.compaction.autocontinue), so the
	// continued session is the compaction alone.
	compact: func(w *world, prompt string) []string {
		w.writeHome(".config/opencode/opencode.json", opencodeConfig(w, `, "limit": {"context": 1000, "output": 100}`))
		w.writeFile(filepath.Join(w.home, ".config", "opencode", "plugin", "e2e-no-continue.js"),
			`export const NoContinue = async () => ({
  "experimental.compaction.autocontinue": async (input, output) => { output.enabled = false },
})
`, 0o644)
		return []string{"opencode", "run", "--continue", prompt}
	},
	// The compaction agent's system prompt (opencode 1.18.33).
	compactMarker: "You are a context summarization agent",
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "write", Args: map[string]any{"filePath": filepath.Join(w.project, rel), "content": content}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "bash", Args: map[string]any{"command": cmd}}
	},
}

// opencodeOffline are the switches that keep OpenCode, or a fork of it
// that reads them under its own prefix, from reaching out: no update
// check, no models.dev catalogue, no default npm plugins, no LSP
// downloads, no sharing (the flags of opencode 1.18.33's runtime flags).
func opencodeOffline(prefix string) []string {
	var out []string
	for _, f := range []string{"AUTOUPDATE", "MODELS_FETCH", "DEFAULT_PLUGINS", "LSP_DOWNLOAD", "SHARE"} {
		out = append(out, prefix+"DISABLE_"+f+"=1")
	}
	return out
}

// opencodeConfig is the user's opencode.json (or a fork's, which reads
// the same): the fake model as the
// provider "fake" (the bundled @ai-sdk/openai-compatible), its model's
// options appended after its name (limit).
func opencodeConfig(w *world, modelOptions string) string {
	return fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "model": "fake/gpt-4.1",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "fake",
      "options": {"baseURL": %q, "apiKey": "e2e-fake"},
      "models": {"gpt-4.1": {"name": "gpt-4.1"%s}}
    }
  }
}
`, w.model.URL+"/v1", modelOptions)
}

// opencodeDepsInstalled marks a config directory's dependencies as
// installed. OpenCode installs @opencode-ai/plugin into every config
// directory (~/.config/opencode, a project's .opencode) that has no
// node_modules, or whose package-lock.json lacks it (Npm.install in
// 1.18.33), and loads the directory's plugins only after: offline, that
// install fails after about 70 s and the plugins never load. A user
// online has it installed by OpenCode itself on the first start.
func opencodeDepsInstalled(w *world, dir string) {
	depsInstalled(w, dir, "@opencode-ai/plugin", "1.18.33")
}

// depsInstalled marks dir's dependencies as installed, plugin at
// version among them (OpenCode's, or a fork's, Npm.install).
func depsInstalled(w *world, dir, plugin, version string) {
	w.t.Helper()
	w.writeFile(filepath.Join(dir, "node_modules", ".keep"), "", 0o644)
	w.writeFile(filepath.Join(dir, "package-lock.json"), fmt.Sprintf(`{"packages": {"": {"dependencies": {%q: %q}}}}`, plugin, version)+"\n", 0o644)
}

//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	codexagent "github.com/session-handoff/session-handoff/internal/agents/codex"
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
	// approveMCP approves the project's MCP server as the user would;
	// mcpConnected says whether `mcp list` shows session-handoff usable.
	approveMCP   func(w *world)
	mcpConnected func(out string) bool
	// mcpShow is the agent's command that shows session-handoff's
	// registration with its command line; nil: "mcp list".
	mcpShow []string
	// toolSearch, when the agent offers MCP tools only through a search,
	// is the call that brings session-handoff's; mcpTool is the name the
	// agent gives an MCP tool of session-handoff.
	toolSearch *fakemodel.Call
	mcpTool    func(name string) string
	// mcpCall, when set, is the model's call of an MCP tool of
	// session-handoff with args, for an agent whose model calls the tools
	// its search found through a tool of its own; nil calls mcpTool(name).
	mcpCall func(name string, args map[string]any) fakemodel.Call
	// compact is the command line of a session that compacts its
	// context, with the model's turns before the compaction; marker is
	// text only the agent's compaction request holds.
	compact       func(w *world, prompt string) []string
	compactMarker string
	// continueCompacted, when set, is the command line that continues the
	// compacted session: the agent's SessionStart hook fired after the
	// compaction (source "compact"), and its first request to the model
	// must carry the recap the hook gave (issue 45).
	continueCompacted func(w *world, prompt string) []string
	// summaryAs is the summary as the agent's compaction prompt asks the
	// model to write it; nil keeps it as it is.
	summaryAs func(summary string) string
	// installPackage writes session-handoff's package for the agent
	// (integrate --plugin or --extension) under dir and installs it as
	// the user would, so that headless sessions load it; nil when the
	// agent has none.
	installPackage func(w *world, dir string)
	// headless is the command line of one headless session.
	headless func(w *world, prompt string) []string
	// writeFile and shell are the model's calls of its file-writing and
	// shell tools.
	writeFile func(w *world, rel, content string) fakemodel.Call
	shell     func(cmd string) fakemodel.Call
	// finish, when set, is the call of the tool that ends the agent's
	// run: a text answer to a request that offers it is sent as that
	// call (fakemodel.Server.SetFinish), for an agent that prompts again
	// a model that only answers.
	finish func(text string) fakemodel.Call
	// afterSession, when set, waits for what the agent's hooks finish
	// after the session's process has ended, given the number of records
	// before the session.
	afterSession func(w *world, before int)
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
	// A project .mcp.json server stays "Pending approval" until the user
	// approves it in an interactive session. The approval is its name in
	// enabledMcpjsonServers: claude.exe 2.1.328 reads it from the user's
	// settings, and from .claude/settings.local.json only when git ignores
	// that file (the settings schema, "List of approved MCP servers from
	// .mcp.json"; the approval check beside "Pending approval").
	approveMCP: func(w *world) {
		w.writeHome(".claude/settings.json", `{"enabledMcpjsonServers": ["session-handoff"]}`+"\n")
	},
	mcpConnected: func(out string) bool {
		return strings.Contains(out, "session-handoff") && strings.Contains(out, "✔ Connected")
	},
	// MCP tools are deferred: ToolSearch with "select:NAME,…" loads them.
	toolSearch: &fakemodel.Call{Name: "ToolSearch", Args: map[string]any{
		"query": "select:mcp__session-handoff__handoff_save,mcp__session-handoff__handoff_list,mcp__session-handoff__handoff_resume"}},
	mcpTool: func(name string) string { return "mcp__session-handoff__" + name },
	headless: func(w *world, prompt string) []string {
		args := []string{"claude", "-p", prompt, "--permission-mode", "bypassPermissions"}
		if w.pluginDir != "" {
			args = append(args, "--plugin-dir", w.pluginDir)
		}
		return args
	},
	installPackage: func(w *world, dir string) {
		w.sh("integrate", "claude-code", "--plugin", dir)
		w.run(nil, "claude", "plugin", "validate", dir)
		w.pluginDir = dir // each session gets --plugin-dir
	},
	// /compact in print mode, continuing the last session.
	compact: func(w *world, prompt string) []string {
		return []string{"claude", "--continue", "-p", "/compact", "--permission-mode", "bypassPermissions"}
	},
	// The compaction prompt (claude.exe 2.1.328).
	compactMarker: "Your task is to create a detailed summary of the conversation so far",
	continueCompacted: func(w *world, prompt string) []string {
		return []string{"claude", "--continue", "-p", prompt, "--permission-mode", "bypassPermissions"}
	},
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "Write", Args: map[string]any{"file_path": filepath.Join(w.project, rel), "content": content}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "Bash", Args: map[string]any{"command": cmd, "description": "run " + cmd}}
	},
}

// codex runs Codex CLI's native binary (@openai/codex, the
// @openai/codex-linux-x64 package's vendor/…/bin/codex) on the Responses
// API, configured in $CODEX_HOME/config.toml.
var codex = agent{
	name: "codex", command: "codex",
	env: func(w *world) []string {
		return []string{
			"CODEX_HOME=" + filepath.Join(w.home, ".codex"),
			"E2E_FAKE_KEY=sk-e2e-fake",
		}
	},
	setup: func(w *world) {
		w.writeHome(".codex/config.toml", codexConfig(w))
	},
	trustHooks: trustCodexHooks,
	approveMCP: func(w *world) {}, // a trusted project's .codex/config.toml applies as it is
	// codex mcp list prints the configuration, not a connection: the
	// command must resolve (an absolute path, or a name on PATH).
	mcpConnected: func(out string) bool {
		return strings.Contains(out, "session-handoff") && strings.Contains(out, "enabled")
	},
	// MCP tools are deferred behind tool_search (a client-run tool of the
	// Responses API).
	toolSearch: &fakemodel.Call{Name: "tool_search", Args: map[string]any{"query": "session-handoff handoff save list resume", "limit": 8}},
	// Its MCP tools come in a namespace, mcp__SERVER with the server's
	// name made an identifier.
	mcpTool: func(name string) string { return "mcp__session_handoff/" + name },
	headless: func(w *world, prompt string) []string {
		// exec is the headless mode; the bypass runs tools without
		// approval or sandbox (there is no network to protect here).
		return []string{"codex", "exec", "--dangerously-bypass-approvals-and-sandbox", prompt}
	},
	// Auto-compaction past 100 tokens: every answer of the fake model
	// claims 1,000, so Codex compacts before its next model call.
	compact: func(w *world, prompt string) []string {
		return []string{"codex", "exec", "--dangerously-bypass-approvals-and-sandbox", "-c", "model_auto_compact_token_limit=100", prompt}
	},
	// The local compaction prompt (codex 0.169.0, core/src/compact.rs).
	compactMarker: "CONTEXT CHECKPOINT COMPACTION",
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		// apply_patch is a freeform (custom) tool in Codex's catalogue
		// models; its input is the patch itself.
		var b strings.Builder
		b.WriteString("*** Begin Patch\n*** Add File: " + rel + "\n")
		for _, l := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
			b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
		}
		b.WriteString("*** End Patch\n")
		return fakemodel.Call{Name: "apply_patch", Input: b.String()}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "exec_command", Args: map[string]any{"cmd": cmd}}
	},
}

// codexConfig points Codex at the fake model and turns off what would
// reach out.
func codexConfig(w *world) string {
	return fmt.Sprintf(`# A model in Codex's catalogue: for another name Codex offers no
# apply_patch tool.
model = "gpt-5.5"
model_provider = "fake"
# No update check at start.
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "E2E_FAKE_KEY"
# One try: the fake model answers or the test fails.
request_max_retries = 0
stream_max_retries = 0

# The project's .codex/ layer (hooks.json, config.toml) loads only in a
# trusted project.
[projects.%q]
trust_level = "trusted"

# No usage analytics, no feedback uploads.
[analytics]
enabled = false

[feedback]
enabled = false
`, w.model.URL, w.project)
}

// trustCodexHooks trusts every hook of the project's and the user's
// hooks.json as Codex's /hooks screen does: it stores
// [hooks.state."KEY"] trusted_hash = HASH in $CODEX_HOME/config.toml.
func trustCodexHooks(w *world) {
	w.t.Helper()
	var b strings.Builder
	for _, p := range []string{filepath.Join(w.project, ".codex", "hooks.json"), filepath.Join(w.home, ".codex", "hooks.json")} {
		text, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			w.t.Fatal(err)
		}
		hooks, err := codexagent.Hooks(p, text)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, h := range hooks {
			fmt.Fprintf(&b, "\n[hooks.state.%q]\ntrusted_hash = %q\n", h.Key, h.Hash)
		}
	}
	cfg := filepath.Join(w.home, ".codex", "config.toml")
	old, err := os.ReadFile(cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(old, b.String()...), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// gemini runs Gemini CLI (@google/gemini-cli, a node program: bundle/gemini.js)
// on the Gemini API at GOOGLE_GEMINI_BASE_URL.
var gemini = agent{
	name: "gemini", command: "gemini",
	env: func(w *world) []string {
		return []string{
			"GEMINI_API_KEY=e2e-fake",
			"GOOGLE_GEMINI_BASE_URL=" + w.model.URL,
			// No OpenTelemetry export (the settings say so too).
			"GEMINI_TELEMETRY_ENABLED=false",
			// No second node process: the CLI relaunches itself only to
			// raise the heap limit (gemini.js, getNodeMemoryArgs), which
			// costs seconds a run and no test needs.
			"GEMINI_CLI_NO_RELAUNCH=true",
		}
	},
	setup: func(w *world) {
		w.writeHome(".gemini/settings.json", geminiSettings)
		w.writeHome(".gemini/trustedFolders.json", fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, w.project))
	},
	trustHooks: func(w *world) {}, // the trusted folder above is the user's trust
	approveMCP: func(w *world) {}, // the trusted folder is the approval
	mcpConnected: func(out string) bool {
		return strings.Contains(out, "session-handoff") && strings.Contains(out, "Connected") && !strings.Contains(out, "Disconnected")
	},
	// MCP tools are offered at once, as mcp_SERVER_TOOL.
	mcpTool: func(name string) string { return "mcp_session-handoff_" + name },
	headless: func(w *world, prompt string) []string {
		// A named model, not "auto": auto asks a classifier model to route
		// each turn first (ModelRouterService).
		return []string{"gemini", "-p", prompt, "--yolo", "--model", "gemini-2.5-flash"}
	},
	// Compression past 0.0001 of the model's 1,048,576-token window: the
	// fake model's answers claim 1,000 prompt tokens. It splits the
	// history only before a request of the user's or after a finished
	// answer (bundle/chunk-*.js, ChatCompressionService.compress,
	// findCompressSplitPoint), so the session resumed is what compresses.
	compact: func(w *world, prompt string) []string {
		w.writeHome(".gemini/settings.json", strings.Replace(geminiSettings, `"general"`, `"model": {"compressionThreshold": 0.0001},
  "general"`, 1))
		return []string{"gemini", "--resume", "latest", "-p", prompt, "--yolo", "--model", "gemini-2.5-flash"}
	},
	installPackage: func(w *world, dir string) {
		w.sh("integrate", "gemini", "--extension", dir)
		// --consent: the user's yes to the prompt about an extension's
		// risks.
		w.run(nil, "gemini", "extensions", "link", filepath.Join(dir, "session-handoff"), "--consent")
	},
	// The compression request asks for a <state_snapshot>, which the
	// model writes as one.
	compactMarker: "<state_snapshot>",
	summaryAs:     func(s string) string { return "<state_snapshot>\n" + s + "\n</state_snapshot>" },
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "write_file", Args: map[string]any{"file_path": filepath.Join(w.project, rel), "content": content}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "run_shell_command", Args: map[string]any{"command": cmd, "description": "run " + cmd}}
	},
}

// geminiSettings are the user's Gemini CLI settings. Without selectedType
// the CLI stops with "Invalid auth method selected" (exit 41). Usage
// statistics (Clearcut), telemetry and update checks are off. A project's
// .gemini/settings.json, hooks included, applies only in a trusted
// folder.
const geminiSettings = `{
  "security": {
    "auth": {"selectedType": "gemini-api-key"},
    "folderTrust": {"enabled": true}
  },
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`

// copilot runs GitHub Copilot CLI (@github/copilot, a node loader that
// unpacks its own package on first run) on OpenAI Chat Completions at
// COPILOT_PROVIDER_BASE_URL, with no GitHub login (COPILOT_OFFLINE). Only
// the hook, MCP and compaction scenarios run it (hookAgents, mcpAgents,
// compactAgents); it has no package of session-handoff's.
var copilot = agent{
	name: "copilot", command: "copilot",
	env: func(w *world) []string {
		return []string{
			"COPILOT_OFFLINE=true",
			"COPILOT_PROVIDER_BASE_URL=" + w.model.URL + "/v1",
			"COPILOT_PROVIDER_API_KEY=e2e-fake",
			"COPILOT_MODEL=gpt-4.1",
			// The ~235 MB it unpacks on its first run, once for every
			// world (sea-loader.js of 1.0.102 looks in
			// $COPILOT_CACHE_HOME/pkg first; scripts/e2e.sh names it).
			"COPILOT_CACHE_HOME=" + os.Getenv("E2E_COPILOT_CACHE"),
			// A repository's hooks load in prompt mode (-p) only so, or
			// in a folder the user trusted interactively (cli-main.js of
			// 1.0.102, "Loading repo hooks in prompt mode").
			"GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true",
			// And a workspace's MCP servers (.github/mcp.json).
			"GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP=true",
		}
	},
	// A workspace's MCP servers load in a folder the user trusts: the
	// trust the CLI asks for at its first start in a folder, kept in its
	// config.json (trustedFolders, cli-main.js of 1.0.102).
	approveMCP: func(w *world) {
		w.writeHome(".copilot/config.json", fmt.Sprintf(`{"trustedFolders": [%q]}`, w.project)+"\n")
	},
	mcpShow: []string{"mcp", "get", "session-handoff"},
	mcpConnected: func(out string) bool {
		return strings.Contains(out, "Status: Enabled") && strings.Contains(out, "Source: Workspace")
	},
	// MCP tools are offered at once, as SERVER-TOOL.
	mcpTool: func(name string) string { return "session-handoff-" + name },
	setup:   func(w *world) {},
	// Headless, the repository's hooks load with
	// GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS (above); a user trusts the
	// folder, which doctor checks (config.json's trustedFolders).
	trustHooks: func(w *world) {
		w.writeHome(".copilot/config.json", fmt.Sprintf(`{"trustedFolders": [%q]}`, w.project)+"\n")
	},
	headless: func(w *world, prompt string) []string {
		return []string{"copilot", "-p", prompt, "--allow-all-tools", "--disable-client-telemetry", "--no-auto-update"}
	},
	// Copilot writes the session when it shuts down, after its
	// sessionEnd hook, whose capture therefore runs in a later process
	// (internal/hooks, StartLater): wait for that record.
	afterSession: waitForCapture,
	// /compact in prompt mode, continuing the last session; its prompt
	// (1.0.102) starts so.
	compact: func(w *world, prompt string) []string {
		return []string{"copilot", "--continue", "-p", "/compact", "--allow-all-tools", "--disable-client-telemetry", "--no-auto-update"}
	},
	compactMarker: "Please create a detailed summary of the conversation so far",
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "create", Args: map[string]any{"path": filepath.Join(w.project, rel), "file_text": content}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "bash", Args: map[string]any{"command": cmd, "description": "run " + cmd}}
	},
}

// waitForCapture waits, at most a minute, until the store holds a record
// of the session that just ran (a capture made in the background).
func waitForCapture(w *world, before int) {
	w.t.Helper()
	waitRecords(w, "a capture of the session", func(recs []handoff.Record) bool { return len(recs) > before })
}

// waitRecords waits, at most a minute, until the store's records satisfy
// ok: a real agent's hook that finishes in the background leaves nothing
// else to wait on.
func waitRecords(w *world, what string, ok func([]handoff.Record) bool) {
	w.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ok(w.records()) {
		if time.Now().After(deadline) {
			w.t.Fatalf("no %s of %s in the store after a minute; hooks.log:\n%s", what, w.agent.name, w.hooksLog())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// qwenCode runs Qwen Code (@qwen-code/qwen-code, a node program:
// cli-entry.js) on OpenAI Chat Completions at OPENAI_BASE_URL, with
// security.auth.selectedType "openai" in its settings. The hook, MCP,
// compaction and doctor scenarios run it (hookAgents), and
// TestQwenCodeTranscript; it has no package of session-handoff's. What is cited is
// the installed bundle of 0.24.4 (chunks/*.js, which name their
// packages/core/src sources).
var qwenCode = agent{
	name: "qwen-code", command: "qwen",
	env: func(w *world) []string {
		return []string{
			"OPENAI_API_KEY=e2e-fake",
			"OPENAI_BASE_URL=" + w.model.URL + "/v1",
			"OPENAI_MODEL=qwen3-coder-plus",
			// No OpenTelemetry export and no usage statistics (the
			// settings say so too; packages/cli config, parseBooleanEnvFlag).
			"QWEN_TELEMETRY_ENABLED=false",
			"QWEN_USAGE_STATISTICS_ENABLED=false",
			// --yolo without a sandbox prints a warning on every run.
			"QWEN_CODE_SUPPRESS_YOLO_WARNING=1",
			// No second node process: the CLI relaunches itself only to
			// raise the heap limit (getNodeMemoryArgs,
			// relaunchAppInChildProcess), which doubles a run's time.
			"QWEN_CODE_NO_RELAUNCH=true",
		}
	},
	setup: func(w *world) {
		w.writeHome(".qwen/settings.json", qwenSettings)
		w.writeHome(".qwen/trustedFolders.json", fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, w.project))
	},
	trustHooks: func(w *world) {}, // the trusted folder above is the user's trust
	// A project's mcpServers (.qwen/settings.json) are gated until the
	// user approves them; the approval is bound to a hash of the server's
	// configuration (~/.qwen/mcpApprovals.json; `qwen mcp approve`,
	// chunks/chunk-OQMLQJEX.js of 0.24.4).
	approveMCP: func(w *world) {
		w.run(nil, "qwen", "mcp", "approve", "session-handoff")
	},
	mcpConnected: func(out string) bool {
		return strings.Contains(out, "session-handoff") && strings.Contains(out, "Connected") && !strings.Contains(out, "Disconnected")
	},
	// MCP tools are deferred: tool_search with "select:NAME,…" shows their
	// declarations, and the model calls them through tool_call, the tools
	// offered staying as they were (tool_search's description, 0.24.4).
	toolSearch: &fakemodel.Call{Name: "tool_search", Args: map[string]any{
		"query": "select:mcp__session-handoff__handoff_save,mcp__session-handoff__handoff_list,mcp__session-handoff__handoff_resume"}},
	mcpTool: func(name string) string { return "mcp__session-handoff__" + name },
	mcpCall: func(name string, args map[string]any) fakemodel.Call {
		return fakemodel.Call{Name: "tool_call", Args: map[string]any{"name": "mcp__session-handoff__" + name, "arguments": args}}
	},
	// The prompt is positional: -p is deprecated in 0.24.4.
	headless: func(w *world, prompt string) []string {
		return []string{"qwen", "--yolo", prompt}
	},
	// Auto-compaction: a context window of 100,000 tokens and a threshold
	// of 1% of it, which the fake model's 1,000 prompt tokens pass, so the
	// continued session compresses before its model call. /compress would
	// compress too, but fires no Stop hook to capture the result. The
	// compressed history keeps the summary only when the history shrinks:
	// the fake model's usage is the same for every answer, so only the
	// cache-sharing request (the main model, its answer a <state_snapshot>)
	// passes that check, on estimated counts
	// (packages/core/src/services/chatCompressionService.ts in
	// chunks/chunk-DPEB6S2R.js of 0.24.4).
	compact: func(w *world, prompt string) []string {
		w.writeHome(".qwen/settings.json", strings.Replace(qwenSettings, `"general"`, `"model": {"generationConfig": {"contextWindowSize": 100000}},
  "context": {"autoCompactThreshold": 0.01},
  "general"`, 1))
		return []string{"qwen", "--continue", "--yolo", prompt}
	},
	// COMPRESSION_REQUEST_DIRECTIVE's last sentence, in both the shared
	// and the cold compression request.
	compactMarker: "produce the <state_snapshot> XML",
	summaryAs:     func(s string) string { return "<state_snapshot>\n" + s + "\n</state_snapshot>" },
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "write_file", Args: map[string]any{"file_path": filepath.Join(w.project, rel), "content": content}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "run_shell_command", Args: map[string]any{"command": cmd, "description": "run " + cmd}}
	},
}

// qwenSettings are the user's Qwen Code settings. selectedType "openai"
// takes the provider from OPENAI_API_KEY, OPENAI_BASE_URL and
// OPENAI_MODEL. Update checks, usage statistics and telemetry are off. A
// project's .qwen/settings.json, hooks included, applies in a trusted
// folder only once folder trust is on (off by default, when every
// folder is trusted). todo_write is opt-in (tools.todoWrite.enabled).
// Managed auto-memory would ask the model, with tools, to extract
// memories in the background: a request the scripted turns do not
// expect.
const qwenSettings = `{
  "security": {
    "auth": {"selectedType": "openai"},
    "folderTrust": {"enabled": true}
  },
  "general": {"enableAutoUpdate": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "tools": {"todoWrite": {"enabled": true}},
  "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false}
}
`

// TestQwenCodeTranscript: a headless session writes its transcript where
// the reader looks for it, ~/.qwen/projects/<cwd with every character
// but [A-Za-z0-9] made "-">/chats/<session id>.jsonl
// (packages/core/src/config/storage.ts, getProjectDir; sanitizeCwd), one
// JSON record a line, each naming the session and the CLI's version;
// `sessions` lists it, and `capture` of the file, with no agent named,
// recognises and reads it.
func TestQwenCodeTranscript(t *testing.T) {
	w := newWorld(t, qwenCode)
	w.session("add a greeting file",
		fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "hello.txt", "hello from e2e\n")}},
		fakemodel.Turn{Text: "Wrote hello.txt."})
	dir := filepath.Join(w.home, ".qwen", "projects", regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(w.project, "-"), "chats")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) != 1 {
		t.Fatalf("%s holds %v (%v), want one transcript", dir, files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(w.run(nil, "qwen", "--version"))
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			SessionID string `json:"sessionId"`
			Version   string `json:"version"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%s line %d: %v", files[0], i+1, err)
		}
		if rec.SessionID+".jsonl" != filepath.Base(files[0]) || rec.Version != version {
			t.Errorf("%s line %d: sessionId %q, version %q (want %s)", files[0], i+1, rec.SessionID, rec.Version, version)
		}
	}
	var listed []struct {
		Agent, ID, Path, CWD, Title string
		Version                     string `json:"agent_version"`
	}
	if err := json.Unmarshal([]byte(w.sh("sessions", "--from", w.agent.name, "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 1 || listed[0].Path != files[0] || listed[0].CWD != w.project || listed[0].Title != "add a greeting file" || listed[0].Version != version {
		t.Errorf("sessions --json: %+v", listed)
	}
	var captured struct {
		Record handoff.Record `json:"record"`
	}
	if err := json.Unmarshal([]byte(w.sh("capture", "--session", files[0], "--dry-run", "--json")), &captured); err != nil {
		t.Fatal(err)
	}
	r := captured.Record
	if r.Tool != w.agent.name || r.Session == nil || r.Session.AgentVersion != version || !hasFile(r, "hello.txt") ||
		len(r.Session.Requests) != 1 || r.Session.LastAgentMessage != "Wrote hello.txt." {
		t.Errorf("capture --session %s: %+v", files[0], r)
	}
}

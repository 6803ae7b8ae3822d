package codex

import (
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
)

// Expectations for the real Codex CLI rollouts, established by reading
// each file line by line (a script printed the user messages, the tool
// calls with their outputs, exec_command_end and patch_apply_end events).
var realExpectations = []realExpectation{
	// Codex 0.125.0 (codex-tui). Two turns: "show tools", then the
	// change. The AGENTS.md and permissions messages are injected.
	// 43 exec_command calls, 40 distinct: their exit codes come from
	// exec_command_end (the call's own output often says only
	// "Process running with session ID"; the write_stdin polls that
	// follow are not commands). Four failed: three rg searches (exit
	// 2, 1, 1) and the first focused npm test (1), which its rerun
	// fixed; the last failure, that npm test, is settled by it. Three
	// apply_patch edits, one file each; two update_plan calls, the
	// last with two steps done and one in progress.
	{
		file: "codex/codemie/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",

		title: "show tools",
		requests: []string{
			"show tools",
			"let's update the defailt context compart to 90 in env var",
		},
		files: map[string]realFile{
			"src/agents/plugins/__tests__/codemie-code-reasoning.test.ts": {action: "edited", edits: 1},
			"src/agents/plugins/codemie-code.plugin.ts":                   {action: "edited", edits: 1},
			"src/agents/plugins/opencode/opencode.plugin.ts":              {action: "edited", edits: 1},
		},
		numCommands: 40,
		commands: []realCommand{
			{prefix: "git status --short", exit: exit(0), count: 3, status: "ok"},
			{prefix: `npm test -- --run src/agents/plugins/__tests__/codemie-code-reasoning.test.ts -t "Compaction Config"`, exit: exit(0), count: 2, status: "ok"},
			{prefix: `rg -n "compact|compaction|compacting|summar|context" node_modules/opencode-ai`, exit: exit(2), count: 1, status: "failed"},
			{prefix: `rg -n "compaction|compact|reserved" node_modules/@codemieai --hidden`, exit: exit(1), count: 1},
			{prefix: "npm run build", exit: exit(0), count: 1},
		},
		todos: []handoff.Todo{
			{Content: "Add failing tests for default compaction threshold in generated OpenCode env config", Status: "completed"},
			{Content: "Set default compaction threshold to 90% in generated OPENCODE_CONFIG_CONTENT paths", Status: "completed"},
			{Content: "Run focused verification", Status: "in_progress"},
		},
	},
	// Codex 0.128.0-alpha.1 (Codex Desktop, source "vscode"). The
	// first request comes with the app's preamble ("# Files mentioned
	// by the user: … ## My request for Codex:"), which is not what the
	// user typed. No exec_command_end events: each call's output
	// states its exit code. 35 exec_command calls, 34 distinct; ps
	// failed in the sandbox (exit 1) and its escalated rerun of the
	// same text passed. The js calls drive a browser: no commands, no
	// edits.
	{
		file: "codex/codemie/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl",

		title: "analyze trascript and summarzie action items related to codemie and demo preapration, specifically focus on demo,…",
		requests: []string{
			"analyze trascript and summarzie action items related to codemie and demo preapration, specifically focus on demo, User and Vadym",
			"there is a need for nikita to draft demo scenario around governance, budgetings, analytics",
			"use app tools to go to Analytics and Project management tabs in codemie plaform onepned in google chrome",
		},
		numCommands: 34,
		commands: []realCommand{
			{prefix: `ps -ef | rg -i "Google Chrome|chrome.*remote|codemie|codemie-ui"`, exit: exit(0), count: 2, status: "ok"},
			{prefix: "sed -n '1,220p' /Users/Sample_User/.codex/plugins/cache/openai-curated/superpowers/63976030/skills/using-superpowers/SKILL.md", exit: exit(0), count: 1},
			{prefix: "wc -l /Users/Sample_User/Downloads/Sample", exit: exit(0), count: 1},
		},
	},
}

func TestRealTranscripts(t *testing.T) {
	for _, want := range realExpectations {
		t.Run(want.file, func(t *testing.T) {
			checkReal(t, readFile(t, filepath.Join(realDir, want.file)), want)
		})
	}
}

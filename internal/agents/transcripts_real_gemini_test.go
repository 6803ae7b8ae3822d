package agents_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Expectations for the real Gemini CLI files, established by reading each
// (a script printed every message with its tool calls, their status and
// result).
func init() {
	realExpectations = append(realExpectations,
		// A prompt log (a JSON array of {sessionId, messageId, type,
		// message}), not a chat recording: the reader finds no record.
		realExpectation{file: "gemini/codemie/logs.json", agent: agents.Gemini, err: "no valid transcript record"},
		// The older single-object form (Dec 2025): three requests; the
		// reads are reads; write_file made lead_gemini.txt ("Successfully
		// created and wrote to new file") and a replace edited it. No
		// working directory is recorded, so the absolute path stays.
		realExpectation{
			file: "gemini/codemie/session-2025-12-01T21-45-5b959dae.json", agent: agents.Gemini,
			title:    "hi",
			requests: []string{"hi", "Explain what this is", "Make a copy of lead_memory.txt name it as lead_gemini.txt and optimize"},
			files: map[string]realFile{
				"/Users/Jane_Smith/Documents/projects/epm-cdme/assistants/lead_gemini.txt": {action: "created", edits: 2},
			},
		},
		// Jan 2026 .json: five requests; delegate_to_agent ran a subagent
		// whose recording is not there (its answer is the call's result);
		// hello.md was created then overwritten twice; the last of three
		// write_todos lists stands.
		realExpectation{
			file: "gemini/codemie/session-2026-01-16T11-01-file-ops-37b7abef.json", agent: agents.Gemini,
			title: "show tools",
			requests: []string{
				"show tools", "expore repository and figure out issues. focus on adaptability and security",
				"create hello.md file", "add 5 lines of random text", "remove 2 and 3 line",
			},
			files: map[string]realFile{"hello.md": {action: "created", edits: 3}},
			todos: []handoff.Todo{
				{Content: "Investigate codebase architecture for Adaptability and Security (Delegate to Agent)", Status: "completed"},
				{Content: "Review specific security policy documents and scripts (SECURITY.md, validate-secrets.js)", Status: "completed"},
				{Content: "Analyze configuration and environment management (src/env/manager.ts, src/cli/index.ts)", Status: "completed"},
				{Content: "Check usages of CredentialStore and pre-commit hooks", Status: "in_progress"},
				{Content: "Synthesize findings and report issues", Status: "pending"},
			},
		},
		// JSONL (Apr 2026). /init: the command is the request (its
		// expanded prompt is the content), and Gemini CLI made an empty
		// GEMINI.md ("Empty GEMINI.md created") that write_file then
		// overwrote and a replace edited. "System: Please continue." is
		// Gemini CLI's own turn. update_topic set two titles; the last,
		// "更新專案文件", names the session. The last turn was cancelled
		// (TestRealGeminiCancelled).
		realExpectation{
			file: "gemini/vct/gemini.jsonl", agent: agents.Gemini,
			title:     "更新專案文件",
			requests:  []string{"/init", "幫我做一個小修改 請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題"},
			files:     map[string]realFile{"GEMINI.md": {action: "created", edits: 2}},
			cancelled: true,
		},
	)
}

// TestRealGeminiCancelled checks what the harness does not: the user
// cancelled the last turn of gemini/vct/gemini.jsonl ("Request
// cancelled." after its replace), and of no other real recording.
func TestRealGeminiCancelled(t *testing.T) {
	for _, f := range []string{"gemini/vct/gemini.jsonl", "gemini/codemie/session-2026-01-16T11-01-file-ops-37b7abef.json"} {
		d, err := readAs(agents.Gemini, filepath.Join(realDir, f), transcript.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if want := strings.HasPrefix(f, "gemini/vct/"); d.Cancelled != want {
			t.Errorf("%s: cancelled %v, want %v", f, d.Cancelled, want)
		}
	}
}

package agents_test

import (
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// sampleExpectations hold, field by field, what each sample transcript
// under samplesDir says (read by eye; samples_test.go checks more of some
// of them): every file there has one (TestSampleTranscriptsCovered).
var sampleExpectations = []realExpectation{
	// A summary whose leaf is no line of the file; the Write of a new
	// path; a commit that succeeded (no exit code is written for a
	// success: ok, exit 0 read from the result).
	{file: "claude-code/sample_session.jsonl", agent: agents.ClaudeCode,
		title:       "Create a hello world function",
		requests:    []string{"Create a hello world function", "Now add a goodbye function"},
		files:       map[string]realFile{"hello.py": {action: "created", edits: 1}},
		numCommands: 1, commands: []realCommand{
			{prefix: "git add . && git commit -m 'Add hello function'", exit: exit(0), count: 1, status: "ok"},
		}},
	{file: "claude-code/minimal_with_summary.jsonl", agent: agents.ClaudeCode,
		title: "test message", requests: []string{"test message"}},
	// The "Caveat:" line and <local-command-stdout> are Claude Code's; the
	// <command-name> line is the user's command; FailingTool is no
	// command; the MultiEdit edits a file.
	{file: "claude-code/edge_cases.jsonl", agent: agents.ClaudeCode,
		title: "Tested various edge cases including markdown formatting, long text, tool errors, system messages, command outputs,…",
		requests: []string{"Here's a message with some **markdown** formatting", "Let's test a very long message",
			"test-command --verbose --output /tmp/test.log", "Testing special characters: café", "wow error"},
		files: map[string]realFile{"complex_example.py": {action: "edited", edits: 1}},
		todos: []handoff.Todo{
			{Content: "Implement core functionality", Status: "in_progress"},
			{Content: "Add comprehensive tests", Status: "pending"},
			{Content: "Write user documentation", Status: "pending"},
			{Content: "Perform code review", Status: "pending"},
		}},
	{file: "claude-code/todowrite_examples.jsonl", agent: agents.ClaudeCode,
		title: "Feature Implementation with Task Management",
		requests: []string{"Can you help me implement a new feature with proper task management?",
			"Can you add a task for security review as well?"},
		todos: []handoff.Todo{
			{Content: "Design the feature architecture", Status: "completed"},
			{Content: "Implement core functionality", Status: "completed"},
			{Content: "Add comprehensive tests", Status: "in_progress"},
			{Content: "Write user documentation", Status: "pending"},
			{Content: "Perform code review", Status: "pending"},
			{Content: "Conduct security review and penetration testing", Status: "pending"},
		}},
	// The request twice (event and item) counts once; the injected
	// AGENTS.md and environment context are none; the exec_command has no
	// outcome in the rollout; apply_patch adds gamma.txt.
	{file: "codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl", agent: agents.Codex,
		title: "List the synthetic files.", requests: []string{"List the synthetic files."},
		files:       map[string]realFile{"gamma.txt": {action: "created", edits: 1}},
		numCommands: 1, commands: []realCommand{{prefix: "find . -maxdepth 1 -type f", count: 1, status: "unknown"}}},
	{file: "codex/rollout-2026-01-03T04-05-10-33333333-3333-4333-8333-333333333333.jsonl", agent: agents.Codex,
		title: "Spawn a synthetic researcher.", requests: []string{"Spawn a synthetic researcher.", "Inspect fixtures."}},
	// Constructed (code mode: Codex's exec tool runs a script that calls
	// tools, in a rollout that keeps no event of those nested calls; the
	// codex folder's TestCodexCodeModeExec checks more of it): its request,
	// the files its patch changed and the three commands its scripts ran,
	// of which the rollout tells no outcome.
	{file: "codex/rollout-2026-11-20T10-00-00-44444444-4444-4444-8444-444444444444.jsonl", agent: agents.Codex,
		title:    "fix the checkout total rounding and run the tests",
		requests: []string{"fix the checkout total rounding and run the tests"},
		files: map[string]realFile{
			"checkout/total.go":      {action: "edited", edits: 1},
			"checkout/round_test.go": {action: "created", edits: 1},
		},
		numCommands: 3, commands: []realCommand{
			{prefix: "git status --short", count: 1, status: "unknown"},
			{prefix: "go test ./checkout/...", count: 1, status: "unknown"},
			{prefix: "go test ./checkout/... && go vet ./checkout/", count: 1, status: "unknown"},
		}},
	// The $set summary titles it; the test run that failed is the open failure.
	{file: "gemini/session-2026-03-12T10-15-4f1c2a9b.jsonl", agent: agents.Gemini,
		title: "Fix refund 500 on three-decimal amounts",
		requests: []string{"The refund endpoint returns 500 when the amount has three decimals.",
			"Stop here, I'll continue tomorrow from another machine. Negative amounts"},
		files: map[string]realFile{
			"internal/refund/handler.go":      {action: "edited", edits: 1},
			"internal/refund/handler_test.go": {action: "created", edits: 1},
		},
		numCommands: 1, openFailure: "go test ./internal/refund/...",
		commands: []realCommand{{prefix: "go test ./internal/refund/...", exit: exit(1), count: 1, status: "failed"}}},
}

func TestSampleExpectations(t *testing.T) {
	for _, want := range sampleExpectations {
		t.Run(want.file, func(t *testing.T) {
			d, err := readAs(want.agent, filepath.Join(samplesDir, want.file), transcript.Limits{})
			if err != nil {
				t.Fatalf("ReadTranscript: %v", err)
			}
			checkReal(t, d, want)
		})
	}
}

// TestSampleTranscriptsCovered: a sample added without its expectation
// fails.
func TestSampleTranscriptsCovered(t *testing.T) {
	have := map[string]bool{}
	for _, e := range sampleExpectations {
		have[e.file] = true
	}
	var files []string
	for dir := range sampleAgents {
		found, err := filepath.Glob(filepath.Join(samplesDir, dir, "*.json*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			files = append(files, dir+"/"+filepath.Base(f))
		}
	}
	expect.CoveredFiles(t, files, have, nil)
}

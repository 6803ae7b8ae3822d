package transcript

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realE2EDir holds transcripts the real agents wrote in the end-to-end
// suite against a scripted model (see its SOURCES.md), so that what the
// model did, and so what each digest must hold, is known exactly.
const realE2EDir = "testdata/real-e2e"

// realE2EExpectations are established from the scripts that made the
// files, not from the reader's output.
var realE2EExpectations = []realExpectation{
	{file: "../../../agents/claude/testdata/real-e2e/work/d1a90aa1-626e-41aa-a247-005d367c10ca.jsonl", agent: ClaudeCode,
		title: "add a greeting file and check the tree", requests: []string{"add a greeting file and check the tree"},
		files:       map[string]realFile{"hello.txt": {action: "created", edits: 1}},
		numCommands: 1, commands: []realCommand{{prefix: "git status --short", exit: exit(0), count: 1, status: "ok"}}},
	{file: "../../../agents/claude/testdata/real-e2e/briefed/6b2b0fbf-65d6-4744-87ba-e654d77a90a2.jsonl", agent: ClaudeCode,
		title: "what next?", requests: []string{"what next?"}},
	// /compact is a command, not a request; the session before it wrote
	// hello.txt.
	{file: "../../../agents/claude/testdata/real-e2e/compaction/fb266796-aa3e-42e5-a236-1283d3ae461d.jsonl", agent: ClaudeCode,
		title: "add a greeting file", requests: []string{"add a greeting file"},
		files:      map[string]realFile{"hello.txt": {action: "created", edits: 1}},
		compaction: "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."},
	{file: "../../../agents/codex/testdata/real-e2e/work/rollout-2026-11-27T11-55-39-01a21cdc-7446-7bd3-86ed-b6fd37217b2b.jsonl", agent: Codex,
		title: "add a greeting file and check the tree", requests: []string{"add a greeting file and check the tree"},
		files:       map[string]realFile{"hello.txt": {action: "created", edits: 1}},
		numCommands: 1, commands: []realCommand{{prefix: "git status --short", exit: exit(0), count: 1, status: "ok"}}},
	{file: "../../../agents/codex/testdata/real-e2e/briefed/rollout-2026-11-27T11-55-40-01a21cdc-7820-7723-83e6-fe4a315b8db7.jsonl", agent: Codex,
		title: "what next?", requests: []string{"what next?"}},
	// MCP tool calls are neither commands nor file edits.
	{file: "../../../agents/codex/testdata/real-e2e/mcp/rollout-2026-11-27T11-55-47-01a21cdc-94e1-7913-b74e-2c5d62e45b67.jsonl", agent: Codex,
		title: "save a handoff, list them, then resume", requests: []string{"save a handoff, list them, then resume"}},
	{file: "../../../agents/codex/testdata/real-e2e/compaction/rollout-2026-11-27T11-55-51-01a21cdc-a4fd-71f0-85a3-71504a0238c3.jsonl", agent: Codex,
		title: "check the tree", requests: []string{"check the tree"},
		numCommands: 1, commands: []realCommand{{prefix: "git status --short", exit: exit(0), count: 1, status: "ok"}},
		compaction: "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."},
	// Gemini CLI's are in internal/agents/gemini/real_test.go.
}

func TestRealE2ETranscripts(t *testing.T) {
	for _, want := range realE2EExpectations {
		t.Run(want.file, func(t *testing.T) {
			d, err := ReadTranscript(want.agent, filepath.Join(realE2EDir, want.file), Limits{})
			if err != nil {
				t.Fatalf("ReadTranscript: %v", err)
			}
			checkReal(t, d, want)
		})
	}
}

// TestRealE2ETranscriptsCovered: every transcript kept has an expectation
// or is named as waiting for one.
func TestRealE2ETranscriptsCovered(t *testing.T) {
	pending := map[string]bool{}
	have := map[string]bool{}
	for _, e := range realE2EExpectations {
		have[e.file] = true
	}
	files, err := filepath.Glob(filepath.Join(realE2EDir, "*", "*", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts under %s: %v", realE2EDir, err)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(realE2EDir, f)
		rel = filepath.ToSlash(rel)
		if !have[rel] && !pending[rel] {
			t.Errorf("%s has no expectation", rel)
		}
	}
	for f := range have {
		if _, err := os.Stat(filepath.Join(realE2EDir, f)); err != nil {
			t.Errorf("expectation for a missing file: %v", err)
		}
	}
}

// A rollout whose history is paginated (an app-server thread) holds no
// response items for its calls, only their completed items: the same
// Codex 0.171.0 session with every response item taken out still yields its
// file and its command.
func TestCodexCompletedItemsAlone(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realE2EDir, "../../../agents/codex/testdata/real-e2e/work/rollout-2026-11-27T11-55-39-01a21cdc-7446-7bd3-86ed-b6fd37217b2b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.Contains(line, `"type":"response_item"`) {
			kept = append(kept, line)
		}
	}
	if len(kept) == strings.Count(string(data), "\n") {
		t.Fatal("the fixture holds no response items to take out")
	}
	for name, read := range map[string]func(string) (*Digest, error){
		"streamed":  func(s string) (*Digest, error) { return ReadCodex(struct{ io.Reader }{strings.NewReader(s)}, Limits{}) },
		"in passes": func(s string) (*Digest, error) { return ReadCodex(strings.NewReader(s), Limits{}) },
	} {
		d, err := read(strings.Join(kept, "\n") + "\n")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkReal(t, d, realExpectation{agent: Codex, title: "add a greeting file and check the tree",
			requests:    []string{"add a greeting file and check the tree"},
			files:       map[string]realFile{"hello.txt": {action: "created", edits: 1}},
			numCommands: 1, commands: []realCommand{{prefix: "git status --short", exit: exit(0), count: 1, status: "ok"}}})
	}
}

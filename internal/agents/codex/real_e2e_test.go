package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realE2EExpectations are established from the scripts of the end-to-end
// suite that made the rollouts in realE2EDir (its SOURCES.md), not from
// the reader's output.
var realE2EExpectations = []struct {
	file string
	want expect.Want
}{
	{"work/rollout-2026-11-27T11-55-39-01a21cdc-7446-7bd3-86ed-b6fd37217b2b.jsonl", expect.Want{
		Title: "add a greeting file and check the tree", Requests: []string{"add a greeting file and check the tree"},
		Files:       map[string]expect.File{"hello.txt": {Action: "created", Edits: 1}},
		NumCommands: 1, Commands: []expect.Command{{Prefix: "git status --short", Exit: expect.Exit(0), Count: 1, Status: "ok"}}}},
	{"briefed/rollout-2026-11-27T11-55-40-01a21cdc-7820-7723-83e6-fe4a315b8db7.jsonl", expect.Want{
		Title: "what next?", Requests: []string{"what next?"}}},
	// MCP tool calls are neither commands nor file edits.
	{"mcp/rollout-2026-11-27T11-55-47-01a21cdc-94e1-7913-b74e-2c5d62e45b67.jsonl", expect.Want{
		Title: "save a handoff, list them, then resume", Requests: []string{"save a handoff, list them, then resume"}}},
	{"compaction/rollout-2026-11-27T11-55-51-01a21cdc-a4fd-71f0-85a3-71504a0238c3.jsonl", expect.Want{
		Title: "check the tree", Requests: []string{"check the tree"},
		NumCommands: 1, Commands: []expect.Command{{Prefix: "git status --short", Exit: expect.Exit(0), Count: 1, Status: "ok"}},
		Compaction: "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."}},
	// TestFailedEditAndShellMoves: apply_patch of keep.txt fails
	// verification ("Failed to find expected lines"): a failed edit, no
	// change; git mv and rm are commands, their files capture's (from
	// git).
	{"fidelity/rollout-2026-11-29T06-22-56-01a225f8-8f97-7101-8b68-d9a2d9fb54f1.jsonl", expect.Want{
		Title: "tidy the project", Requests: []string{"tidy the project"},
		NumCommands: 2, Commands: []expect.Command{{Prefix: "git mv old.txt new.txt", Exit: expect.Exit(0), Count: 1, Status: "ok"},
			{Prefix: "rm gone.txt", Exit: expect.Exit(0), Count: 1, Status: "ok"}},
		FailedEdits: map[string]expect.FailedEdit{"keep.txt": {Count: 1}}}},
	// TestSubagentWork: spawn_agent (multi_agent_v2) starts a thread
	// whose rollout, beside the session's in the sessions tree, writes
	// sub.txt: the subagent's, its message no request of the user's.
	{"subagent/sessions/2026/11/29/rollout-2026-11-29T06-40-41-01a22608-d055-7830-bb60-c678db578b77.jsonl", expect.Want{
		Title: "have a subagent write sub.txt", Requests: []string{"have a subagent write sub.txt"},
		Files: map[string]expect.File{"sub.txt": {Action: "created", Edits: 1, By: "subagent 01a22608-d122-7b11-b373-2deb7624abee"}}}},
}

// The subagent's rollout read alone is a subagent's, naming its parent.
func TestRealE2ESubagentAlone(t *testing.T) {
	d := readFile(t, filepath.Join(realE2EDir, "subagent/sessions/2026/11/29/rollout-2026-11-29T06-40-41-01a22608-d122-7b11-b373-2deb7624abee.jsonl"))
	if !d.Subagent || d.Parent != "01a22608-d055-7830-bb60-c678db578b77" || len(d.Session.Requests) != 0 {
		t.Errorf("subagent %v, parent %q, requests %q", d.Subagent, d.Parent, d.Session.Requests)
	}
	// inter_agent_communication_metadata (0.171.0) is a known type.
	if d.Stats.Unknown != 0 {
		t.Errorf("unknown types %v", d.Stats.UnknownTypes)
	}
}

func TestRealE2ETranscripts(t *testing.T) {
	for _, e := range realE2EExpectations {
		t.Run(e.file, func(t *testing.T) {
			checkReal(t, readFile(t, filepath.Join(realE2EDir, e.file)), e.want)
		})
	}
}

// TestRealE2ETranscriptsCovered: every rollout kept at the top of a
// scenario has an expectation, and every such expectation its rollout (a
// subagent's, in the scenario's sessions tree, is read where its
// expectation is checked).
func TestRealE2ETranscriptsCovered(t *testing.T) {
	have := map[string]bool{}
	for _, e := range realE2EExpectations {
		if strings.Count(e.file, "/") == 1 {
			have[e.file] = true
		}
	}
	expect.Covered(t, realE2EDir, "*/*.jsonl", have)
}

// A rollout whose history is paginated (an app-server thread) holds no
// response items for its calls, only their completed items: the same
// Codex 0.171.0 session with every response item taken out still yields its
// file and its command.
func TestCodexCompletedItemsAlone(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realE2EDir, "work/rollout-2026-11-27T11-55-39-01a21cdc-7446-7bd3-86ed-b6fd37217b2b.jsonl"))
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
	{
		d, err := codex(strings.Join(kept, "\n") + "\n")
		if err != nil {
			t.Fatalf("in passes: %v", err)
		}
		checkReal(t, d, realE2EExpectations[0].want) // the work rollout's
	}
}

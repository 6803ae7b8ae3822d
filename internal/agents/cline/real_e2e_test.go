package cline

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents/gemini"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realExpectation is what one session Cline wrote must read as, field by
// field, established from the scripts that made it (testdata/real-e2e,
// SOURCES.md), not from the reader's output: the fields every reader
// shares (expect.Want), and Cline's own.
type realExpectation struct {
	dir, id     string
	want        expect.Want
	lastMessage string
	tokens      handoff.Tokens
	cwd         string
	subagents   int
}

// marks are Cline's words that must not survive reading: its wrapper
// around what the user typed, its run reminders, hook context.
var marks = expect.Marks{Injected: func(req string) bool {
	return strings.Contains(req, "<user_input") || strings.HasPrefix(req, "[SYSTEM]") || strings.Contains(req, "<hook_context")
}}

const work = "/tmp/h36cline-x7/proj"

var realExpectations = []realExpectation{
	{dir: "work", id: "1795790092737_lizig", cwd: work,
		want: expect.Want{Title: "Write calc.py with an add function and test it",
			Requests: []string{"Write calc.py with an add function and test it"},
			// created by editor, then edited by it; read_files does not count
			Files:       map[string]expect.File{"calc.py": {Action: "created", Edits: 2}},
			NumCommands: 3, Commands: []expect.Command{
				{Prefix: `python3 -c 'import calc; assert calc.add(2, 2) == 4, "bad add"'`, Exit: expect.Exit(1), Count: 1, Status: handoff.StatusFailed},
				{Prefix: `python3 -c 'import calc; print(calc.add(2, 3))'`, Exit: expect.Exit(0), Count: 1, Status: handoff.StatusOK},
				{Prefix: "ls does-not-exist", Exit: expect.Exit(2), Count: 1, Status: handoff.StatusFailed}},
			OpenFailure: "ls does-not-exist"},
		lastMessage: "calc.py now adds two numbers; the test passes.",
		tokens:      handoff.Tokens{Input: 7000, Output: 140}},
	// the model wrote no text: its submit_and_exit summary is its last word
	{dir: "compaction", id: "1795790106186_5sjth", cwd: work,
		want: expect.Want{Title: "Check the tree", Requests: []string{"Check the tree"},
			NumCommands: 1, Commands: []expect.Command{{Prefix: "git status --short", Exit: expect.Exit(0), Count: 1, Status: handoff.StatusOK}},
			Compaction: "E2E-SUMMARY: compacted.\n\n## Files\nRead:\n- none\nModified:\n- none"},
		lastMessage: "Checked the tree: calc.py is new.",
		tokens:      handoff.Tokens{Input: 2000, Output: 40}},
	// The suite's TestCaptureAndBrief, with the plugin integrate writes:
	// its first session, then the second, briefed (the briefing is a
	// <hook_context source="RunStart"> message of its own, no request).
	{dir: "suite-work", id: "1795791511128_mqlvk", cwd: "/tmp/TestCaptureAndBriefcline983481210/001/project",
		want: expect.Want{Title: "add a greeting file and check the tree", Requests: []string{"add a greeting file and check the tree"},
			Files:       map[string]expect.File{"hello.txt": {Action: "created", Edits: 1}},
			NumCommands: 1, Commands: []expect.Command{{Prefix: "git status --short", Exit: expect.Exit(0), Count: 1, Status: handoff.StatusOK}}},
		lastMessage: "Done: Wrote hello.txt and checked git status.",
		tokens:      handoff.Tokens{Input: 3000, Output: 60}},
	{dir: "briefed", id: "1795791516412_5bfiq", cwd: "/tmp/TestCaptureAndBriefcline983481210/001/project",
		want:        expect.Want{Title: "what next?", Requests: []string{"what next?"}},
		lastMessage: "Done: Nothing to do.",
		tokens:      handoff.Tokens{Input: 1000, Output: 20}},
	// MCP tool calls (session-handoff__handoff_save, …_list) are neither
	// commands nor file edits; the run was briefed by the plugin too.
	{dir: "mcp", id: "1795791732855_2du9e", cwd: work,
		want:        expect.Want{Title: "save a handoff", Requests: []string{"save a handoff"}},
		lastMessage: "Saved and listed the handoff.",
		tokens:      handoff.Tokens{Input: 3000, Output: 60}},
	// Two runs of one session in the terminal UI: "cline -i" then
	// "cline --id" (a resumed session); each run's request in order.
	{dir: "resumed", id: "1795792518153_oukke", cwd: work,
		want: expect.Want{Title: "list the tree", Requests: []string{"list the tree", "is nothing-here there?"},
			NumCommands: 2, Commands: []expect.Command{
				{Prefix: "ls", Exit: expect.Exit(0), Count: 1, Status: handoff.StatusOK},
				{Prefix: "ls nothing-here", Exit: expect.Exit(2), Count: 1, Status: handoff.StatusFailed}},
			OpenFailure: "ls nothing-here"},
		lastMessage: "nothing-here is missing.",
		tokens:      handoff.Tokens{Input: 4000, Output: 80}},
	// spawn_agent in the terminal UI: the subagent's command is folded in,
	// marked as its; its request and answer are not the session's.
	{dir: "subagent", id: "1795792698526_q2vgy", cwd: work,
		want: expect.Want{Title: "count the files with a subagent", Requests: []string{"count the files with a subagent"},
			NumCommands: 1, Commands: []expect.Command{{Prefix: "ls | wc -l", Exit: expect.Exit(0), Count: 1, Status: handoff.StatusOK, By: "subagent agent_1795792700419_7d2brt"}}},
		lastMessage: "The subagent counted 2 files.",
		tokens:      handoff.Tokens{Input: 2000, Output: 40}, subagents: 1},
	{dir: "cancel", id: "1795790122023_mci1z", cwd: work,
		want: expect.Want{Title: "Wait half a minute", Requests: []string{"Wait half a minute"},
			NumCommands: 1, Commands: []expect.Command{{Prefix: "sleep 30", Count: 1, Status: handoff.StatusInterrupted}},
			Cancelled: true},
		tokens: handoff.Tokens{Input: 1000, Output: 20}},
}

func TestRealSessionsFieldByField(t *testing.T) {
	for _, e := range realExpectations {
		t.Run(e.dir, func(t *testing.T) {
			d, err := reader{}.Read(e.path(), "", transcript.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range e.mismatches(d) {
				t.Error(m)
			}
		})
	}
}

// Every session kept in testdata has its expectations, and each digest
// keeps what every digest must.
func TestEveryRealSessionIsExpected(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "real-e2e", "*", "*"+messagesSuffix))
	if err != nil {
		t.Fatal(err)
	}
	// a subagent's messages are read with its parent's
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasPrefix(filepath.Base(f), subagentPrefix) })
	expected := map[string]bool{}
	for _, e := range realExpectations {
		expected[e.path()] = true
		d, err := reader{}.Read(e.path(), "", transcript.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if err := transcript.CheckDigest(d); err != nil {
			t.Errorf("%s: %v", e.dir, err)
		}
	}
	expect.CoveredFiles(t, files, expected, nil)
}

// A reader that is not Cline's (another agent's, here Gemini CLI's, whose
// older chats are one JSON object with sessionId and messages too) fails
// the expectations: they tell readers apart.
func TestRealSessionsFailAWrongReader(t *testing.T) {
	wrong := gemini.Transcripts{}
	for _, e := range realExpectations {
		d, err := wrong.Read(e.path(), "", transcript.Limits{})
		if err == nil && len(e.mismatches(d)) == 0 {
			t.Errorf("%s: Gemini CLI's reader meets every expectation of Cline's session", e.dir)
		}
	}
}

func (e realExpectation) path() string {
	return filepath.Join("testdata", "real-e2e", e.dir, e.id+messagesSuffix)
}

// mismatches lists how d differs from e.
func (e realExpectation) mismatches(d *transcript.Digest) []string {
	var out []string
	for _, m := range expect.Compare(expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}, e.want, marks) {
		out = append(out, m.Field+": "+m.Msg)
	}
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	s := d.Session
	if s.Agent != Name || s.ID != e.id {
		bad("agent %q, id %q; want %q, %q", s.Agent, s.ID, Name, e.id)
	}
	if s.AgentVersion != "3.0.65" || s.AgentVersionSource != handoff.VersionFromTranscript {
		bad("agent version %q from %q, want 3.0.65 from the transcript", s.AgentVersion, s.AgentVersionSource)
	}
	if d.CWD != e.cwd {
		bad("cwd %q, want %q", d.CWD, e.cwd)
	}
	if s.LastAgentMessage != e.lastMessage {
		bad("last agent message %q, want %q", s.LastAgentMessage, e.lastMessage)
	}
	if s.CompactionSummary != e.want.Compaction {
		bad("compaction summary %q, want %q", s.CompactionSummary, e.want.Compaction)
	}
	if s.Tokens == nil || *s.Tokens != e.tokens {
		bad("tokens %+v, want %+v", s.Tokens, e.tokens)
	}
	if len(s.Todos) != 0 {
		bad("todos %+v, want none (Cline's yolo mode has no todo tool)", s.Todos)
	}
	if d.Stats.Subagents != e.subagents {
		bad("%d subagents folded in, want %d", d.Stats.Subagents, e.subagents)
	}
	if s.SkippedRecords != 0 || d.Stats.Unknown != 0 || d.Stats.Malformed != 0 {
		bad("skipped %d (stats %+v), want every message read", s.SkippedRecords, d.Stats)
	}
	return out
}

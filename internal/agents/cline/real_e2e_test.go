package cline

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// realCommand is what a command of a real session must be.
type realCommand struct {
	command string
	exit    *int
	status  string
}

// realExpectation is what one session Cline wrote must read as, field by
// field, established from the scripts that made it (testdata/real-e2e,
// SOURCES.md), not from the reader's output.
type realExpectation struct {
	dir, id     string
	title       string
	requests    []string
	lastMessage string
	files       []handoff.FileTouched
	commands    []realCommand
	lastFailure string
	compaction  string
	cancelled   bool
	tokens      handoff.Tokens
	cwd         string
}

func exitCode(n int) *int { return &n }

var realExpectations = []realExpectation{
	{dir: "work", id: "1795790092737_lizig",
		title:       "Write calc.py with an add function and test it",
		requests:    []string{"Write calc.py with an add function and test it"},
		lastMessage: "calc.py now adds two numbers; the test passes.",
		// created by editor, then edited by it; read_files does not count
		files: []handoff.FileTouched{{Path: "calc.py", Action: "created", Edits: 2}},
		commands: []realCommand{
			{`python3 -c 'import calc; assert calc.add(2, 2) == 4, "bad add"'`, exitCode(1), handoff.StatusFailed},
			{`python3 -c 'import calc; print(calc.add(2, 3))'`, exitCode(0), handoff.StatusOK},
			{"ls does-not-exist", exitCode(2), handoff.StatusFailed}},
		lastFailure: "ls does-not-exist",
		tokens:      handoff.Tokens{Input: 7000, Output: 140},
		cwd:         "/tmp/h36cline-x7/proj"},
	{dir: "compaction", id: "1795790106186_5sjth",
		title: "Check the tree", requests: []string{"Check the tree"},
		// the model wrote no text: its submit_and_exit summary is its last word
		lastMessage: "Checked the tree: calc.py is new.",
		commands:    []realCommand{{"git status --short", exitCode(0), handoff.StatusOK}},
		compaction:  "E2E-SUMMARY: compacted.\n\n## Files\nRead:\n- none\nModified:\n- none",
		tokens:      handoff.Tokens{Input: 2000, Output: 40},
		cwd:         "/tmp/h36cline-x7/proj"},
	// The suite's TestCaptureAndBrief, with the plugin integrate writes:
	// its first session, then the second, briefed (the briefing is a
	// <hook_context source="RunStart"> message of its own, no request).
	{dir: "suite-work", id: "1795791511128_mqlvk",
		title: "add a greeting file and check the tree", requests: []string{"add a greeting file and check the tree"},
		lastMessage: "Done: Wrote hello.txt and checked git status.",
		files:       []handoff.FileTouched{{Path: "hello.txt", Action: "created", Edits: 1}},
		commands:    []realCommand{{"git status --short", exitCode(0), handoff.StatusOK}},
		tokens:      handoff.Tokens{Input: 3000, Output: 60},
		cwd:         "/tmp/TestCaptureAndBriefcline983481210/001/project"},
	{dir: "briefed", id: "1795791516412_5bfiq",
		title: "what next?", requests: []string{"what next?"},
		lastMessage: "Done: Nothing to do.",
		tokens:      handoff.Tokens{Input: 1000, Output: 20},
		cwd:         "/tmp/TestCaptureAndBriefcline983481210/001/project"},
	// MCP tool calls (session-handoff__handoff_save, …_list) are neither
	// commands nor file edits; the run was briefed by the plugin too.
	{dir: "mcp", id: "1795791732855_2du9e",
		title: "save a handoff", requests: []string{"save a handoff"},
		lastMessage: "Saved and listed the handoff.",
		tokens:      handoff.Tokens{Input: 3000, Output: 60},
		cwd:         "/tmp/h36cline-x7/proj"},
	{dir: "cancel", id: "1795790122023_mci1z",
		title: "Wait half a minute", requests: []string{"Wait half a minute"},
		commands:  []realCommand{{"sleep 30", nil, handoff.StatusInterrupted}},
		cancelled: true,
		tokens:    handoff.Tokens{Input: 1000, Output: 20},
		cwd:       "/tmp/h36cline-x7/proj"},
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

// A reader that is not Cline's (another agent's, here Gemini CLI's, whose
// older chats are one JSON object with sessionId and messages too) fails
// the expectations: they tell readers apart.
func TestRealSessionsFailAWrongReader(t *testing.T) {
	wrong := transcript.ReaderOf(transcript.Gemini)
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
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	s := d.Session
	if s.Agent != Name || s.ID != e.id {
		bad("agent %q, id %q; want %q, %q", s.Agent, s.ID, Name, e.id)
	}
	if s.AgentVersion != "3.0.65" || s.AgentVersionSource != handoff.VersionFromTranscript {
		bad("agent version %q from %q, want 3.0.65 from the transcript", s.AgentVersion, s.AgentVersionSource)
	}
	if d.Title != e.title {
		bad("title %q, want %q", d.Title, e.title)
	}
	if d.CWD != e.cwd {
		bad("cwd %q, want %q", d.CWD, e.cwd)
	}
	if !reflect.DeepEqual(s.Requests, e.requests) {
		bad("requests %q, want %q", s.Requests, e.requests)
	}
	if s.LastAgentMessage != e.lastMessage {
		bad("last agent message %q, want %q", s.LastAgentMessage, e.lastMessage)
	}
	var files []handoff.FileTouched
	for _, f := range d.Files {
		files = append(files, handoff.FileTouched{Path: f.Path, Action: f.Action, Edits: f.Edits})
	}
	if !reflect.DeepEqual(files, e.files) {
		bad("files %+v, want %+v", files, e.files)
	}
	if len(s.Commands) != len(e.commands) {
		bad("commands %+v, want %d", s.Commands, len(e.commands))
	} else {
		for i, c := range s.Commands {
			w := e.commands[i]
			if c.Command != w.command || !reflect.DeepEqual(c.ExitCode, w.exit) || c.Status != w.status || c.Count != 1 {
				bad("command %d: %q exit %v status %q count %d; want %q exit %v status %q", i, c.Command, ptr(c.ExitCode), c.Status, c.Count, w.command, ptr(w.exit), w.status)
			}
		}
	}
	got := ""
	if s.LastFailure != nil {
		got = s.LastFailure.Command
	}
	if got != e.lastFailure {
		bad("last failure %q, want %q", got, e.lastFailure)
	}
	if s.CompactionSummary != e.compaction {
		bad("compaction summary %q, want %q", s.CompactionSummary, e.compaction)
	}
	if d.Cancelled != e.cancelled {
		bad("cancelled %v, want %v", d.Cancelled, e.cancelled)
	}
	if s.Tokens == nil || *s.Tokens != e.tokens {
		bad("tokens %+v, want %+v", s.Tokens, e.tokens)
	}
	if len(s.Todos) != 0 {
		bad("todos %+v, want none (Cline's yolo mode has no todo tool)", s.Todos)
	}
	if s.SkippedRecords != 0 || d.Stats.Unknown != 0 || d.Stats.Malformed != 0 {
		bad("skipped %d (stats %+v), want every message read", s.SkippedRecords, d.Stats)
	}
	return out
}

func ptr(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

package qwen

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realDir holds the transcripts Qwen Code 0.24.4 wrote against a scripted
// model (testdata/real-e2e/SOURCES.md), so what each digest must hold is
// known from the scripts, not from this reader.
const realDir = "testdata/real-e2e"

func exit(n int) *int { return &n }

type realFile struct {
	action string
	edits  int
	by     string // who changed it when not the session's agent
}

var realExpectations = []struct {
	file, id, cwd string
	title         string
	requests      []string
	last          string
	files         map[string]realFile
	commands      []handoff.Command
	lastFailure   *handoff.Command
	todos         []handoff.Todo
	compaction    string
	tokens        handoff.Tokens
	failedEdits   map[string]expect.FailedEdit
}{
	// Two runs of one session. The refused edit (the file not read first)
	// is no edit; the assert and ls fail by their exit codes.
	{file: "work/70559218-028d-4e81-b338-db2a11c19f1a.jsonl", id: "70559218-028d-4e81-b338-db2a11c19f1a", cwd: "/tmp/h36q/home/proj",
		title:    "Write calc.py with an add function and test it",
		requests: []string{"Write calc.py with an add function and test it", "Now add a sub function"},
		last:     "calc.py has sub too.",
		files:    map[string]realFile{"calc.py": {"created", 3, ""}},
		commands: []handoff.Command{
			{Command: `python3 -c 'import calc; assert calc.add(2, 2) == 4, "bad add"'`, ExitCode: exit(1), Count: 1, Status: handoff.StatusFailed,
				Output: "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nAssertionError: bad add"},
			{Command: `python3 -c 'import calc; print(calc.add(2, 3))'`, ExitCode: exit(0), Count: 1, Status: handoff.StatusOK},
			{Command: "ls does-not-exist", ExitCode: exit(2), Count: 1, Status: handoff.StatusFailed,
				Output: "ls: cannot access 'does-not-exist': No such file or directory"}},
		lastFailure: &handoff.Command{Command: "ls does-not-exist", ExitCode: exit(2), Status: handoff.StatusFailed,
			Output: "ls: cannot access 'does-not-exist': No such file or directory"},
		todos: []handoff.Todo{{Content: "Write calc.py", Status: "completed"}, {Content: "Test calc.py", Status: "completed"},
			{Content: "Add sub to calc.py", Status: "in_progress"}},
		// Eleven model calls, each claiming 1,000 prompt and 20 output
		// tokens (fakemodel).
		tokens: handoff.Tokens{Input: 11000, Output: 220}},
	// Compressed before each model call of the second run, then by
	// /compress, which is no request; the summary without Qwen Code's
	// resume sentence.
	{file: "compaction/ffacf368-a50a-4519-82a0-619e91ff6a84.jsonl", id: "ffacf368-a50a-4519-82a0-619e91ff6a84", cwd: "/tmp/h36k/home/proj",
		title:      "add a greeting file",
		requests:   []string{"add a greeting file", "check the tree"},
		last:       "Checked the tree.",
		files:      map[string]realFile{"hello.txt": {"created", 1, ""}},
		commands:   []handoff.Command{{Command: "git status --short", ExitCode: exit(0), Count: 1, Status: handoff.StatusOK}},
		compaction: "<state_snapshot>\nE2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go.\n</state_snapshot>",
		tokens:     handoff.Tokens{Input: 4000, Output: 80}},
	// The suite's sessions (scripts/e2e.sh, internal/e2e): hooks
	// installed by integrate qwen-code, so .qwen/ is untracked.
	{file: "suite/work/702c0321-7e16-450a-9874-a28497b751e8.jsonl", id: "702c0321-7e16-450a-9874-a28497b751e8", cwd: "/tmp/TestCaptureAndBriefqwen-code1745764760/001/project",
		title: "add a greeting file and check the tree", requests: []string{"add a greeting file and check the tree"},
		last:     "Wrote hello.txt and checked git status.",
		files:    map[string]realFile{"hello.txt": {"created", 1, ""}},
		commands: []handoff.Command{{Command: "git status --short", ExitCode: exit(0), Count: 1, Status: handoff.StatusOK}},
		tokens:   handoff.Tokens{Input: 3000, Output: 60}},
	// Briefed at its start: the SessionStart hook's context reaches the
	// model, not the transcript.
	{file: "suite/briefed/3d6964c6-c4e8-4601-8782-18b735259c6c.jsonl", id: "3d6964c6-c4e8-4601-8782-18b735259c6c", cwd: "/tmp/TestCaptureAndBriefqwen-code1745764760/001/project",
		title: "what next?", requests: []string{"what next?"}, last: "Nothing to do.", files: map[string]realFile{},
		tokens: handoff.Tokens{Input: 1000, Output: 20}},
	// tool_search, then the three MCP tools through tool_call: neither
	// commands nor file edits.
	{file: "suite/mcp/de8fd316-332b-4551-a30f-6372976754ce.jsonl", id: "de8fd316-332b-4551-a30f-6372976754ce", cwd: "/tmp/TestMCPqwen-code3146548402/001/project",
		title: "save a handoff, list them, then resume", requests: []string{"save a handoff, list them, then resume"},
		last: "Saved, listed and resumed.", files: map[string]realFile{}, tokens: handoff.Tokens{Input: 5000, Output: 100}},
	// Compressed before both model calls of the continued run; the
	// compression requests are no turns of the session.
	{file: "suite/compaction/c70f5249-1b8d-4539-8894-4b04229f69f1.jsonl", id: "c70f5249-1b8d-4539-8894-4b04229f69f1", cwd: "/tmp/TestCompactionqwen-code4175115294/001/project",
		title: "add a greeting file", requests: []string{"add a greeting file", "check the tree"},
		last:       "Checked the tree.",
		files:      map[string]realFile{"hello.txt": {"created", 1, ""}},
		commands:   []handoff.Command{{Command: "git status --short", ExitCode: exit(0), Count: 1, Status: handoff.StatusOK}},
		compaction: "<state_snapshot>\nE2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go.\n</state_snapshot>",
		tokens:     handoff.Tokens{Input: 4000, Output: 80}},
	// TestFailedEditAndShellMoves (internal/e2e): the edit of keep.txt
	// refused (not read first) is a failed edit, no change; git mv and
	// rm are commands (their files are capture's, from git); the
	// subagent's write of sub.txt, in
	// subagents/<session id>/agent-general-purpose-call_0004_0.jsonl, is
	// the subagent's, and its prompt no request. The subagent's records
	// keep no status: its write's outcome is its response.
	{file: "fidelity/chats/09a73772-5382-4964-857e-e6f096a3ba29.jsonl", id: "09a73772-5382-4964-857e-e6f096a3ba29",
		cwd:   "/tmp/TestFailedEditAndShellMovesqwen-code2433644187/001/project",
		title: "tidy the project", requests: []string{"tidy the project"},
		last:  "Fixed keep.txt, renamed old.txt to new.txt and removed gone.txt.",
		files: map[string]realFile{"sub.txt": {"created", 1, "subagent general-purpose-call_0004_0"}},
		commands: []handoff.Command{{Command: "git mv old.txt new.txt", ExitCode: exit(0), Count: 1, Status: handoff.StatusOK},
			{Command: "rm gone.txt", ExitCode: exit(0), Count: 1, Status: handoff.StatusOK}},
		failedEdits: map[string]expect.FailedEdit{"keep.txt": {Count: 1}},
		// Five model calls of the session's own (the subagent's two
		// are in its file), each 1,000 and 20.
		tokens: handoff.Tokens{Input: 5000, Output: 100}},
}

// TestReadReal reads each real transcript and checks every field the
// scripts determine.
func TestReadReal(t *testing.T) {
	for _, e := range realExpectations {
		t.Run(e.file, func(t *testing.T) {
			d, err := Transcripts{}.Read(filepath.Join(realDir, e.file), "", transcript.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			s := d.Session
			if s.Agent != Name || s.ID != e.id || d.CWD != e.cwd || d.GitBranch != "main" || d.Title != e.title {
				t.Errorf("agent %q id %q cwd %q branch %q title %q", s.Agent, s.ID, d.CWD, d.GitBranch, d.Title)
			}
			if s.AgentVersion != "0.24.4" || s.AgentVersionSource != handoff.VersionFromTranscript {
				t.Errorf("version %q (%s), want 0.24.4 from the transcript", s.AgentVersion, s.AgentVersionSource)
			}
			if !reflect.DeepEqual(s.Requests, e.requests) || s.LastAgentMessage != e.last {
				t.Errorf("requests %q, last message %q", s.Requests, s.LastAgentMessage)
			}
			got := map[string]realFile{}
			for _, f := range d.Files {
				got[f.Path] = realFile{f.Action, f.Edits, f.By}
			}
			if !reflect.DeepEqual(got, e.files) {
				t.Errorf("files %+v, want %+v", got, e.files)
			}
			if !reflect.DeepEqual(s.Commands, e.commands) {
				t.Errorf("commands:\n got %+v\nwant %+v", s.Commands, e.commands)
			}
			if !reflect.DeepEqual(s.LastFailure, e.lastFailure) {
				t.Errorf("last failure %+v, want %+v", s.LastFailure, e.lastFailure)
			}
			if !reflect.DeepEqual(s.Todos, e.todos) {
				t.Errorf("todos %+v, want %+v", s.Todos, e.todos)
			}
			if s.CompactionSummary != e.compaction || d.Cancelled {
				t.Errorf("compaction %q, cancelled %v", s.CompactionSummary, d.Cancelled)
			}
			if s.Tokens == nil || *s.Tokens != e.tokens {
				t.Errorf("tokens %+v, want %+v", s.Tokens, e.tokens)
			}
			if d.Stats.Malformed+d.Stats.TooLong+d.Stats.Unknown != 0 || d.Stats.Records != d.Stats.Lines {
				t.Errorf("stats %+v: every line is a record of a known type", d.Stats)
			}
		})
	}
}

// TestReadRealExpect checks the real transcripts as every reader's are
// checked (internal/transcript/expect), with Qwen Code's own marks: the
// hook context part of a prompt and the resume sentence after a summary.
func TestReadRealExpect(t *testing.T) {
	marks := expect.Marks{Injected: func(r string) bool { return strings.Contains(r, hookContextTag) }, Wrappers: []string{resumeTrailer}}
	for _, e := range realExpectations {
		t.Run(e.file, func(t *testing.T) {
			d, err := Transcripts{}.Read(filepath.Join(realDir, e.file), "", transcript.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			want := expect.Want{Title: e.title, Requests: e.requests, Files: map[string]expect.File{}, NumCommands: len(e.commands),
				Todos: e.todos, Compaction: e.compaction, FailedEdits: e.failedEdits}
			for p, f := range e.files {
				want.Files[p] = expect.File{Action: f.action, Edits: f.edits, By: f.by}
			}
			for _, c := range e.commands {
				want.Commands = append(want.Commands, expect.Command{Prefix: c.Command, Exit: c.ExitCode, Count: c.Count, Status: c.Status})
			}
			if e.lastFailure != nil {
				want.OpenFailure = e.lastFailure.Command
			}
			expect.Check(t, expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}, want, marks)
		})
	}
}

// A subagent's transcript read on its own is a subagent's, naming its
// parent session: capture refuses it, and its prompt is never a request
// of the user's in any session.
func TestReadRealSubagentAlone(t *testing.T) {
	d, err := Transcripts{}.Read(filepath.Join(realDir, "fidelity/subagents/09a73772-5382-4964-857e-e6f096a3ba29/agent-general-purpose-call_0004_0.jsonl"), "", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Subagent || d.Parent != "09a73772-5382-4964-857e-e6f096a3ba29" || d.Stats.Subagents != 0 {
		t.Errorf("subagent %v, parent %q, subagents %d", d.Subagent, d.Parent, d.Stats.Subagents)
	}
	if len(d.Files) != 1 || d.Files[0].Path != "sub.txt" || d.Files[0].Action != "created" {
		t.Errorf("files %+v, want sub.txt created", d.Files)
	}
}

package qwen

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// realDir holds the transcripts Qwen Code 0.24.4 wrote against a scripted
// model (testdata/real-e2e/SOURCES.md), so what each digest must hold is
// known from the scripts, not from this reader.
const realDir = "testdata/real-e2e"

func exit(n int) *int { return &n }

type realFile struct {
	action string
	edits  int
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
}{
	// Two runs of one session. The refused edit (the file not read first)
	// is no edit; the assert and ls fail by their exit codes.
	{file: "work/70559218-028d-4e81-b338-db2a11c19f1a.jsonl", id: "70559218-028d-4e81-b338-db2a11c19f1a", cwd: "/tmp/h36q/home/proj",
		title:    "Write calc.py with an add function and test it",
		requests: []string{"Write calc.py with an add function and test it", "Now add a sub function"},
		last:     "calc.py has sub too.",
		files:    map[string]realFile{"calc.py": {"created", 3}},
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
		files:      map[string]realFile{"hello.txt": {"created", 1}},
		commands:   []handoff.Command{{Command: "git status --short", ExitCode: exit(0), Count: 1, Status: handoff.StatusOK}},
		compaction: "<state_snapshot>\nE2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go.\n</state_snapshot>",
		tokens:     handoff.Tokens{Input: 4000, Output: 80}},
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
				got[f.Path] = realFile{f.Action, f.Edits}
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

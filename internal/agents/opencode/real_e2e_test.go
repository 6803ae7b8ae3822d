package opencode

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realDB decompresses testdata/real-e2e/NAME (a database OpenCode wrote,
// with its WAL) into a temporary directory and returns its path.
func realDB(t testing.TB, name string) string {
	t.Helper()
	dir := t.TempDir()
	expect.Gunzip(t, filepath.Join("testdata", "real-e2e", name), dir, "opencode.db", "opencode.db-wal")
	return filepath.Join(dir, "opencode.db")
}

func exit(n int) *int { return &n }

// expectation is what a real database's session must read as, written
// from the scripts that made it (testdata/real-e2e/SOURCES.md), not from
// the reader's output.
type expectation struct {
	name, id string
	// older: the database holds a later session (read by id only)
	older       bool
	title       string
	requests    []string
	last        string
	files       []handoff.FileTouched
	commands    []handoff.Command // command, exit code, count, status
	lastFailure string
	todos       []handoff.Todo
	compaction  string
	subagents   int
	tokens      handoff.Tokens
	failedEdits map[string]expect.FailedEdit
}

var expectations = []expectation{
	{name: "work", id: "ses_de29c8592ffexxmRHdDAjDEbDi",
		title:    "Write calc.py and test it",
		requests: []string{"Write calc.py with an add function and test it", "Now remove calc.py"},
		last:     "Removed calc.py.",
		// Written, then edited; the rm that deleted it was a command.
		files: []handoff.FileTouched{{Path: "calc.py", Action: "created", Edits: 2}},
		commands: []handoff.Command{
			{Command: "python3 -c 'import calc; assert calc.add(2, 3) == 5'", ExitCode: exit(1), Count: 1, Status: "failed"},
			{Command: "python3 -c 'import calc; print(calc.add(2, 3))'", ExitCode: exit(0), Count: 1, Status: "ok"},
			{Command: "ls does-not-exist", ExitCode: exit(2), Count: 1, Status: "failed"},
			{Command: "rm calc.py", ExitCode: exit(0), Count: 1, Status: "ok"},
		},
		lastFailure: "ls does-not-exist",
		todos:       []handoff.Todo{{Content: "Write calc.py", Status: "completed"}, {Content: "Test calc.py", Status: "completed"}},
		tokens:      handoff.Tokens{Input: 10000, Output: 200}},
	// Compacted before its second request was answered: the summary is
	// no answer of the agent's.
	{name: "compaction", id: "ses_de298ebcaffevgIi054YEJHaiy",
		title:      "Add a greeting file",
		requests:   []string{"add a greeting file", "check the tree"},
		last:       "Wrote hello.txt.",
		files:      []handoff.FileTouched{{Path: "hello.txt", Action: "created", Edits: 1}},
		compaction: "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go.",
		tokens:     handoff.Tokens{Input: 3000, Output: 60}},
	// The subagent's write is folded in, marked as its (issue 45); its
	// prompt is the task's, not a request of the user's, and its answer
	// is not the agent's last word.
	{name: "subagent", id: "ses_de295f165ffezDFm1PSkOTjG1S",
		title:     "Delegate the notes",
		requests:  []string{"Have a subagent write notes.md"},
		last:      "The subagent wrote notes.md.",
		files:     []handoff.FileTouched{{Path: "notes.md", Action: "created", Edits: 1, By: "subagent ses_de295b0c8ffeeE75ven4nPAKBX"}},
		subagents: 1,
		tokens:    handoff.Tokens{Input: 2000, Output: 40}},
	// The suite's TestCaptureAndBrief: the session the plugin captured,
	// then the one it briefed (the briefing went into the system prompt,
	// which OpenCode does not store). The fake model answered the title
	// requests with "ok.".
	{name: "briefed", id: "ses_de280fe8affetpPTQwHb4dudLq", older: true,
		title:    "ok.",
		requests: []string{"add a greeting file and check the tree"},
		last:     "Wrote hello.txt and checked git status.",
		files:    []handoff.FileTouched{{Path: "hello.txt", Action: "created", Edits: 1}},
		commands: []handoff.Command{{Command: "git status --short", ExitCode: exit(0), Count: 1, Status: "ok"}},
		tokens:   handoff.Tokens{Input: 3000, Output: 60}},
	{name: "briefed", id: "ses_de280c118ffeK8Mc3TCJd56BvO",
		title:    "ok.",
		requests: []string{"what next?"},
		last:     "Nothing to do.",
		tokens:   handoff.Tokens{Input: 1000, Output: 20}},
	// The suite's TestMCP: MCP tool calls are neither commands nor edits.
	{name: "mcp", id: "ses_de2801810ffeOlPenYEKdcLKEL",
		title:    "ok.",
		requests: []string{"save a handoff, list them, then resume"},
		last:     "Saved, listed and resumed.",
		tokens:   handoff.Tokens{Input: 4000, Output: 80}},
	// The suite's TestFailedEditAndShellMoves: edit of keep.txt finds no
	// oldString, a failed edit and no change; git mv and rm are commands,
	// their files capture's (from git).
	{name: "fidelity", id: "ses_dda063396ffel9BB39AG3e4auT",
		title:    "ok.",
		requests: []string{"tidy the project"},
		last:     "Fixed keep.txt, renamed old.txt to new.txt and removed gone.txt.",
		commands: []handoff.Command{{Command: "git mv old.txt new.txt", ExitCode: exit(0), Count: 1, Status: "ok"},
			{Command: "rm gone.txt", ExitCode: exit(0), Count: 1, Status: "ok"}},
		failedEdits: map[string]expect.FailedEdit{"keep.txt": {Count: 1}},
		tokens:      handoff.Tokens{Input: 4000, Output: 80}},
}

// TestRealDatabases reads each session OpenCode 1.18.33 wrote and checks
// every field the digest fills against what the scripted model did.
func TestRealDatabases(t *testing.T) {
	for _, e := range expectations {
		t.Run(e.name+"/"+e.id, func(t *testing.T) {
			path := realDB(t, e.name)
			ids := []string{e.id, ""} // by id, and as the latest session
			if e.older {
				ids = ids[:1]
			}
			for _, id := range ids {
				d, err := reader{own}.Read(path, id, transcript.Limits{})
				if err != nil {
					t.Fatal(err)
				}
				checkDigest(t, e, d)
			}
		})
	}
}

func checkDigest(t *testing.T, e expectation, d *transcript.Digest) {
	t.Helper()
	if err := transcript.CheckDigest(d); err != nil {
		t.Errorf("%s: %v", e.name, err)
	}
	s := d.Session
	check := func(field string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s = %#v, want %#v", e.name, field, got, want)
		}
	}
	check("agent", s.Agent, "opencode")
	check("id", s.ID, e.id)
	check("version", s.AgentVersion, "1.18.33")
	check("version source", s.AgentVersionSource, handoff.VersionFromTranscript)
	check("title", d.Title, e.title)
	check("requests", s.Requests, e.requests)
	check("last message", s.LastAgentMessage, e.last)
	check("files", d.Files, e.files)
	var cmds []handoff.Command
	for _, c := range s.Commands {
		c.Output = ""
		cmds = append(cmds, c)
	}
	check("commands", cmds, e.commands)
	lf := ""
	if s.LastFailure != nil {
		lf = s.LastFailure.Command
	}
	check("last failure", lf, e.lastFailure)
	check("todos", s.Todos, e.todos)
	check("compaction", s.CompactionSummary, e.compaction)
	check("subagents", d.Stats.Subagents, e.subagents)
	check("cancelled", d.Cancelled, false)
	check("subagent", d.Subagent, false)
	if s.Tokens == nil {
		t.Errorf("%s: no tokens", e.name)
	} else {
		check("tokens", *s.Tokens, e.tokens)
	}
	check("unknown", d.Stats.Unknown, 0)
	check("malformed", d.Stats.Malformed, 0)
	if s.StartedAt == nil || s.LastActivity == nil || s.LastActivity.Before(*s.StartedAt) {
		t.Errorf("%s: times %v %v", e.name, s.StartedAt, s.LastActivity)
	}
	// The same in the terms every reader's real transcripts are checked
	// in, with OpenCode's own mark: a request still in 'opencode run''s
	// quotes.
	want := expect.Want{Title: e.title, Requests: e.requests, Files: map[string]expect.File{}, NumCommands: len(e.commands),
		OpenFailure: e.lastFailure, Todos: e.todos, Compaction: e.compaction, FailedEdits: e.failedEdits}
	for _, f := range e.files {
		want.Files[f.Path] = expect.File{Action: f.Action, Edits: f.Edits, By: f.By}
	}
	for _, c := range e.commands {
		want.Commands = append(want.Commands, expect.Command{Prefix: c.Command, Exit: c.ExitCode, Count: c.Count, Status: c.Status})
	}
	quoted := func(r string) bool { return len(r) > 1 && r[0] == '"' && r[len(r)-1] == '"' }
	expect.Check(t, expect.Got{Title: d.Title, Session: s, Files: d.Files, Cancelled: d.Cancelled}, want, expect.Marks{Injected: quoted})
}

// TestRealDatabasesCovered: every database under testdata/real-e2e has
// field-by-field expectations, for its session active last too.
func TestRealDatabasesCovered(t *testing.T) {
	latest := map[string]bool{}
	for _, e := range expectations {
		if !e.older {
			latest[e.name+"/opencode.db.gz"] = true
		}
	}
	expect.Covered(t, filepath.Join("testdata", "real-e2e"), "*/opencode.db.gz", latest)
}

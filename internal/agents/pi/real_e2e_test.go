package pi

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// realFile and realCommand are what a digest must say of a file and a
// command.
type realFile struct {
	action string
	edits  int
}

type realCommand struct {
	command string
	exit    *int
	status  string
}

func exit(n int) *int { return &n }

// realExpectation is what the digest of one real transcript must hold,
// written from the script that made it (testdata/real-e2e/SOURCES.md),
// not from the reader's output.
type realExpectation struct {
	file        string
	id          string
	title       string
	requests    []string
	lastMessage string
	files       map[string]realFile
	commands    []realCommand
	lastFailure string
	compaction  string
	cancelled   bool
	tokens      handoff.Tokens
}

const compactionSummary = "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."

var realExpectations = []realExpectation{
	// Two runs of one session (pi -p, then pi -c -p): write, a failing
	// test (exit 1), edit, the test passing, ls failing (exit 2); then a
	// read. pi keeps no todo list.
	{file: "work/2026-11-27T14-26-48-028Z_01a21d66-d45b-7483-89e9-bc95acc19330.jsonl", id: "01a21d66-d45b-7483-89e9-bc95acc19330",
		title:       "Write calc.py with an add function and test it",
		requests:    []string{"Write calc.py with an add function and test it", "Now show calc.py"},
		lastMessage: "calc.py holds add.",
		files:       map[string]realFile{"calc.py": {"created", 2}},
		commands: []realCommand{
			{"python3 -B -c 'import calc; assert calc.add(2, 3) == 5'", exit(1), handoff.StatusFailed},
			{"python3 -B -c 'import calc; print(calc.add(2, 3))'", exit(0), handoff.StatusOK},
			{"ls does-not-exist", exit(2), handoff.StatusFailed},
		},
		lastFailure: "ls does-not-exist",
		tokens:      handoff.Tokens{Input: 8000, Output: 160}},
	// The second run went back to before the first request (a branch
	// summary) and was cancelled while sleep 30 ran: the first branch's
	// calc.py and its command are not the session's.
	{file: "branch/2026-11-27T14-26-01-387Z_01a21d66-1e2a-721b-a576-fc20037b65d1.jsonl", id: "01a21d66-1e2a-721b-a576-fc20037b65d1",
		title:     "Write notes.md instead",
		requests:  []string{"Write notes.md instead"},
		files:     map[string]realFile{"notes.md": {"created", 1}},
		commands:  []realCommand{{"sleep 30", nil, handoff.StatusInterrupted}},
		cancelled: true,
		// Two answers on the path claim tokens; the aborted one none, and
		// the first branch's three are not the session's.
		tokens: handoff.Tokens{Input: 2000, Output: 40}},
	// Compacted before the second request and after it, with the same
	// summary; the continued session was briefed (a custom_message, no
	// request).
	{file: "compaction/2026-11-27T14-48-59-179Z_01a21d7b-242a-709c-a1b8-2c3e714e283c.jsonl", id: "01a21d7b-242a-709c-a1b8-2c3e714e283c",
		title:       "add a greeting file",
		requests:    []string{"add a greeting file", "check the tree"},
		lastMessage: "Checked the tree.",
		files:       map[string]realFile{"hello.txt": {"created", 1}},
		commands:    []realCommand{{"git status --short", exit(0), handoff.StatusOK}},
		compaction:  compactionSummary,
		tokens:      handoff.Tokens{Input: 4000, Output: 80}},
	// Briefed by session-handoff's extension: the briefing is a
	// custom_message beside the request, not one.
	{file: "briefed/2026-11-27T14-48-53-772Z_01a21d7b-0f0b-754d-b4c2-061853909a8e.jsonl", id: "01a21d7b-0f0b-754d-b4c2-061853909a8e",
		title:       "what next?",
		requests:    []string{"what next?"},
		lastMessage: "Nothing to do.",
		tokens:      handoff.Tokens{Input: 1000, Output: 20}},
}

// TestRealTranscripts checks the digest of each transcript pi wrote,
// field by field.
func TestRealTranscripts(t *testing.T) {
	for _, want := range realExpectations {
		t.Run(filepath.Dir(want.file), func(t *testing.T) {
			d, err := transcripts{}.Read(filepath.Join("testdata", "real-e2e", want.file), "", transcript.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			s := d.Session
			if s.Agent != Name || s.ID != want.id || s.AgentVersion != "" || s.AgentVersionSource != handoff.VersionUnknown {
				t.Errorf("agent %q, id %q, version %q (%s)", s.Agent, s.ID, s.AgentVersion, s.AgentVersionSource)
			}
			if d.Title != want.title {
				t.Errorf("title %q, want %q", d.Title, want.title)
			}
			if !slices.Equal(s.Requests, want.requests) {
				t.Errorf("requests %q, want %q", s.Requests, want.requests)
			}
			if s.LastAgentMessage != want.lastMessage {
				t.Errorf("last message %q, want %q", s.LastAgentMessage, want.lastMessage)
			}
			if len(d.Files) != len(want.files) {
				t.Errorf("files %+v, want %v", d.Files, want.files)
			}
			for _, f := range d.Files {
				if w, ok := want.files[f.Path]; !ok || f.Action != w.action || f.Edits != w.edits {
					t.Errorf("file %+v, want %+v", f, w)
				}
			}
			if len(s.Commands) != len(want.commands) {
				t.Fatalf("commands %+v, want %d", s.Commands, len(want.commands))
			}
			for i, c := range s.Commands {
				w := want.commands[i]
				if c.Command != w.command || c.Status != w.status || c.Count != 1 || (c.ExitCode == nil) != (w.exit == nil) || c.ExitCode != nil && *c.ExitCode != *w.exit {
					t.Errorf("command %d: %q exit %v status %s count %d; want %q exit %v status %s", i, c.Command, c.ExitCode, c.Status, c.Count, w.command, w.exit, w.status)
				}
			}
			switch {
			case want.lastFailure == "" && s.LastFailure != nil:
				t.Errorf("last failure %+v, want none", s.LastFailure)
			case want.lastFailure != "" && (s.LastFailure == nil || s.LastFailure.Command != want.lastFailure):
				t.Errorf("last failure %+v, want %q", s.LastFailure, want.lastFailure)
			}
			if len(s.Todos) != 0 || s.Plan != "" {
				t.Errorf("todos %v, plan %q: pi has neither", s.Todos, s.Plan)
			}
			if s.CompactionSummary != want.compaction {
				t.Errorf("compaction %q, want %q", s.CompactionSummary, want.compaction)
			}
			if d.Cancelled != want.cancelled {
				t.Errorf("cancelled %v, want %v", d.Cancelled, want.cancelled)
			}
			if s.Tokens == nil || *s.Tokens != want.tokens {
				t.Errorf("tokens %+v, want %+v", s.Tokens, want.tokens)
			}
			if d.Stats.Unknown+d.Stats.Malformed+d.Stats.TooLong != 0 {
				t.Errorf("stats %+v: pi's own lines are all known", d.Stats)
			}
		})
	}
}

package pi

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

const realDir = "testdata/real-e2e"

// real is what one real transcript holds: the fields every reader's
// expectations share, and pi's session id, last message and tokens.
type real struct {
	want        expect.Want
	id          string
	lastMessage string
	tokens      handoff.Tokens
}

const compactionSummary = "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."

// realExpectations are written from the scripts that made the files
// (testdata/real-e2e/SOURCES.md), not from the reader's output. Every
// answer of the fake model claimed 1,000 input and 20 output tokens.
var realExpectations = map[string]real{
	// Two runs of one session (pi -p, then pi -c -p): write, a failing
	// test (exit 1), edit, the test passing, ls failing (exit 2); then a
	// read. pi keeps no todo list.
	"work/2026-11-27T14-26-48-028Z_01a21d66-d45b-7483-89e9-bc95acc19330.jsonl": {
		want: expect.Want{Title: "Write calc.py with an add function and test it",
			Requests: []string{"Write calc.py with an add function and test it", "Now show calc.py"},
			Files:    map[string]expect.File{"calc.py": {Action: "created", Edits: 2}},
			Commands: []expect.Command{
				{Prefix: "python3 -B -c 'import calc; assert calc.add(2, 3) == 5'", Exit: expect.Exit(1), Count: 1, Status: handoff.StatusFailed},
				{Prefix: "python3 -B -c 'import calc; print(calc.add(2, 3))'", Exit: expect.Exit(0), Count: 1, Status: handoff.StatusOK},
				{Prefix: "ls does-not-exist", Exit: expect.Exit(2), Count: 1, Status: handoff.StatusFailed}},
			NumCommands: 3, OpenFailure: "ls does-not-exist"},
		id: "01a21d66-d45b-7483-89e9-bc95acc19330", lastMessage: "calc.py holds add.", tokens: handoff.Tokens{Input: 8000, Output: 160}},
	// The second run went back to before the first request (a branch
	// summary) and was cancelled while sleep 30 ran: the first branch's
	// calc.py, its command and its three answers are not the session's;
	// the aborted answer is empty and claims no tokens.
	"branch/2026-11-27T14-26-01-387Z_01a21d66-1e2a-721b-a576-fc20037b65d1.jsonl": {
		want: expect.Want{Title: "Write notes.md instead", Requests: []string{"Write notes.md instead"},
			Files:       map[string]expect.File{"notes.md": {Action: "created", Edits: 1}},
			Commands:    []expect.Command{{Prefix: "sleep 30", Count: 1, Status: handoff.StatusInterrupted}},
			NumCommands: 1, Cancelled: true},
		id: "01a21d66-1e2a-721b-a576-fc20037b65d1", tokens: handoff.Tokens{Input: 2000, Output: 40}},
	// Compacted before the second request and after it, with the same
	// summary; the continued session was briefed (a custom_message, no
	// request).
	"compaction/2026-11-27T14-48-59-179Z_01a21d7b-242a-709c-a1b8-2c3e714e283c.jsonl": {
		want: expect.Want{Title: "add a greeting file", Requests: []string{"add a greeting file", "check the tree"},
			Files:       map[string]expect.File{"hello.txt": {Action: "created", Edits: 1}},
			Commands:    []expect.Command{{Prefix: "git status --short", Exit: expect.Exit(0), Count: 1, Status: handoff.StatusOK}},
			NumCommands: 1, Compaction: compactionSummary},
		id: "01a21d7b-242a-709c-a1b8-2c3e714e283c", lastMessage: "Checked the tree.", tokens: handoff.Tokens{Input: 4000, Output: 80}},
	// Format 1, written by pi 0.30.2 (before the tree of 0.31.0): no
	// version, no ids, edit's single oldText; two runs (pi -p, pi -c -p)
	// whose call ids repeat.
	"format1/2026-11-27T15-12-15-783Z_8388295c-2738-4052-ae48-6f21d0659907.jsonl": {
		want: expect.Want{Title: "Write calc.py and run it", Requests: []string{"Write calc.py and run it", "Fix calc.py"},
			Files:       map[string]expect.File{"calc.py": {Action: "created", Edits: 2}},
			Commands:    []expect.Command{{Prefix: "python3 calc.py && ls nope", Exit: expect.Exit(2), Count: 1, Status: handoff.StatusFailed}},
			NumCommands: 1, OpenFailure: "python3 calc.py && ls nope"},
		// The file's name holds another id than its header (0.30.2).
		id: "81aadf02-326d-4888-acb2-4bc34f997bba", lastMessage: "Fixed.", tokens: handoff.Tokens{Input: 5000, Output: 100}},
	// Briefed by session-handoff's extension: the briefing is a
	// custom_message beside the request, not one.
	"briefed/2026-11-27T14-48-53-772Z_01a21d7b-0f0b-754d-b4c2-061853909a8e.jsonl": {
		want: expect.Want{Title: "what next?", Requests: []string{"what next?"}},
		id:   "01a21d7b-0f0b-754d-b4c2-061853909a8e", lastMessage: "Nothing to do.", tokens: handoff.Tokens{Input: 1000, Output: 20}},
}

// briefing is how session-handoff's briefing starts: no request may hold
// it.
func briefing(request string) bool { return strings.Contains(request, "# Session briefing") }

// TestRealTranscripts checks the digest of each transcript pi wrote,
// field by field.
func TestRealTranscripts(t *testing.T) {
	for file, w := range realExpectations {
		t.Run(filepath.Dir(file), func(t *testing.T) {
			d, err := transcripts{}.Read(filepath.Join(realDir, file), "", transcript.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			expect.Check(t, expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}, w.want, expect.Marks{Injected: briefing})
			if err := transcript.CheckDigest(d); err != nil {
				t.Error(err)
			}
			s := d.Session
			// pi records no version of its own.
			if s.Agent != Name || s.ID != w.id || s.AgentVersion != "" || s.AgentVersionSource != handoff.VersionUnknown {
				t.Errorf("agent %q, id %q, version %q (%s)", s.Agent, s.ID, s.AgentVersion, s.AgentVersionSource)
			}
			if s.LastAgentMessage != w.lastMessage {
				t.Errorf("last message %q, want %q", s.LastAgentMessage, w.lastMessage)
			}
			if s.Tokens == nil || *s.Tokens != w.tokens {
				t.Errorf("tokens %+v, want %+v", s.Tokens, w.tokens)
			}
			if s.StartedAt == nil || s.LastActivity == nil || !s.LastActivity.After(*s.StartedAt) {
				t.Errorf("started %v, last activity %v", s.StartedAt, s.LastActivity)
			}
			if d.Stats.Unknown+d.Stats.Malformed+d.Stats.TooLong != 0 {
				t.Errorf("stats %+v: pi's own lines are all known", d.Stats)
			}
		})
	}
}

// Every session kept has its expectation.
func TestRealTranscriptsCovered(t *testing.T) {
	expect.Covered(t, realDir, "*/*.jsonl", realExpectations)
}

package copilot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realDir holds sessions GitHub Copilot CLI 1.0.102 wrote against the
// scripted model (testdata/real-e2e/SOURCES.md).
const realDir = "testdata/real-e2e"

const realWork = realDir + "/work/events.jsonl"

// realExpectations are established from the scripts that made the files,
// not from the reader's output.
var realExpectations = map[string]expect.Want{
	// Two runs of one session (copilot -p, then --continue -p with
	// --deny-tool 'shell(rm)'): create then edit of calc.py; the assert
	// fails (exit 1) and ls fails (exit 2), both with success: true; the
	// rm is denied; the todos come from the sql tool's INSERT and UPDATEs.
	"work/events.jsonl": {
		Title: "Write calc.py with an add function and test it", Requests: []string{"Write calc.py with an add function and test it", "Now remove calc.py"},
		Files:       map[string]expect.File{"calc.py": {Action: "created", Edits: 2}},
		NumCommands: 4, Commands: []expect.Command{
			{Prefix: "python3 -c 'import calc; assert", Exit: expect.Exit(1), Count: 1, Status: "failed"},
			{Prefix: "python3 -c 'import calc; print", Exit: expect.Exit(0), Count: 1, Status: "ok"},
			{Prefix: "ls does-not-exist", Exit: expect.Exit(2), Count: 1, Status: "failed"},
			{Prefix: "rm calc.py", Count: 1, Status: "rejected"}},
		OpenFailure: "ls does-not-exist",
		Todos:       []handoff.Todo{{Content: "Write calc.py", Status: "completed"}, {Content: "Test calc.py", Status: "in_progress"}}},
	// Briefed by the sessionStart hook 'integrate copilot' installs: its
	// additionalContext is in hook.end, not a request.
	"briefed/events.jsonl": {
		Title: "what next?", Requests: []string{"what next?"},
		Files: map[string]expect.File{"main.py": {Action: "created", Edits: 1}}},
	// A session, then 'copilot --continue -p /compact': /compact is no
	// request; the summary is the model's answer to the compaction prompt.
	"compaction/events.jsonl": {
		Title: "say something", Requests: []string{"say something"},
		Compaction: "E2E-SUMMARY: compacted."},
	// TestFailedEditAndShellMoves (internal/e2e): create over keep.txt,
	// which exists, is refused ("Path already exists"): a failed edit,
	// no change; git mv and rm are commands, their files capture's (from
	// git).
	"fidelity/events.jsonl": {
		Title: "tidy the project", Requests: []string{"tidy the project"},
		NumCommands: 2, Commands: []expect.Command{{Prefix: "git mv old.txt new.txt", Exit: expect.Exit(0), Count: 1, Status: "ok"},
			{Prefix: "rm gone.txt", Exit: expect.Exit(0), Count: 1, Status: "ok"}},
		FailedEdits: map[string]expect.FailedEdit{"keep.txt": {Count: 1}}},
	// TestSubagentWork: task (general-purpose, mode sync) runs a subagent
	// whose events carry its agentId: its create of sub.txt is its, its
	// prompt no request.
	"subagent/events.jsonl": {
		Title: "have a subagent write sub.txt", Requests: []string{"have a subagent write sub.txt"},
		Files: map[string]expect.File{"sub.txt": {Action: "created", Edits: 1, By: "subagent fef50db5-05c0-449d-a611-27adaacdbe03"}}},
}

func readFileOf(t testing.TB, file string) *transcript.Digest {
	t.Helper()
	d, err := sessions{}.Read(file, "", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRealTranscripts(t *testing.T) {
	for file, want := range realExpectations {
		t.Run(file, func(t *testing.T) {
			d := readFileOf(t, filepath.Join(realDir, file))
			expect.Check(t, expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}, want, expect.Marks{})
			if err := transcript.CheckDigest(d); err != nil {
				t.Error(err)
			}
		})
	}
}

// Every session kept has its expectation.
func TestRealTranscriptsCovered(t *testing.T) {
	expect.Covered(t, realDir, "*/*.jsonl", realExpectations)
}

// The fields the expectations do not look at, from the same real
// session: its id, version, directory, branch, times, the last message
// and the tokens of its nine model calls (the fake model reported 1000
// in, 20 out each; the second run's call ids repeat the first's).
func TestRealFields(t *testing.T) {
	d := readFileOf(t, realWork)
	s := d.Session
	if s.Agent != Name || s.ID != "f0e3e458-b6de-4a27-a1c7-7a350464af86" || s.AgentVersion != "1.0.102" || s.AgentVersionSource != handoff.VersionFromTranscript {
		t.Errorf("agent %q id %q version %q (%s)", s.Agent, s.ID, s.AgentVersion, s.AgentVersionSource)
	}
	if d.CWD != "/tmp/h36/proj" || d.GitBranch != "main" {
		t.Errorf("cwd %q branch %q", d.CWD, d.GitBranch)
	}
	if want := time.Date(2026, 11, 27, 12, 13, 48, 586e6, time.UTC); s.StartedAt == nil || !s.StartedAt.Equal(want) {
		t.Errorf("started %v, want %v", s.StartedAt, want)
	}
	if s.LastActivity == nil || !s.LastActivity.After(*s.StartedAt) {
		t.Errorf("last activity %v", s.LastActivity)
	}
	if s.LastAgentMessage != "I could not remove calc.py: the rm command was denied." {
		t.Errorf("last message %q", s.LastAgentMessage)
	}
	if s.Tokens == nil || *s.Tokens != (handoff.Tokens{Input: 9000, Output: 180}) {
		t.Errorf("tokens %+v", s.Tokens)
	}
	if d.Stats.Unknown != 0 || d.Stats.Malformed != 0 || d.Cancelled {
		t.Errorf("stats %+v, cancelled %v", d.Stats, d.Cancelled)
	}
	if got, ok := (sessions{}).Detect(fileBytes(t, realWork)); !ok || got.Agent != Name {
		t.Errorf("Detect: %+v %v", got, ok)
	}
	// Other agents' lines are not taken for Copilot's.
	for _, other := range []string{
		`{"type":"user","uuid":"u","sessionId":"s","message":{"content":"x"}}`,
		`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`,
		`{"type":"turn.started","id":"1","data":{}}`,
	} {
		if _, ok := (sessions{}).Detect([]byte(other)); ok {
			t.Errorf("%s taken for a Copilot log", other)
		}
	}
}

func fileBytes(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Discovery finds the session under <session-state>/<id>/, with the
// title the user gave it in workspace.yaml.
func TestFind(t *testing.T) {
	root := filepath.Join(t.TempDir(), "session-state")
	dir := filepath.Join(root, "f0e3e458-b6de-4a27-a1c7-7a350464af86")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, eventsFile), fileBytes(t, realWork), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err := sessions{}.Find([]string{root, filepath.Join(root, "missing")})
	if err != nil || len(ss) != 1 {
		t.Fatalf("Find = %+v, %v", ss, err)
	}
	s := ss[0]
	if s.ID != "f0e3e458-b6de-4a27-a1c7-7a350464af86" || s.CWD != "/tmp/h36/proj" || s.AgentVersion != "1.0.102" ||
		s.Title != "Write calc.py with an add function and test it" || s.Started.IsZero() {
		t.Errorf("session %+v", s)
	}
	ws := "id: x\nname: 'Fix the ''calc'' module'\nuser_named: true\n"
	if err := os.WriteFile(filepath.Join(dir, "workspace.yaml"), []byte(ws), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, _ = sessions{}.Find([]string{root})
	d := readFileOf(t, filepath.Join(dir, eventsFile))
	if len(ss) != 1 || ss[0].Title != "Fix the 'calc' module" || d.Title != "Fix the 'calc' module" {
		t.Errorf("named session: listed %+v, read %q", ss, d.Title)
	}
}

func TestTodoSQL(t *testing.T) {
	for q, want := range map[string][]task{
		"INSERT INTO todos (id, title, description) VALUES ('a', 'Write it', 'd'), ('b', 'Test it', 'e');": {{"a", "Write it", "pending"}, {"b", "Test it", "pending"}},
		"insert into todos (id,title,status) values ('x','It''s done','done')":                             {{"x", "It's done", "done"}},
		"UPDATE todos SET status = 'in_progress' WHERE id = 'a'":                                           {{"a", "", "in_progress"}},
		"UPDATE todos SET status='done' WHERE id='a'; UPDATE todos SET status='done' WHERE id='b';":        {{"a", "", "done"}, {"b", "", "done"}},
		// Not the two forms: nothing.
		"SELECT * FROM todos":                                     nil,
		"INSERT INTO notes (id, title) VALUES ('a', 'b')":         nil,
		"UPDATE todos SET status = 'done' WHERE status = 'x'":     nil,
		"UPDATE todos SET status = 'done' WHERE id IN ('a', 'b')": nil,
		"INSERT INTO todos (id, title) VALUES ('a', upper('b'))":  nil,
		"INSERT INTO todos (id, title) VALUES ('a')":              nil,
		"INSERT INTO todos (id, title) VALUES ('a', 'unclosed)":   nil,
		"INSERT INTO todos (id, title) VALUES (1, 2)":             nil,
		"": nil,
	} {
		if got := todoSQL(q); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}

// Hostile and odd lines: wrong types read as absent, a shell exit code
// wins over success, a denied call is rejected, a failed sql call changes
// no todo, an abort marks the turn cancelled, other families are unknown.
func TestHostile(t *testing.T) {
	in := expect.Lines(
		`{"type":"session.start","id":"1","data":{"sessionId":["x"],"copilotVersion":7,"context":"nope"}}`,
		`{"type":"user.message","id":"2","data":{"content":"do it"}}`,
		`{"type":"assistant.message","id":"3","data":{"content":"","toolRequests":[{"toolCallId":"c1","name":"bash","arguments":{"command":"make"}},{"toolCallId":"c2","name":"sql","arguments":{"query":"INSERT INTO todos (id, title) VALUES ('t', 'T')"}},"junk",{"toolCallId":"c3","name":"edit","arguments":{"path":7}}]}}`,
		`{"type":"tool.execution_complete","id":"4","data":{"toolCallId":"c1","success":true,"shellExecution":{"exitCode":2},"result":{"content":"boom"}}}`,
		`{"type":"tool.execution_complete","id":"5","data":{"toolCallId":"c2","success":false,"error":{"message":"no"}}}`,
		`{"type":"tool.execution_complete","id":"6","data":{"toolCallId":"c9","success":false,"error":{"code":"denied","message":"denied"}}}`,
		`{"type":"abort","id":"7","data":{"reason":"user_initiated"}}`,
		`{"type":"future.thing","id":"8","data":{}}`,
		`not json`,
	)
	d, err := read(strings.NewReader(in), transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Session
	if s.ID != "" || s.AgentVersion != "" || d.CWD != "" {
		t.Errorf("wrong types read: id %q version %q cwd %q", s.ID, s.AgentVersion, d.CWD)
	}
	if len(s.Commands) != 1 || s.Commands[0].Status != handoff.StatusFailed || s.LastFailure == nil || s.LastFailure.Output != "boom" {
		t.Errorf("commands %+v, last failure %+v", s.Commands, s.LastFailure)
	}
	if len(s.Todos) != 0 {
		t.Errorf("a failed sql call made todos %+v", s.Todos)
	}
	if !d.Cancelled || d.Stats.Unknown != 1 || d.Stats.Malformed != 1 {
		t.Errorf("cancelled %v, stats %+v", d.Cancelled, d.Stats)
	}
	if err := transcript.CheckDigest(d); err != nil {
		t.Error(err)
	}
}

// FuzzRead: whatever the bytes, the reader gives a digest that keeps
// every bound, or says there was no record.
func FuzzRead(f *testing.F) {
	f.Add(fileBytes(f, realWork))
	f.Add([]byte(expect.Lines(`{"type":"assistant.message","id":"3","data":{"toolRequests":[{"toolCallId":"c","name":"sql","arguments":{"query":"UPDATE todos SET status = 'done' WHERE id = 'a'"}}]}}`,
		`{"type":"tool.execution_complete","id":"4","data":{"toolCallId":"c","success":true}}`)))
	for _, name := range []string{"wrong_types.jsonl", "huge_numbers.jsonl", "deep_nesting.jsonl", "invalid_utf8.jsonl"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "transcript", "testdata", "hostile", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := read(bytes.NewReader(data), transcript.Limits{MaxLine: 64 << 10, MaxFile: 1 << 20})
		if err != nil {
			if !errors.Is(err, transcript.ErrNoRecords) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		if err := transcript.CheckDigest(d); err != nil {
			t.Fatalf("bad digest: %v", err)
		}
	})
}

func FuzzTodoSQL(f *testing.F) {
	f.Add("INSERT INTO todos (id, title, description) VALUES ('a', 'A', 'd'), ('b', 'B', 'e');")
	f.Add("UPDATE todos SET status = 'done' WHERE id = 'a'")
	f.Fuzz(func(t *testing.T, q string) {
		for _, e := range todoSQL(q) {
			if e.id == "" || e.status == "" {
				t.Fatalf("%q: %+v", q, e)
			}
		}
	})
}

// The session-end hook's wait: the log must have grown and end with the
// shutdown; the session's file is found by its id, which must be a name.
func TestEnded(t *testing.T) {
	root := filepath.Join(t.TempDir(), "session-state")
	dir := filepath.Join(root, "s1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, eventsFile)
	start := `{"type":"session.start","data":{},"id":"1"}` + "\n"
	if err := os.WriteFile(file, []byte(start), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := EventsFile("s1", []string{root}); got != file {
		t.Fatalf("EventsFile = %q, want %s", got, file)
	}
	for _, bad := range []string{"", "..", "../s1", "s1/x", "none"} {
		if got := EventsFile(bad, []string{root}); got != "" {
			t.Errorf("EventsFile(%q) = %q", bad, got)
		}
	}
	size := int64(len(start))
	if Ended(file, size) {
		t.Error("ended before anything was written")
	}
	all := start + `{"type":"assistant.message","data":{},"id":"2"}` + "\n" + `{"type":"session.shutdown","data":{},"id":"3"}` + "\n"
	if err := os.WriteFile(file, []byte(all), 0o644); err != nil {
		t.Fatal(err)
	}
	if !Ended(file, size) {
		t.Error("not ended after the shutdown was written")
	}
	if Ended(file, int64(len(all))) {
		t.Error("an earlier run's shutdown taken for this run's")
	}
}

package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

const copilotReal = "testdata/real-e2e/copilot/work/events.jsonl"

// The fields checkReal does not look at, from the same real session: its
// id, version, directory, branch, times, the last message and the tokens
// of its nine model calls (the fake model reported 1000 in, 20 out each;
// the second run's call ids repeat the first's).
func TestCopilotRealFields(t *testing.T) {
	d, err := ReadTranscript(Copilot, copilotReal, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Session
	if s.Agent != "copilot" || s.ID != "f0e3e458-b6de-4a27-a1c7-7a350464af86" || s.AgentVersion != "1.0.102" || s.AgentVersionSource != handoff.VersionFromTranscript {
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
	if got := Detect(copilotFile(t, copilotReal)); got.Agent != Copilot {
		t.Errorf("Detect: %+v", got)
	}
}

func copilotFile(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Discovery finds the session under $COPILOT_HOME/session-state/<id>/,
// with the title the user gave it in workspace.yaml.
func TestCopilotDiscovery(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "cop", "session-state", "f0e3e458-b6de-4a27-a1c7-7a350464af86")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), copilotFile(t, copilotReal), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		return map[string]string{"HOME": home, "COPILOT_HOME": filepath.Join(home, "cop")}[k]
	}
	ss, err := findSessions(Copilot, env)
	if err != nil || len(ss) != 1 {
		t.Fatalf("FindSessions = %+v, %v", ss, err)
	}
	s := ss[0]
	if s.ID != "f0e3e458-b6de-4a27-a1c7-7a350464af86" || s.CWD != "/tmp/h36/proj" || s.AgentVersion != "1.0.102" ||
		s.Title != "Write calc.py with an add function and test it" {
		t.Errorf("session %+v", s)
	}
	ws := "id: x\nname: 'Fix the ''calc'' module'\nuser_named: true\n"
	if err := os.WriteFile(filepath.Join(dir, "workspace.yaml"), []byte(ws), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, _ = findSessions(Copilot, env)
	d, err := ReadTranscript(Copilot, filepath.Join(dir, "events.jsonl"), Limits{})
	if err != nil || len(ss) != 1 || ss[0].Title != "Fix the 'calc' module" || d.Title != "Fix the 'calc' module" {
		t.Errorf("named session: listed %+v, read %q, %v", ss, d.Title, err)
	}
}

func TestCopilotTodoSQL(t *testing.T) {
	type todo struct{ id, text, status string }
	for q, want := range map[string][]todo{
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
		var got []todo
		for _, e := range copilotTodoSQL(q) {
			if e.kind != evTask {
				t.Fatalf("%q: event of kind %d", q, e.kind)
			}
			got = append(got, todo{e.id, e.text, e.status})
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}

// Hostile and odd lines: wrong types read as absent, a shell exit code
// wins over success, a denied call is rejected, a failed sql call changes
// no todo, an abort marks the turn cancelled, other families are unknown.
func TestCopilotHostile(t *testing.T) {
	in := lines(
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
	d, err := ReadCopilot(strings.NewReader(in), Limits{})
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
	if err := checkDigest(d); err != nil {
		t.Error(err)
	}
}

func FuzzCopilot(f *testing.F) {
	f.Add(copilotFile(f, copilotReal))
	f.Add([]byte(lines(`{"type":"assistant.message","id":"3","data":{"toolRequests":[{"toolCallId":"c","name":"sql","arguments":{"query":"UPDATE todos SET status = 'done' WHERE id = 'a'"}}]}}`,
		`{"type":"tool.execution_complete","id":"4","data":{"toolCallId":"c","success":true}}`)))
	fuzzReader(f, ReadCopilot)
}

func FuzzCopilotTodoSQL(f *testing.F) {
	f.Add("INSERT INTO todos (id, title, description) VALUES ('a', 'A', 'd'), ('b', 'B', 'e');")
	f.Add("UPDATE todos SET status = 'done' WHERE id = 'a'")
	f.Fuzz(func(t *testing.T, q string) {
		for _, e := range copilotTodoSQL(q) {
			if e.kind != evTask || e.id == "" || e.status == "" {
				t.Fatalf("%q: %+v", q, e)
			}
		}
	})
}

// The session-end hook's wait: the log must have grown and end with the
// shutdown; the session's file is found by its id, which must be a name.
func TestCopilotEnded(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	dir := filepath.Join(home, ".copilot", "session-state", "s1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "events.jsonl")
	start := `{"type":"session.start","data":{},"id":"1"}` + "\n"
	if err := os.WriteFile(file, []byte(start), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := CopilotEventsFile("s1", rootsOf(Copilot, env)); got != file {
		t.Fatalf("CopilotEventsFile = %q, want %s", got, file)
	}
	for _, bad := range []string{"", "..", "../s1", "s1/x", "none"} {
		if got := CopilotEventsFile(bad, rootsOf(Copilot, env)); got != "" {
			t.Errorf("CopilotEventsFile(%q) = %q", bad, got)
		}
	}
	size := int64(len(start))
	if CopilotEnded(file, size) {
		t.Error("ended before anything was written")
	}
	all := start + `{"type":"assistant.message","data":{},"id":"2"}` + "\n" + `{"type":"session.shutdown","data":{},"id":"3"}` + "\n"
	if err := os.WriteFile(file, []byte(all), 0o644); err != nil {
		t.Fatal(err)
	}
	if !CopilotEnded(file, size) {
		t.Error("not ended after the shutdown was written")
	}
	if CopilotEnded(file, int64(len(all))) {
		t.Error("an earlier run's shutdown taken for this run's")
	}
}

package native

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// fixtureSession is the session of a real-e2e fixture of agent's folder
// (internal/agents/<folder>/testdata/real-e2e/<dir>): a JSON Lines file,
// a Cline messages file, or a SQLite database (gzipped, with its WAL),
// decompressed into a temporary directory.
func fixtureSession(t *testing.T, name, folder, dir string) capture.SessionInfo {
	t.Helper()
	root := filepath.Join("..", "agents", folder, "testdata", "real-e2e", dir)
	for _, db := range []string{"opencode.db", "kilo.db", "crush.db"} {
		if files, _ := filepath.Glob(filepath.Join(root, db+".gz")); len(files) == 1 {
			to := t.TempDir()
			names := []string{db}
			if wal, _ := filepath.Glob(filepath.Join(root, db+"-wal.gz")); len(wal) == 1 {
				names = append(names, db+"-wal")
			}
			expect.Gunzip(t, root, to, names...)
			return capture.SessionInfo{Agent: capture.Agent(name), Path: filepath.Join(to, db)}
		}
	}
	for _, pat := range []string{"*.messages.json", "events.jsonl", "*.jsonl"} {
		files, _ := filepath.Glob(filepath.Join(root, pat))
		for _, f := range files {
			if filepath.Base(f)[:min(6, len(filepath.Base(f)))] != "agent_" {
				return capture.SessionInfo{Agent: capture.Agent(name), Path: f}
			}
		}
	}
	t.Fatalf("no fixture in %s", root)
	return capture.SessionInfo{}
}

// sourceCase is a real session of a source agent and the markers its
// conversation must carry into every target: a user turn, an assistant
// turn, a tool call's command and its output.
type sourceCase struct{ name, folder, dir, user, assistant, command, output string }

var sourceCases = []sourceCase{
	{"copilot", "copilot", "work", "Write calc.py with an add function and test it", "calc.py now adds two numbers; the test passes.", "ls does-not-exist", "No such file or directory"},
	{"opencode", "opencode", "work", "Write calc.py with an add function and test it", "Removed calc.py.", "python3 -c 'import calc; print(calc.add(2, 3))'", "5\n"},
	{"kilo", "kilo", "work", "Write calc.py with an add function and test it", "Removed calc.py.", "python3 -B -c 'import calc; print(calc.add(2, 3))'", "5\n"},
	{"cline", "cline", "work", "Write calc.py with an add function and test it", "calc.py now adds two numbers; the test passes.", "python3 -c 'import calc; print(calc.add(2, 3))'", "5\n"},
	{"crush", "crush", "work", "Write calc.py with an add function and test it", "calc.py holds add.", "ls does-not-exist", "No such file or directory"},
}

// markers says which of tc's markers conv lacks.
func (tc sourceCase) markers(conv *Conversation) []string {
	var user, assistant, command, output bool
	for _, tu := range conv.Turns {
		switch tu.Kind {
		case User:
			user = user || strings.Contains(tu.Text, tc.user)
		case Assistant:
			assistant = assistant || strings.Contains(tu.Text, tc.assistant)
			// A target that shows no call of a tool it lacks keeps the
			// call as the assistant's words about it.
			output = output || strings.Contains(tu.Text, tc.output)
		case Call:
			command = command || strings.Contains(tu.Text, tc.command)
			output = output || strings.Contains(tu.Output, tc.output)
		}
	}
	var lack []string
	for _, m := range []struct {
		name string
		ok   bool
	}{{"user turn", user}, {"assistant turn", assistant}, {"command", command}, {"output", output}} {
		if !m.ok {
			lack = append(lack, m.name)
		}
	}
	return lack
}

// TestEverySourceCarriesOver: a real session of each agent the table
// reads beyond the first five (Copilot CLI, OpenCode, Kilo, Cline,
// Crush) tells its reader's observer its turns, and written for each
// target, reads back through the target's reader with a user turn, an
// assistant turn, a command and its output of the source.
func TestEverySourceCarriesOver(t *testing.T) {
	for _, tc := range sourceCases {
		c, err := Read(fixtureSession(t, tc.name, tc.folder, tc.dir), transcript.Limits{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if lack := tc.markers(c); len(lack) > 0 {
			t.Fatalf("%s: read without its %s: %+v", tc.name, strings.Join(lack, ", "), c.Turns)
		}
		for _, w := range Writers() {
			t.Run(tc.name+"/"+w.Name(), func(t *testing.T) {
				p, err := w.Plan(c, Options{Home: t.TempDir(), CWD: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				if err := Write(p); err != nil {
					t.Fatal(err)
				}
				got := &Conversation{}
				calls := map[string]int{}
				lim := transcript.Limits{Observe: func(e transcript.Event) { add(got, e, calls, 0) }}
				if _, err := capture.ReadTranscript(capture.Agent(p.Target), p.Path, lim); err != nil {
					t.Fatal(err)
				}
				if lack := tc.markers(got); len(lack) > 0 {
					t.Fatalf("read back without the source's %s", strings.Join(lack, ", "))
				}
			})
		}
	}
}

// TestObservingLeavesTheDigest: a reader told to keep the outputs of
// calls that succeeded for an observer gives the same digest as without.
func TestObservingLeavesTheDigest(t *testing.T) {
	for _, tc := range sourceCases {
		s := fixtureSession(t, tc.name, tc.folder, tc.dir)
		plain, err := capture.ReadSession(s, transcript.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		observed, err := capture.ReadSession(s, transcript.Limits{Observe: func(transcript.Event) { seen++ }})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(plain)
		b, _ := json.Marshal(observed)
		if seen == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: %d events; digest observed differs:\n%s\n%s", tc.name, seen, a, b)
		}
	}
}

// TestReadKeepsRepeatedCallIDsApart: Copilot CLI numbers its tool calls
// afresh each turn, so an id comes back; each result stays with its own
// call, and a later call is not folded into an ended one.
func TestReadKeepsRepeatedCallIDsApart(t *testing.T) {
	c, err := Read(fixtureSession(t, "copilot", "copilot", "work"), transcript.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, tu := range c.Turns {
		switch {
		case tu.Kind == User:
			order = append(order, "user")
		case tu.Kind == Call && strings.HasPrefix(tu.Text, "python3 -c 'import calc; assert"):
			if !strings.Contains(tu.Output, "Traceback") {
				t.Errorf("the assert's output is another call's: %q", tu.Output)
			}
		case tu.Kind == Call && tu.Text == "rm calc.py":
			order = append(order, "rm")
			if tu.Status != "rejected" {
				t.Errorf("rm's status %q", tu.Status)
			}
		}
	}
	if strings.Join(order, " ") != "user user rm" {
		t.Errorf("order %v: the second turn's rm was folded into the first turn's call of its id", order)
	}
}

// TestReadLeavesCrushSubagentsOut: Crush's reader folds a subagent's
// tool calls into the session's digest, but the subagent's view of
// README.md is not the session's conversation.
func TestReadLeavesCrushSubagentsOut(t *testing.T) {
	c, err := Read(fixtureSession(t, "crush", "crush", "subagent"), transcript.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tu := range c.Turns {
		if strings.Contains(strings.Join(tu.Files, " "), "README.md") {
			t.Fatalf("a subagent's call in the conversation: %+v", tu)
		}
	}
}

// TestReadKeepsATaskList: Copilot CLI keeps its todos in a table its sql
// tool changes task by task (transcript.Builder.Task); the observer is
// told the list as it stands after each change, so the conversation
// carries the session's last todo list.
func TestReadKeepsATaskList(t *testing.T) {
	c, err := Read(fixtureSession(t, "copilot", "copilot", "work"), transcript.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, td := range c.Todos {
		got = append(got, td.Content+"="+td.Status)
	}
	if strings.Join(got, " ") != "Write calc.py=completed Test calc.py=in_progress" {
		t.Errorf("todos %v", got)
	}
}

// TestReadKeepsToolsAndArguments: a call that ran no shell command keeps
// its tool's name and arguments and its result, and a target that shows
// its model only shell commands says them in the assistant's words.
func TestReadKeepsToolsAndArguments(t *testing.T) {
	for _, tc := range []struct{ name, tool, args, output string }{
		{"copilot", "sql", "INSERT INTO todos", "2 row(s) inserted"},
		{"opencode", "todowrite", `"content":"Write calc.py"`, "Write calc.py"},
		{"cline", "submit_and_exit", `"summary"`, "Submission recorded"},
		{"crush", "view", `"file_path"`, "def add(a, b)"},
	} {
		c, err := Read(fixtureSession(t, tc.name, tc.name, "work"), transcript.Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tu := range c.Turns {
			found = found || tu.Kind == Call && tu.Tool == tc.tool && strings.Contains(tu.Arguments, tc.args) && strings.Contains(tu.Output, tc.output)
		}
		if !found {
			t.Errorf("%s: no %s call with its arguments and result", tc.name, tc.tool)
			continue
		}
		p, err := writer(t, agents.ClaudeCode).Plan(c, Options{Home: t.TempDir(), CWD: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(p); err != nil {
			t.Fatal(err)
		}
		said := false
		for _, tu := range p.Want.Turns {
			said = said || tu.Kind == Assistant && strings.Contains(tu.Text, ": "+tc.tool) && strings.Contains(tu.Text, "arguments: ")
		}
		if !said {
			t.Errorf("%s: the %s call is not in the assistant's words", tc.name, tc.tool)
		}
	}
}

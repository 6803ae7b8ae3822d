package crush

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realDB decompresses testdata/real-e2e/NAME/crush.db.gz (a database
// Crush wrote) into a project's .crush in a temporary directory and
// returns its path.
func realDB(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "project", ".crush")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(filepath.Join("testdata", "real-e2e", name, "crush.db.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	z, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, dbName))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, z); err != nil {
		t.Fatal(err)
	}
	return out.Name()
}

func exit(n int) *int { return &n }

// expectation is what a real database's session must read as, written
// from the scripts that made it (testdata/real-e2e/SOURCES.md), not from
// the reader's output. The files are named by the paths the model gave
// (absolute, in the suite's project, which is not the directory the
// test reads the database in).
type expectation struct {
	name, id string
	// older: the database holds a later session (read by id only)
	older       bool
	project     string // the suite's project directory
	title       string
	requests    []string
	last        string
	files       []handoff.FileTouched
	commands    []handoff.Command // command, exit code, count, status
	lastFailure string
	todos       []handoff.Todo
	compaction  string
	subagents   int
}

var expectations = []expectation{
	// Two turns, the second continuing the session (run --continue).
	{name: "work", id: "4372de9c-a6a7-4110-8730-2c84aff8d6fe", project: "/tmp/TestCrushWorkcrush3122398475/001/project",
		title:    "Write calc.py and test it",
		requests: []string{"Write calc.py with an add function and test it", "Now show calc.py"},
		last:     "calc.py holds add.",
		// Written, then edited; viewed in the second turn.
		files: []handoff.FileTouched{{Path: "calc.py", Action: "created", Edits: 2}},
		commands: []handoff.Command{
			{Command: "python3 -B -c 'import calc; assert calc.add(2, 3) == 5'", ExitCode: exit(1), Count: 1, Status: "failed"},
			{Command: "python3 -B -c 'import calc; print(calc.add(2, 3))'", ExitCode: exit(0), Count: 1, Status: "ok"},
			{Command: "ls does-not-exist", ExitCode: exit(2), Count: 1, Status: "failed"},
		},
		lastFailure: "ls does-not-exist",
		todos:       []handoff.Todo{{Content: "Write calc.py", Status: "completed"}, {Content: "Test calc.py", Status: "completed"}}},
	// Summarised by Crush itself in the second turn, its context window
	// full: the request it sent again after the summary is not the
	// user's, and the summary is no answer of the agent's.
	{name: "compaction", id: "f001f8a6-5650-4cae-9a82-8986b4a7141d", project: "/tmp/TestCrushCompactioncrush4228822111/001/project",
		title:      "Add a greeting file",
		requests:   []string{"add a greeting file", "check the tree"},
		last:       "Checked the tree.",
		files:      []handoff.FileTouched{{Path: "hello.txt", Action: "created", Edits: 1}},
		commands:   []handoff.Command{{Command: "git status --short", ExitCode: exit(0), Count: 1, Status: "ok"}},
		compaction: "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."},
	// MCP tool calls are neither commands nor edits.
	{name: "mcp", id: "8696d267-4114-4186-a853-da907aa7ba1b", project: "/tmp/TestCrushMCPcrush1/001/project",
		title:    "Save a handoff",
		requests: []string{"save a handoff, then list them"},
		last:     "Saved and listed."},
	// The subagent's prompt is the agent tool's, not a request of the
	// user's, and its answer is not the agent's last word.
	{name: "subagent", id: "da71a047-996a-4814-a400-181c414c31cf", project: "/tmp/TestCrushSubagentcrush3647023351/001/project",
		title:     "Delegate the reading",
		requests:  []string{"Have a subagent read README.md"},
		last:      "The subagent read README.md.",
		subagents: 1},
	// TestCrushBriefed: the session captured, then the one briefed
	// through CRUSH.local.md (the briefing went into the system prompt,
	// which Crush does not store). Both ended within one second: the
	// later one is the one created last.
	{name: "briefed", id: "39f843ed-67cb-457c-9785-2b43d1136f4c", older: true, project: "/tmp/TestCrushBriefedcrush3201965578/001/project",
		title:    "Add a greeting file",
		requests: []string{"add a greeting file"},
		last:     "Wrote hello.txt.",
		files:    []handoff.FileTouched{{Path: "hello.txt", Action: "created", Edits: 1}}},
	{name: "briefed", id: "663534ef-49cf-4071-8085-7c520e56a6ba",
		title:    "What next",
		requests: []string{"what next?"},
		last:     "Next: main.go."},
}

// TestRealDatabases reads each session Crush v0.90.0 wrote and checks
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
				d, err := reader{}.Read(path, id, transcript.Limits{})
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
	var files []handoff.FileTouched
	for _, f := range e.files {
		f.Path = e.project + "/" + f.Path
		files = append(files, f)
	}
	check("agent", s.Agent, "crush")
	check("id", s.ID, e.id)
	// Crush records no version of its own.
	check("version", s.AgentVersion, "")
	check("title", d.Title, e.title)
	check("requests", s.Requests, e.requests)
	check("last message", s.LastAgentMessage, e.last)
	check("files", d.Files, files)
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
	check("tokens", s.Tokens, (*handoff.Tokens)(nil))
	check("unknown", d.Stats.Unknown, 0)
	check("malformed", d.Stats.Malformed, 0)
	check("too long", d.Stats.TooLong, 0)
	if s.StartedAt == nil || s.LastActivity == nil || s.LastActivity.Before(*s.StartedAt) || s.StartedAt.Year() != 2026 {
		t.Errorf("%s: times %v %v", e.name, s.StartedAt, s.LastActivity)
	}
	want := expect.Want{Title: e.title, Requests: e.requests, Files: map[string]expect.File{}, NumCommands: len(e.commands),
		OpenFailure: e.lastFailure, Todos: e.todos, Compaction: e.compaction}
	for _, f := range files {
		want.Files[f.Path] = expect.File{Action: f.Action, Edits: f.Edits}
	}
	for _, c := range e.commands {
		want.Commands = append(want.Commands, expect.Command{Prefix: c.Command, Exit: c.ExitCode, Count: c.Count, Status: c.Status})
	}
	expect.Check(t, expect.Got{Title: d.Title, Session: s, Files: d.Files, Cancelled: d.Cancelled}, want, expect.Marks{})
}

// TestRealDatabasesCovered: every database under testdata/real-e2e has
// field-by-field expectations.
func TestRealDatabasesCovered(t *testing.T) {
	latest := map[string]bool{}
	for _, e := range expectations {
		if !e.older {
			latest[e.name+"/crush.db.gz"] = true
		}
	}
	expect.Covered(t, filepath.Join("testdata", "real-e2e"), "*/crush.db.gz", latest)
}

// TestFind: the sessions of the databases projects.json lists, in the
// global data directory moved by XDG_DATA_HOME, each with its project as
// its working directory; a subagent's session is not listed.
func TestFind(t *testing.T) {
	data := t.TempDir()
	db := realDB(t, "subagent")
	project := filepath.Dir(filepath.Dir(db))
	list := `{"projects": [{"path": "` + project + `", "data_dir": "` + filepath.Dir(db) + `"},
  {"path": "/gone", "data_dir": "/gone/.crush"}, {"path": "rel", "data_dir": "rel/.crush"}]}`
	if err := os.MkdirAll(filepath.Join(data, "crush"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "crush", "projects.json"), []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"XDG_DATA_HOME": data}
	got, err := reader{}.Find(Agent().SessionRoots("/nonexistent-home", func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "da71a047-996a-4814-a400-181c414c31cf" || got[0].Title != "Delegate the reading" ||
		got[0].Path != db || got[0].CWD != project || got[0].Started.Year() != 2026 {
		t.Fatalf("Find: %+v", got)
	}
	// A projects.json that is no JSON hides nothing else: the data
	// directory's own crush.db, when there is one, is still found.
	if err := os.WriteFile(filepath.Join(data, "crush", "projects.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := (reader{}).Find([]string{filepath.Join(data, "crush"), filepath.Dir(db)}); err != nil || len(got) != 1 {
		t.Fatalf("Find with a broken projects.json: %+v, %v", got, err)
	}
}

// TestDetect: Crush's database is recognised by its schema; OpenCode's
// is not taken for it.
func TestDetect(t *testing.T) {
	head := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b[:min(len(b), transcript.DetectBytes)]
	}
	if d, ok := (reader{}).Detect(head(realDB(t, "work"))); !ok || d.Agent != Name {
		t.Errorf("Crush's database: %+v %v", d, ok)
	}
	if _, ok := (reader{}).Detect([]byte("SQLite format 3\x00" + strings.Repeat("\x00", 200) + "CREATE TABLE `session` (`id` text)")); ok {
		t.Error("an OpenCode schema taken for Crush's")
	}
	if _, ok := (reader{}).Detect([]byte(`{"type":"session.start"}`)); ok {
		t.Error("a JSON line detected")
	}
}

// TestFindOrder: of two sessions active in the same second, the one
// written last is listed first, the one capture --from crush takes.
func TestFindOrder(t *testing.T) {
	got, err := reader{}.Find([]string{filepath.Dir(realDB(t, "briefed"))})
	if err != nil || len(got) != 2 || got[0].ID != "663534ef-49cf-4071-8085-7c520e56a6ba" || !got[0].LastActivity.Equal(got[1].LastActivity) {
		t.Fatalf("Find: %+v, %v", got, err)
	}
}

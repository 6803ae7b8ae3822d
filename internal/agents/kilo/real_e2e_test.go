package kilo

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents/opencode"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realDB decompresses testdata/real-e2e/NAME (a database Kilo wrote,
// with its WAL) into a temporary directory laid out as Kilo's data
// directory, and returns the database's path.
func realDB(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kilo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	expect.Gunzip(t, filepath.Join("testdata", "real-e2e", name), dir, "kilo.db", "kilo.db-wal")
	return filepath.Join(dir, "kilo.db")
}

// expectation is what a session of a real database must read as,
// written from the script that made it (testdata/real-e2e/SOURCES.md;
// internal/e2e/kilo_test.go), not from the reader's output.
type expectation struct {
	name string
	// nth is the session's place among the database's, oldest first;
	// the last is also read as the database's latest.
	nth, of int
	want    expect.Want
	last    string
	tokens  handoff.Tokens
}

// Kilo names a session with a small model of its own gateway,
// unreachable offline: each keeps its default title ("New session -
// …"), which is none, and the title is the first request.
var expectations = []expectation{
	{name: "work", nth: 0, of: 1, last: "Removed calc.py.",
		// Ten answers of the fake model, each claiming 1,000 input and
		// 20 output tokens.
		tokens: handoff.Tokens{Input: 10000, Output: 200},
		want: expect.Want{
			Title:    "Write calc.py with an add function and test it",
			Requests: []string{"Write calc.py with an add function and test it", "Now remove calc.py"},
			// Written, then edited; the rm that deleted it was a command.
			Files: map[string]expect.File{"calc.py": {Action: "created", Edits: 2}},
			Commands: []expect.Command{
				{Prefix: "python3 -B -c 'import calc; assert calc.add(2, 3) == 5'", Exit: expect.Exit(1), Count: 1, Status: "failed"},
				{Prefix: "python3 -B -c 'import calc; print(calc.add(2, 3))'", Exit: expect.Exit(0), Count: 1, Status: "ok"},
				{Prefix: "ls does-not-exist", Exit: expect.Exit(2), Count: 1, Status: "failed"},
				{Prefix: "rm calc.py", Exit: expect.Exit(0), Count: 1, Status: "ok"},
			},
			NumCommands: 4,
			OpenFailure: "ls does-not-exist",
			Todos:       []handoff.Todo{{Content: "Write calc.py", Status: "completed"}, {Content: "Test calc.py", Status: "completed"}},
		}},
	// TestKiloBriefed: the session the plugin captured, then the one it
	// briefed (the briefing went into the system prompt, which Kilo does
	// not store).
	{name: "briefed", nth: 0, of: 2, last: "Wrote hello.txt and checked git status.",
		tokens: handoff.Tokens{Input: 3000, Output: 60},
		want: expect.Want{
			Title:       "add a greeting file and check the tree",
			Requests:    []string{"add a greeting file and check the tree"},
			Files:       map[string]expect.File{"hello.txt": {Action: "created", Edits: 1}},
			Commands:    []expect.Command{{Prefix: "git status --short", Exit: expect.Exit(0), Count: 1, Status: "ok"}},
			NumCommands: 1,
		}},
	{name: "briefed", nth: 1, of: 2, last: "Nothing to do.",
		tokens: handoff.Tokens{Input: 1000, Output: 20},
		want:   expect.Want{Title: "what next?", Requests: []string{"what next?"}, Files: map[string]expect.File{}}},
}

// TestRealDatabases reads each session Kilo 7.7.7 wrote, by its id (and
// the latest also as the database's latest), and checks every field the
// digest fills against what the scripted model did.
func TestRealDatabases(t *testing.T) {
	r := Agent().Transcripts
	for _, e := range expectations {
		t.Run(fmt.Sprintf("%s/%d", e.name, e.nth), func(t *testing.T) {
			path := realDB(t, e.name)
			// Find lists the sessions newest first.
			found, err := r.Find([]string{filepath.Dir(path)})
			if err != nil || len(found) != e.of {
				t.Fatalf("Find: %+v, %v", found, err)
			}
			info := found[e.of-1-e.nth]
			if info.Agent != Name || info.Path != path || info.AgentVersion != checked {
				t.Errorf("Find: %+v", info)
			}
			ids := []string{info.ID}
			if e.nth == e.of-1 {
				ids = append(ids, "")
			}
			for _, id := range ids {
				d, err := r.Read(path, id, transcript.Limits{})
				if err != nil {
					t.Fatal(err)
				}
				checkDigest(t, e, info.ID, d)
			}
		})
	}
}

func checkDigest(t *testing.T, e expectation, id string, d *transcript.Digest) {
	t.Helper()
	if err := transcript.CheckDigest(d); err != nil {
		t.Error(err)
	}
	s := d.Session
	check := func(field string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", field, got, want)
		}
	}
	check("agent", s.Agent, string(Name))
	check("id", s.ID, id)
	check("version", s.AgentVersion, checked)
	check("version source", s.AgentVersionSource, handoff.VersionFromTranscript)
	check("last message", s.LastAgentMessage, e.last)
	if s.Tokens == nil {
		t.Error("no tokens")
	} else {
		check("tokens", *s.Tokens, e.tokens)
	}
	check("unknown", d.Stats.Unknown, 0)
	check("malformed", d.Stats.Malformed, 0)
	check("cancelled", d.Cancelled, false)
	// 'kilo run' quotes a prompt holding a space, as 'opencode run'.
	quoted := func(r string) bool { return len(r) > 1 && r[0] == '"' && r[len(r)-1] == '"' }
	expect.Check(t, expect.Got{Title: d.Title, Session: s, Files: d.Files, Cancelled: d.Cancelled}, e.want, expect.Marks{Injected: quoted})
}

// TestRealDatabasesCovered: every database under testdata/real-e2e has
// expectations, and every expectation its database.
func TestRealDatabasesCovered(t *testing.T) {
	dbs := map[string]bool{}
	for _, e := range expectations {
		dbs[e.name+"/kilo.db.gz"] = true
	}
	expect.Covered(t, filepath.Join("testdata", "real-e2e"), "*/kilo.db.gz", dbs)
}

// TestDetect: Kilo's database is Kilo's, by its own tables, and not
// OpenCode's, whose reader comes first in the table; OpenCode's is not
// Kilo's.
func TestDetect(t *testing.T) {
	head := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b[:min(len(b), transcript.DetectBytes)]
	}
	h := head(realDB(t, "work"))
	if d, ok := Agent().Transcripts.Detect(h); !ok || d.Agent != Name {
		t.Errorf("Kilo's reader: %+v %v", d, ok)
	}
	if d, ok := opencode.Agent().Transcripts.Detect(h); ok {
		t.Errorf("OpenCode's reader took Kilo's database: %+v", d)
	}
	dir := t.TempDir()
	expect.Gunzip(t, filepath.Join("..", "opencode", "testdata", "real-e2e", "work"), dir, "opencode.db")
	if d, ok := Agent().Transcripts.Detect(head(filepath.Join(dir, "opencode.db"))); ok {
		t.Errorf("Kilo's reader took OpenCode's database: %+v", d)
	}
	if !sqlitefile.HasHeader(h) {
		t.Error("no SQLite header")
	}
}

// TestDirs: the database is in Kilo's data directory, or where KILO_DB
// says.
func TestDirs(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	got := Agent().OwnDirs("/h", getenv)
	if !reflect.DeepEqual(got, []string{"/h/.config/kilo", "/h/.local/share/kilo"}) {
		t.Errorf("OwnDirs = %q", got)
	}
	env["KILO_DB"], env["XDG_DATA_HOME"] = "other.db", "/d"
	got = Agent().OwnDirs("/h", getenv)
	if !reflect.DeepEqual(got, []string{"/h/.config/kilo", "/d/kilo/other.db", "/d/kilo"}) {
		t.Errorf("OwnDirs with KILO_DB = %q", got)
	}
}

// TestPlugin: the plugin integrate writes for Kilo is OpenCode's, naming
// Kilo, not OpenCode, as what wrote it and what removes it.
func TestPlugin(t *testing.T) {
	a := Agent()
	text := string(a.HookSpec.Whole([]agent.WholeHook{{Ours: "session-start", Event: "experimental.chat.system.transform", Command: "/bin/sh-start"}}))
	for _, want := range []string{"plugin for Kilo Code", "'session-handoff integrate kilo --remove'", `"command":"/bin/sh-start"`, "experimental.chat.system.transform"} {
		if !strings.Contains(text, want) {
			t.Errorf("plugin lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "opencode") || strings.Contains(text, "OpenCode") {
		t.Errorf("Kilo's plugin names OpenCode:\n%s", text)
	}
}

package kilo

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents/opencode"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realDB decompresses testdata/real-e2e/work (the database Kilo wrote,
// with its WAL) into a temporary directory laid out as Kilo's data
// directory, and returns the database's path.
func realDB(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kilo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	expect.Gunzip(t, filepath.Join("testdata", "real-e2e", "work"), dir, "kilo.db", "kilo.db-wal")
	return filepath.Join(dir, "kilo.db")
}

// want is what the session must read as, written from the script that
// made it (testdata/real-e2e/SOURCES.md; internal/e2e TestKiloWork), not
// from the reader's output.
var want = expect.Want{
	// Kilo names a session with a small model of its own gateway,
	// unreachable offline: it keeps its default title ("New session -
	// …"), which is none, and the title is the first request.
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
}

// TestRealDatabase reads the session Kilo 7.7.7 wrote, as the latest and
// by its id, and checks every field the digest fills against what the
// scripted model did.
func TestRealDatabase(t *testing.T) {
	path := realDB(t)
	r := Agent().Transcripts
	found, err := r.Find([]string{filepath.Dir(path)})
	if err != nil || len(found) != 1 || found[0].Agent != Name || found[0].Path != path || found[0].AgentVersion != checked {
		t.Fatalf("Find: %+v, %v", found, err)
	}
	for _, id := range []string{"", found[0].ID} {
		d, err := r.Read(path, id, transcript.Limits{})
		if err != nil {
			t.Fatal(err)
		}
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
		check("id", s.ID, found[0].ID)
		check("version", s.AgentVersion, checked)
		check("version source", s.AgentVersionSource, handoff.VersionFromTranscript)
		check("last message", s.LastAgentMessage, "Removed calc.py.")
		// Ten answers of the fake model, each claiming 1,000 input and
		// 20 output tokens.
		if s.Tokens == nil {
			t.Error("no tokens")
		} else {
			check("tokens", *s.Tokens, handoff.Tokens{Input: 10000, Output: 200})
		}
		check("unknown", d.Stats.Unknown, 0)
		check("malformed", d.Stats.Malformed, 0)
		check("cancelled", d.Cancelled, false)
		// 'kilo run' quotes a prompt holding a space, as 'opencode run'.
		quoted := func(r string) bool { return len(r) > 1 && r[0] == '"' && r[len(r)-1] == '"' }
		expect.Check(t, expect.Got{Title: d.Title, Session: s, Files: d.Files, Cancelled: d.Cancelled}, want, expect.Marks{Injected: quoted})
	}
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
	h := head(realDB(t))
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

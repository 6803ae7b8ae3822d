package crush

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

func TestExitCode(t *testing.T) {
	for out, want := range map[string]int{
		"":                   0,
		"no output":          0,
		"4\n\n<cwd>/p</cwd>": 0,
		"ls: cannot access 'x': No such file\nExit code 2": 2,
		"boom\nExit code 1\n\n<cwd>/home/me/project</cwd>": 1,
		"Exit code 127": 127,
		// Only bash's own last line counts, not a line of the output.
		"Exit code 3\nmore output":          0,
		"printed: Exit code 4":              0,
		"Exit code 99999999999999999999\n":  0,
		"x\nExit code 1\n\n<cwd>a\nb</cwd>": 0,
	} {
		if got := exitCode(out); got != want {
			t.Errorf("exitCode(%q) = %d, want %d", out, got, want)
		}
	}
}

// msg builds a message of parts given as {"type", "data"} JSON.
func msg(t *testing.T, id, session, role string, summary bool, parts ...string) *message {
	t.Helper()
	m := &message{id: id, session: session, role: role, summary: summary}
	if err := json.Unmarshal([]byte("["+strings.Join(parts, ",")+"]"), &m.parts); err != nil {
		t.Fatal(err)
	}
	return m
}

// jsonText quotes s as a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func callPart(id, name, input string) string {
	return `{"type":"tool_call","data":{"id":"` + id + `","name":"` + name + `","input":` + jsonText(input) + `,"finished":true}}`
}

func resultPart(id, content, metadata string, isError bool) string {
	e := "false"
	if isError {
		e = "true"
	}
	return `{"type":"tool_result","data":{"tool_call_id":"` + id + `","content":` + jsonText(content) + `,"metadata":` + jsonText(metadata) + `,"is_error":` + e + `}}`
}

func txt(s string) string { return `{"type":"text","data":{"text":` + jsonText(s) + `}}` }

// TestFoldShapes: the part shapes the real databases lack, as Crush
// v0.90.0 writes them (internal/message, internal/agent/tools): a command
// moved to the background, one aborted, one bash refused, a multiedit, a
// failed edit, a call id used again in a later turn, the request Crush
// sends again itself after a summary, a subagent's work, a part type of
// a later version, and a turn the user cancelled.
func TestFoldShapes(t *testing.T) {
	const s, sub = "s1", "m2$$call_task"
	msgs := []*message{
		msg(t, "m1", s, "user", false, txt("do the thing")),
		msg(t, "m2", s, "assistant", false,
			callPart("call_1", "bash", `{"command":"npm run dev","run_in_background":true}`),
			callPart("call_2", "bash", `{"command":"sleep 100"}`),
			callPart("call_3", "bash", `{"command":"rm -rf /"}`),
			callPart("call_4", "multiedit", `{"file_path":"/p/a.go","edits":[{},{},{}]}`),
			callPart("call_5", "edit", `{"file_path":"/p/b.go","old_string":"x","new_string":"y"}`),
			callPart("call_6", "bash", `{"command":"make test"}`),
			callPart("call_task", "agent", `{"prompt":"write notes"}`)),
		msg(t, "m3", s, "tool", false,
			resultPart("call_1", "Background shell started with ID: 001", `{"background":true,"shell_id":"001"}`, false),
			resultPart("call_2", "\nCommand was aborted before completion", `{}`, false),
			resultPart("call_3", "command is not allowed", ``, true),
			resultPart("call_4", "<result>applied 3 edits</result>", `{}`, false),
			resultPart("call_5", "old_string not found in file", ``, true),
			resultPart("call_6", "FAIL\nExit code 2\n\n<cwd>/p</cwd>", `{}`, false)),
		// The subagent's session: its prompt is no request of the user's,
		// its write is the session's.
		msg(t, "t1", sub, "user", false, txt("write notes")),
		msg(t, "t2", sub, "assistant", false, callPart("call_1", "write", `{"file_path":"/p/notes.md","content":"n"}`), txt("wrote notes")),
		msg(t, "t3", sub, "tool", false, resultPart("call_1", "File successfully written", `{}`, false)),
		msg(t, "m4", s, "tool", false, resultPart("call_task", "wrote notes", ``, false)),
		// A later turn uses call_6 again: its result is this call's.
		msg(t, "m5", s, "assistant", false, callPart("call_6", "bash", `{"command":"make test"}`), `{"type":"hologram","data":{}}`),
		msg(t, "m6", s, "tool", false, resultPart("call_6", "ok", `{}`, false)),
		msg(t, "m7", s, "user", false, txt(requeued+"do the thing`")),
		msg(t, "m8", s, "assistant", false, txt("Half done."), `{"type":"finish","data":{"reason":"canceled","time":1}}`),
	}
	b := transcript.NewBuilder()
	b.SetCWD("/p")
	b.Digest().Stats.Records = len(msgs)
	fold(b, s, msgs, &b.Digest().Stats, nil)
	d, err := b.Finish(Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := transcript.CheckDigest(d); err != nil {
		t.Error(err)
	}
	s2 := d.Session
	if !reflect.DeepEqual(s2.Requests, []string{"do the thing"}) {
		t.Errorf("requests %q", s2.Requests)
	}
	if s2.LastAgentMessage != "Half done." || !d.Cancelled {
		t.Errorf("last message %q, cancelled %v", s2.LastAgentMessage, d.Cancelled)
	}
	status := map[string]string{}
	for _, c := range s2.Commands {
		status[c.Command] = c.Status
		if c.Command == "make test" && (c.Count != 2 || c.ExitCode == nil || *c.ExitCode != 0) {
			t.Errorf("make test, run again with the same call id: %+v", c)
		}
	}
	want := map[string]string{"npm run dev": handoff.StatusBackground, "sleep 100": handoff.StatusInterrupted,
		"rm -rf /": "failed", "make test": "ok"}
	if !reflect.DeepEqual(status, want) {
		t.Errorf("commands %v, want %v", status, want)
	}
	files := map[string]string{}
	for _, f := range d.Files {
		files[f.Path] = f.Action
		if f.Path == "a.go" && f.Edits != 3 {
			t.Errorf("a.go: %d edits, want the multiedit's 3", f.Edits)
		}
	}
	if files["a.go"] != "edited" || files["notes.md"] == "" {
		t.Errorf("files %v", files)
	}
	if d.Stats.UnknownTypes["hologram"] != 1 {
		t.Errorf("unknown part types %v", d.Stats.UnknownTypes)
	}
}

// TestSummaryIsNoAnswer: the summary message of a compaction is the
// compaction summary, not the agent's last answer.
func TestSummaryIsNoAnswer(t *testing.T) {
	msgs := []*message{
		msg(t, "m1", "s", "user", false, txt("add hello")),
		msg(t, "m2", "s", "assistant", false, txt("Added.")),
		msg(t, "m3", "s", "assistant", true, txt("SUMMARY: hello added")),
	}
	b := transcript.NewBuilder()
	b.Digest().Stats.Records = len(msgs)
	fold(b, "s", msgs, &b.Digest().Stats, nil)
	d, err := b.Finish(Name)
	if err != nil {
		t.Fatal(err)
	}
	if d.Session.CompactionSummary != "SUMMARY: hello added" || d.Session.LastAgentMessage != "Added." {
		t.Errorf("summary %q, last message %q", d.Session.CompactionSummary, d.Session.LastAgentMessage)
	}
}

func TestOwnDirs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		env  map[string]string
		want []string
	}{
		{nil, []string{"/h/.config/crush", "/h/.local/share/crush"}},
		{map[string]string{"XDG_CONFIG_HOME": "/x/c", "XDG_DATA_HOME": "/x/d"}, []string{"/x/c/crush", "/x/d/crush"}},
		{map[string]string{"CRUSH_GLOBAL_CONFIG": "/g/c", "CRUSH_GLOBAL_DATA": "/g/d", "XDG_DATA_HOME": "/x/d"}, []string{"/g/c", "/g/d"}},
		// A relative directory is not taken: it would move with the
		// working directory.
		{map[string]string{"CRUSH_GLOBAL_DATA": "rel", "XDG_DATA_HOME": "rel2"}, []string{"/h/.config/crush", "/h/.local/share/crush"}},
	} {
		if got := ownDirs("/h", env(c.env)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ownDirs with %v = %v, want %v", c.env, got, c.want)
		}
	}
}

func TestUnixTime(t *testing.T) {
	if got := unixTime(1764260000).Unix(); got != 1764260000 {
		t.Errorf("seconds read as %d", got)
	}
	if got := unixTime(1764260000123).UnixMilli(); got != 1764260000123 {
		t.Errorf("milliseconds read as %d", got)
	}
	if !unixTime(0).IsZero() || !unixTime(-5).IsZero() {
		t.Error("no time reads as a time")
	}
}

// readBytes reads a database held in memory, as the fuzz target does.
func readBytes(main []byte, lim transcript.Limits) (*transcript.Digest, error) {
	lim = lim.WithDefaults()
	db, err := sqlitefile.OpenReaderAt(bytes.NewReader(main), int64(len(main)), nil, 0,
		sqlitefile.Limits{MaxFile: 1 << 20, MaxRecord: int64(max(lim.MaxLine, minRow))})
	if err != nil {
		return nil, err
	}
	return readDB(db, "", "", lim)
}

// TestHostileDatabases: damaged Crush databases fail with an error or
// read what is sound; none panics.
func TestHostileDatabases(t *testing.T) {
	seed, err := os.ReadFile("testdata/seed.db")
	if err != nil {
		t.Fatal(err)
	}
	d, err := readBytes(seed, transcript.Limits{})
	if err != nil || len(d.Session.Requests) != 1 || len(d.Session.Todos) != 2 || len(d.Session.Commands) != 1 {
		t.Fatalf("seed: %v, %+v", err, d)
	}
	if err := transcript.CheckDigest(d); err != nil {
		t.Fatal(err)
	}
	// A row larger than the line limit (a message here) is counted, not
	// fatal.
	if d, err = readBytes(seed, transcript.Limits{MaxLine: 300}); err != nil || d.Stats.TooLong == 0 {
		t.Fatalf("with a 300-byte row limit: %v, %+v", err, d)
	}
	// Malformed JSON in a message's parts (a quote made a brace, the
	// length kept) is counted, not fatal.
	bad := bytes.Replace(seed, []byte(`[{"type":"tool_call","data":{"id":"call_0002_0"`), []byte(`[{"type":"tool_call","data":{"id":"call_0002_0}`), 1)
	if bytes.Equal(bad, seed) {
		t.Fatal("the seed has no todos call")
	}
	if d, err = readBytes(bad, transcript.Limits{}); err != nil || d.Stats.Malformed != 1 {
		t.Fatalf("a malformed message: %v, %+v", err, d)
	}
	// A todo list that is no JSON loses the list, not the session.
	bad = bytes.Replace(seed, []byte(`[{"content":"Write calc.py"`), []byte(`[{"content":"Write calc.py}`), 1)
	if d, err = readBytes(bad, transcript.Limits{}); err != nil || d.Stats.Malformed != 1 || len(d.Session.Todos) != 2 {
		// The todos tool call's list stands.
		t.Fatalf("a malformed todo list: %v, %+v", err, d)
	}
	for _, n := range []int{0, 100, 512, 4000} {
		if _, err := readBytes(seed[:n], transcript.Limits{}); err == nil {
			t.Errorf("cut at %d bytes: no error", n)
		}
	}
	// A file that is no Crush database says so, naming it.
	p := filepath.Join(t.TempDir(), "crush.db")
	if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (reader{}).Read(p, "", transcript.Limits{}); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("not a database: %v", err)
	}
}

// FuzzReadCrush: any bytes as a Crush database read without a panic,
// within the limits.
func FuzzReadCrush(f *testing.F) {
	seed, err := os.ReadFile("testdata/seed.db")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, main []byte) {
		d, err := readBytes(main, transcript.Limits{MaxLine: 1 << 16})
		if err == nil {
			if err := transcript.CheckDigest(d); err != nil {
				t.Fatal(err)
			}
		}
	})
}

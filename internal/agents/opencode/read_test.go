package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents/claude"
	"github.com/session-handoff/session-handoff/internal/agents/copilot"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

func TestUserText(t *testing.T) {
	for in, want := range map[string]string{
		`"fix the bug"`:             "fix the bug",
		`"say \"hi\" to me"`:        `say "hi" to me`,
		`fix the bug`:               "fix the bug",
		`"quoted"`:                  `"quoted"`, // no space: opencode run did not quote it
		`"a b" c "d e"`:             `"a b" c "d e"`,
		`"`:                         `"`,
		`"typed in the TUI", maybe`: `"typed in the TUI", maybe`,
	} {
		if got := userText(in); got != want {
			t.Errorf("userText(%s) = %s, want %s", in, got, want)
		}
	}
}

// msg builds a message of parts given as JSON.
func msg(t *testing.T, id, session, role string, info string, parts ...string) *message {
	t.Helper()
	m := &message{id: id, session: session}
	if err := json.Unmarshal([]byte(`{"role":"`+role+`"`+info+`}`), &m.data); err != nil {
		t.Fatal(err)
	}
	for i, p := range parts {
		var pd partData
		if err := json.Unmarshal([]byte(p), &pd); err != nil {
			t.Fatal(err)
		}
		m.parts = append(m.parts, part{id: id + string(rune('a'+i)), data: pd})
	}
	return m
}

// TestFoldShapes: the part shapes the real databases lack, as OpenCode
// 1.18.33 writes them (message-v2.ts, tool/*.ts): the synthetic turn
// after an automatic compaction, a permission refused, a patch, a
// multiedit, an aborted turn.
func TestFoldShapes(t *testing.T) {
	const s = "ses_1"
	msgs := []*message{
		msg(t, "m1", s, "user", "", `{"type":"text","text":"\"do the thing\""}`),
		msg(t, "m2", s, "assistant", "",
			`{"type":"tool","tool":"apply_patch","state":{"status":"completed","input":{"patchText":"*** Begin Patch\n*** Add File: a.go\n+package a\n*** Update File: b.go\n@@\n-x\n+y\n*** Delete File: c.go\n*** End Patch"}}}`,
			`{"type":"tool","tool":"multiedit","state":{"status":"completed","input":{"filePath":"/p/d.go","edits":[{},{},{}]}}}`,
			`{"type":"tool","tool":"bash","state":{"status":"error","input":{"command":"rm -rf /"},"error":"The user rejected permission to use this specific tool call."}}`,
			`{"type":"tool","tool":"bash","state":{"status":"error","input":{"command":"sleep 100"},"error":"Tool execution aborted"}}`),
		msg(t, "m3", s, "user", "", `{"type":"compaction","auto":true}`),
		msg(t, "m4", s, "assistant", `,"summary":true`, `{"type":"text","text":"SUMMARY"}`),
		msg(t, "m5", s, "user", "", `{"type":"text","synthetic":true,"text":"Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed."}`),
		msg(t, "m6", s, "assistant", `,"error":{"name":"MessageAbortedError","data":{}}`, `{"type":"text","text":"I was about to"}`),
	}
	b := transcript.NewBuilder()
	b.SetCWD("/p")
	b.Digest().Stats.Records = 1
	fold(b, s, msgs)
	d, err := b.Finish(Name)
	if err != nil {
		t.Fatal(err)
	}
	ss := d.Session
	if strings.Join(ss.Requests, "|") != "do the thing" {
		t.Errorf("requests %q: the synthetic turn is no request", ss.Requests)
	}
	if ss.CompactionSummary != "SUMMARY" || ss.LastAgentMessage != "I was about to" || !d.Cancelled {
		t.Errorf("compaction %q, last %q, cancelled %v", ss.CompactionSummary, ss.LastAgentMessage, d.Cancelled)
	}
	got := map[string]string{}
	for _, f := range d.Files {
		got[f.Path] = f.Action
		if f.Path == "d.go" && f.Edits != 3 {
			t.Errorf("d.go: %d edits, want 3", f.Edits)
		}
	}
	want := map[string]string{"a.go": "created", "b.go": "edited", "c.go": "deleted", "d.go": "edited"}
	for p, a := range want {
		if got[p] != a {
			t.Errorf("files %v, want %v", got, want)
			break
		}
	}
	status := map[string]string{}
	for _, c := range ss.Commands {
		status[c.Command] = c.Status
	}
	if status["rm -rf /"] != handoff.StatusRejected || status["sleep 100"] != handoff.StatusInterrupted {
		t.Errorf("command statuses %v", status)
	}
}

// TestWrongReader: another agent's reader takes nothing from OpenCode's
// database, and OpenCode's reader refuses another agent's transcript.
func TestWrongReader(t *testing.T) {
	path := realDB(t, "work")
	for _, other := range []agent.Agent{claude.Agent(), copilot.Agent()} {
		if d, err := other.Transcripts.Read(path, "", transcript.Limits{}); err == nil && !d.Empty() {
			t.Errorf("%s's reader read OpenCode's database: %+v", other.Name, d.Session)
		}
	}
	jsonl := filepath.Join(t.TempDir(), "x.jsonl")
	if err := os.WriteFile(jsonl, []byte(`{"type":"user","message":{"role":"user","content":"hi"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (reader{own}).Read(jsonl, "", transcript.Limits{}); err == nil || !strings.Contains(err.Error(), "x.jsonl") {
		t.Errorf("OpenCode's reader on a JSON Lines file: %v", err)
	}
	if _, err := (reader{own}).Read(path, "ses_nope", transcript.Limits{}); err == nil || !strings.Contains(err.Error(), "no session ses_nope") {
		t.Errorf("an unknown session: %v", err)
	}
}

// TestDetect: OpenCode's database is recognised by its first bytes,
// also while its schema is only in the WAL; another SQLite database and
// a JSON Lines transcript are not.
func TestDetect(t *testing.T) {
	head := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b[:min(len(b), transcript.DetectBytes)]
	}
	for _, name := range []string{"work", "subagent"} { // checkpointed; all in the WAL
		if d, ok := (reader{own}).Detect(head(realDB(t, name))); !ok || d.Agent != Name {
			t.Errorf("%s: not detected: %+v", name, d)
		}
	}
	if _, ok := (reader{own}).Detect(head("testdata/seed.db")); !ok {
		t.Error("seed.db not detected")
	}
	if _, ok := (reader{own}).Detect(head("../../sqlitefile/testdata/plain.db")); ok {
		t.Error("another SQLite database detected")
	}
	if _, ok := (reader{own}).Detect([]byte(`{"type":"session.start"}`)); ok {
		t.Error("a JSON line detected")
	}
}

// TestFind: the sessions of the database in the data directory, moved
// by XDG_DATA_HOME, and of OPENCODE_DB; a subagent's session is not
// listed.
func TestFind(t *testing.T) {
	data := t.TempDir()
	src := realDB(t, "subagent")
	dir := filepath.Join(data, "opencode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"opencode.db", "opencode.db-wal"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(src), f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"XDG_DATA_HOME": data}
	roots := Agent().SessionRoots("/nonexistent-home", func(k string) string { return env[k] })
	got, err := reader{own}.Find(roots)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "ses_de295f165ffezDFm1PSkOTjG1S" || got[0].Title != "Delegate the notes" ||
		got[0].Path != filepath.Join(dir, "opencode.db") || got[0].AgentVersion != "1.18.33" || got[0].CWD != "/tmp/oc/w4/project" {
		t.Fatalf("Find: %+v", got)
	}
	env = map[string]string{"OPENCODE_DB": realDB(t, "work")}
	got, err = reader{own}.Find(Agent().SessionRoots(data, func(k string) string { return env[k] }))
	if err != nil || len(got) != 1 || got[0].ID != "ses_de29c8592ffexxmRHdDAjDEbDi" {
		t.Fatalf("Find with OPENCODE_DB: %+v, %v", got, err)
	}
}

// readBytes reads a database held in memory, as the fuzz target does.
func readBytes(main []byte, lim transcript.Limits) (*transcript.Digest, error) {
	sl := rowLimits(lim.WithDefaults().MaxLine)
	sl.MaxFile = 1 << 20
	db, err := sqlitefile.OpenReaderAt(bytes.NewReader(main), int64(len(main)), nil, 0, sl)
	if err != nil {
		return nil, err
	}
	return readDB(db, "", Name, lim)
}

// TestHostileDatabases: damaged OpenCode databases fail with an error
// or read what is sound; none panics.
func TestHostileDatabases(t *testing.T) {
	seed, err := os.ReadFile("testdata/seed.db")
	if err != nil {
		t.Fatal(err)
	}
	d, err := readBytes(seed, transcript.Limits{})
	if err != nil || len(d.Session.Requests) != 1 || len(d.Session.Todos) != 2 {
		t.Fatalf("seed: %v, %+v", err, d)
	}
	if err := transcript.CheckDigest(d); err != nil {
		t.Fatal(err)
	}
	// A row larger than the line limit (a tool part here) is counted, not fatal.
	d, err = readBytes(seed, transcript.Limits{MaxLine: 600})
	if err != nil || d.Stats.TooLong == 0 {
		t.Fatalf("with a 600-byte row limit: %v, %+v", err, d)
	}
	// Malformed JSON in a part (a quote made a brace, the length kept) is
	// counted, not fatal.
	bad := bytes.Replace(seed, []byte(`{"type":"tool","tool":"todowrite"`), []byte(`{"type":"tool","tool":"todowrite}`), 1)
	if bytes.Equal(bad, seed) {
		t.Fatal("the seed has no todowrite part")
	}
	if d, err = readBytes(bad, transcript.Limits{}); err != nil || d.Stats.Malformed != 1 {
		t.Fatalf("a malformed part: %v, %+v", err, d)
	}
	for _, n := range []int{0, 100, 600, 4000} {
		if _, err := readBytes(seed[:n], transcript.Limits{}); err == nil {
			t.Errorf("cut at %d bytes: no error", n)
		}
	}
}

// FuzzReadOpenCode: any bytes as an OpenCode database read without a
// panic, within the limits.
func FuzzReadOpenCode(f *testing.F) {
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

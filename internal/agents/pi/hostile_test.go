package pi

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

// jsonl joins lines into a file.
func jsonl(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

const header3 = `{"type":"session","version":3,"id":"s1","timestamp":"2026-11-27T10:00:00.000Z","cwd":"/p"}`

func readString(t *testing.T, s string) *transcript.Digest {
	t.Helper()
	d, err := read(strings.NewReader(s), transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Each case is a shape pi writes (or wrote, or a hostile file claims)
// and what the digest must make of it.
func TestShapes(t *testing.T) {
	t.Run("version 1 has no tree: every entry in order", func(t *testing.T) {
		d := readString(t, jsonl(`{"type":"session","id":"s0","timestamp":"2025-01-01T00:00:00Z","cwd":"/p"}`,
			`{"type":"message","timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"first"}}`,
			`{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"write","arguments":{"path":"/p/a.txt","content":"x"}}]}}`,
			`{"type":"message","message":{"role":"toolResult","toolCallId":"c1","toolName":"write","content":[{"type":"text","text":"ok"}],"isError":false}}`,
			`{"type":"message","message":{"role":"user","content":"second"}}`))
		if !slices.Equal(d.Session.Requests, []string{"first", "second"}) || len(d.Files) != 1 || d.Files[0].Path != "a.txt" {
			t.Errorf("requests %q, files %+v", d.Session.Requests, d.Files)
		}
	})
	t.Run("version 1: a call id used again in a later run is another call", func(t *testing.T) {
		d := readString(t, jsonl(`{"type":"session","id":"s0","cwd":"/p"}`,
			`{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"make"}}]}}`,
			`{"type":"message","message":{"role":"user","content":"again"}}`,
			`{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"go test"}}]}}`,
			`{"type":"message","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"FAIL\n\nCommand exited with code 1"}],"isError":true}}`))
		c := d.Session.Commands
		if len(c) != 2 || c[0].Command != "make" || c[0].Status != handoff.StatusUnknown || c[1].Command != "go test" || c[1].Status != handoff.StatusFailed {
			t.Errorf("commands %+v", c)
		}
	})
	t.Run("version 2's hookMessage is an extension's message, no request", func(t *testing.T) {
		d := readString(t, jsonl(`{"type":"session","version":2,"id":"s","cwd":"/p"}`,
			`{"type":"message","id":"a","parentId":null,"message":{"role":"hookMessage","customType":"x","content":"injected","display":true}}`,
			`{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"asked"}}`,
			`{"type":"custom_message","id":"c","parentId":"b","customType":"session-handoff","content":"briefing","display":false}`))
		if !slices.Equal(d.Session.Requests, []string{"asked"}) {
			t.Errorf("requests %q", d.Session.Requests)
		}
	})
	t.Run("the path from the last entry: a branch left is not the session's", func(t *testing.T) {
		d := readString(t, jsonl(header3,
			`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"old"}}`,
			`{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"make old"}}]}}`,
			`{"type":"branch_summary","id":"c","parentId":null,"fromId":"b","summary":"left old"}`,
			`{"type":"message","id":"d","parentId":"c","message":{"role":"user","content":"new"}}`,
			`{"type":"label","id":"e","parentId":"d","targetId":"a","label":"x"}`))
		if !slices.Equal(d.Session.Requests, []string{"new"}) || len(d.Session.Commands) != 0 || d.Session.CompactionSummary != "" {
			t.Errorf("requests %q, commands %+v, compaction %q", d.Session.Requests, d.Session.Commands, d.Session.CompactionSummary)
		}
	})
	t.Run("a cycle of parents ends", func(t *testing.T) {
		d := readString(t, jsonl(header3,
			`{"type":"message","id":"a","parentId":"b","message":{"role":"user","content":"one"}}`,
			`{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"two"}}`))
		if !slices.Equal(d.Session.Requests, []string{"one", "two"}) {
			t.Errorf("requests %q", d.Session.Requests)
		}
	})
	t.Run("a missing parent ends the path; a repeated id is its latest entry", func(t *testing.T) {
		d := readString(t, jsonl(header3,
			`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"first a"}}`,
			`{"type":"message","id":"a","parentId":"gone","message":{"role":"user","content":"second a"}}`,
			`{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"b"}}`))
		if !slices.Equal(d.Session.Requests, []string{"second a", "b"}) {
			t.Errorf("requests %q", d.Session.Requests)
		}
	})
	t.Run("a field of the wrong type loses the field, not the line", func(t *testing.T) {
		d := readString(t, jsonl(header3,
			`{"type":"message","id":"a","parentId":null,"timestamp":5,"message":{"role":"user","content":"kept","timestamp":"x"}}`,
			`{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"bash","arguments":{"command":["rm"]}},{"type":"text","text":"said"}],"usage":"many"}}`))
		if !slices.Equal(d.Session.Requests, []string{"kept"}) || d.Session.LastAgentMessage != "said" || d.Stats.Malformed != 0 {
			t.Errorf("requests %q, message %q, stats %+v", d.Session.Requests, d.Session.LastAgentMessage, d.Stats)
		}
	})
	t.Run("edits: a list, the list as a string, the old single form", func(t *testing.T) {
		d := readString(t, jsonl(header3,
			`{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[`+
				`{"type":"toolCall","id":"1","name":"edit","arguments":{"path":"x.go","edits":[{"oldText":"a","newText":"b"},{"oldText":"c","newText":"d"}]}},`+
				`{"type":"toolCall","id":"2","name":"edit","arguments":{"path":"@y.go","edits":"[{\"oldText\":\"a\",\"newText\":\"b\"},{\"oldText\":\"c\",\"newText\":\"d\"},{\"oldText\":\"e\",\"newText\":\"f\"}]"}},`+
				`{"type":"toolCall","id":"3","name":"edit","arguments":{"path":"z.go","oldText":"a","newText":"b"}}]}}`,
			`{"type":"message","id":"b","parentId":"a","message":{"role":"toolResult","toolCallId":"1","content":[{"type":"text","text":"ok"}],"isError":false}}`,
			`{"type":"message","id":"c","parentId":"b","message":{"role":"toolResult","toolCallId":"2","content":[{"type":"text","text":"ok"}],"isError":false}}`,
			`{"type":"message","id":"d","parentId":"c","message":{"role":"toolResult","toolCallId":"3","content":[{"type":"text","text":"ok"}],"isError":false}}`))
		got := map[string]int{}
		for _, f := range d.Files {
			got[f.Path] = f.Edits
		}
		if got["x.go"] != 2 || got["y.go"] != 3 || got["z.go"] != 1 || len(got) != 3 {
			t.Errorf("files %+v", d.Files)
		}
	})
	t.Run("the user's own commands, with their exit codes", func(t *testing.T) {
		d := readString(t, jsonl(header3,
			`{"type":"message","id":"a","parentId":null,"message":{"role":"bashExecution","command":"make test","output":"FAIL","exitCode":3,"cancelled":false,"truncated":false}}`,
			`{"type":"message","id":"b","parentId":"a","message":{"role":"bashExecution","command":"sleep 9","output":"","cancelled":true,"truncated":false}}`))
		c := d.Session.Commands
		if len(c) != 2 || c[0].Status != handoff.StatusFailed || c[0].ExitCode == nil || *c[0].ExitCode != 3 || c[1].Status != handoff.StatusInterrupted {
			t.Errorf("commands %+v", c)
		}
	})
	t.Run("the bash tool's outcomes: exit line, success, timeout", func(t *testing.T) {
		d := readString(t, jsonl(header3,
			`{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[`+
				`{"type":"toolCall","id":"1","name":"bash","arguments":{"command":"false"}},`+
				`{"type":"toolCall","id":"2","name":"bash","arguments":{"command":"true"}},`+
				`{"type":"toolCall","id":"3","name":"bash","arguments":{"command":"sleep 99"}},`+
				`{"type":"toolCall","id":"4","name":"bash","arguments":{"command":"echo 'Command exited with code 7'"}}]}}`,
			`{"type":"message","id":"b","parentId":"a","message":{"role":"toolResult","toolCallId":"1","content":[{"type":"text","text":"\n\nCommand exited with code 1"}],"isError":true}}`,
			`{"type":"message","id":"c","parentId":"b","message":{"role":"toolResult","toolCallId":"2","content":[{"type":"text","text":"(no output)"}],"isError":false}}`,
			`{"type":"message","id":"d","parentId":"c","message":{"role":"toolResult","toolCallId":"3","content":[{"type":"text","text":"Command timed out after 5 seconds"}],"isError":true}}`,
			`{"type":"message","id":"e","parentId":"d","message":{"role":"toolResult","toolCallId":"4","content":[{"type":"text","text":"xCommand exited with code 7"}],"isError":false}}`))
		want := []struct {
			status string
			exit   *int
		}{{handoff.StatusFailed, expect.Exit(1)}, {handoff.StatusOK, expect.Exit(0)}, {handoff.StatusFailed, nil}, {handoff.StatusOK, expect.Exit(0)}}
		c := d.Session.Commands
		if len(c) != len(want) {
			t.Fatalf("commands %+v", c)
		}
		for i, w := range want {
			if c[i].Status != w.status || (c[i].ExitCode == nil) != (w.exit == nil) || w.exit != nil && *c[i].ExitCode != *w.exit {
				t.Errorf("command %q: %s exit %v, want %s %v", c[i].Command, c[i].Status, c[i].ExitCode, w.status, w.exit)
			}
		}
	})
	t.Run("a result written before its call, and call ids used again", func(t *testing.T) {
		d := readString(t, jsonl(header3,
			`{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"early"}],"isError":true}}`,
			`{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"go vet"}}]}}`,
			`{"type":"message","id":"c","parentId":"b","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"Command exited with code 1"}],"isError":true}}`,
			`{"type":"message","id":"d","parentId":"c","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"go vet"}}]}}`,
			`{"type":"message","id":"e","parentId":"d","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"(no output)"}],"isError":false}}`))
		c := d.Session.Commands
		if len(c) == 0 || c[len(c)-1].Status != handoff.StatusOK || d.Session.LastFailure != nil {
			t.Errorf("commands %+v, last failure %+v", c, d.Session.LastFailure)
		}
	})
	t.Run("names, unknown entries, a second header", func(t *testing.T) {
		d := readString(t, jsonl(header3,
			`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"ask"}}`,
			`{"type":"session_info","id":"b","parentId":"a","name":"  My work  "}`,
			`{"type":"hologram","id":"c","parentId":"b"}`,
			header3))
		if d.Title != "My work" || d.Stats.Unknown != 2 || d.Stats.UnknownTypes["hologram"] != 1 {
			t.Errorf("title %q, stats %+v", d.Title, d.Stats)
		}
	})
}

// A file whose first entry is not pi's header is no pi session, whatever
// follows (pi skips a line that is no JSON, as the reader does): the
// reader fails on another agent's format.
func TestNotPi(t *testing.T) {
	for _, s := range []string{
		"",
		jsonl(`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}`, header3),
		jsonl(`{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"x"}}`),
	} {
		if _, err := read(strings.NewReader(s), transcript.Limits{}); !errors.Is(err, errNotPi) {
			t.Errorf("%q: err %v, want not a pi session", s, err)
		}
	}
	// The other agents' real transcripts.
	files, _ := filepath.Glob(filepath.Join("..", "..", "transcript", "testdata", "real-e2e", "*", "*", "*"))
	for _, agent := range []string{"codex", "gemini"} {
		moved, _ := filepath.Glob(filepath.Join("..", agent, "testdata", "real-e2e", "*", "*"))
		files = append(files, moved...)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".json") || strings.HasSuffix(f, ".yaml") {
			continue
		}
		n++
		if _, err := readFile(f, transcript.Limits{}); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("%s: read as pi's (%v)", f, err)
		}
		head, _ := os.ReadFile(f)
		if d, ok := (transcripts{}).Detect(head[:min(len(head), transcript.DetectBytes)]); ok {
			t.Errorf("%s: detected as %+v", f, d)
		}
	}
	if n < 4 {
		t.Errorf("found %d transcripts of other agents", n)
	}
}

func TestDetect(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "real-e2e", "*", "*.jsonl"))
	for _, f := range files {
		head, _ := os.ReadFile(f)
		if d, ok := (transcripts{}).Detect(head[:min(len(head), transcript.DetectBytes)]); !ok || d.Agent != Name || d.Foreign {
			t.Errorf("%s: %+v %v", f, d, ok)
		}
		// No reader of the package the older agents' readers live in
		// takes it.
		if d := transcript.Detect(head); d.Agent != "" {
			t.Errorf("%s: transcript.Detect says %+v", f, d)
		}
	}
	stream := jsonl(header3, `{"type":"agent_start"}`, `{"type":"turn_start"}`)
	if d, ok := (transcripts{}).Detect([]byte(stream)); !ok || !d.Foreign || d.Agent != "" {
		t.Errorf("--mode json stream: %+v %v", d, ok)
	}
}

// Find lists the sessions newest first with their header's id and
// directory and the first request as title, and leaves out what is no
// session.
func TestFind(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sessions")
	dir := filepath.Join(root, "--p--")
	write := func(name, s string, age time.Duration) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	write("2026-01-01T00-00-00-000Z_old.jsonl", jsonl(header3, `{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-27T10:05:00.000Z","message":{"role":"user","content":"fix the build\nplease"}}`), time.Hour)
	write("2026-01-02T00-00-00-000Z_new.jsonl", jsonl(`{"type":"session","version":3,"id":"s2","cwd":"/q"}`,
		`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}`, `{"type":"session_info","id":"b","parentId":"a","name":"Named"}`), time.Minute)
	write("2026-01-03T00-00-00-000Z_empty.jsonl", jsonl(header3), 0)
	write("notes.jsonl", jsonl(`{"type":"user"}`), 0)
	write("readme.txt", "x", 0)
	got, err := transcripts{}.Find([]string{root, filepath.Join(root, "missing")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "s2" || got[0].Title != "Named" || got[0].CWD != "/q" ||
		got[1].ID != "s1" || got[1].Title != "fix the build" || got[1].CWD != "/p" ||
		got[1].Started != time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC) || got[1].LastActivity != time.Date(2026, 11, 27, 10, 5, 0, 0, time.UTC) {
		t.Errorf("found %+v", got)
	}
}

// FuzzReadPi: whatever the file, the reader returns a digest within the
// record's bounds or an error, and never panics.
func FuzzReadPi(f *testing.F) {
	for _, s := range []string{
		jsonl(header3, `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}`),
		jsonl(header3, `{"type":"message","id":"a","parentId":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"1","name":"edit","arguments":{"path":"p","edits":"[1,2]"}}],"stopReason":"aborted","usage":{"input":-5}}}`),
		jsonl(`{"type":"session","id":"s"}`, `{"type":"message","message":{"role":"bashExecution","command":"x","exitCode":-1}}`, `{"type":"compaction","summary":"s"}`),
		jsonl(header3, `{"type":"message","id":"b","parentId":"a","message":{"role":"toolResult","toolCallId":"1","content":[{"type":"text","text":"Command exited with code 99999999999"}],"isError":true}}`),
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "real-e2e", "*", "*.jsonl"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := read(bytes.NewReader(data), transcript.Limits{MaxFile: 1 << 20, MaxLine: 64 << 10})
		if err != nil {
			if d != nil {
				t.Fatal("a digest with an error")
			}
			return
		}
		if err := transcript.CheckDigest(d); err != nil {
			t.Fatal(err)
		}
		if tok := d.Session.Tokens; tok != nil && (tok.Input < 0 || tok.Output < 0 || tok.CacheRead < 0 || tok.CacheWrite < 0) {
			t.Fatalf("tokens %+v", tok)
		}
	})
}

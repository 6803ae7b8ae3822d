package agents_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// Every real and sample transcript is recognised as its agent's by the
// table's detectors in order, and the Gemini prompt log as what it is
// (issue 17, item 3).
func TestDetectRealFiles(t *testing.T) {
	cases := map[string]string{
		"real/claude-code/ccv/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl":                           agents.ClaudeCode,
		"real/claude-code/codemie/session-624a4a58.jsonl":                                           agents.ClaudeCode,
		"real/claude-code/codemie/incremental-subagents-turn-2/subagents/agent-a485154.jsonl":       agents.ClaudeCode,
		"real/codex/codemie/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl": agents.Codex,
		"real/codex/codemie/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl": agents.Codex,
		"real/gemini/codemie/session-2025-12-01T21-45-5b959dae.json":                                agents.Gemini,
		"real/gemini/codemie/session-2026-01-16T11-01-file-ops-37b7abef.json":                       agents.Gemini,
		"real/gemini/vct/gemini.jsonl":                                                              agents.Gemini,
		"claude-code/sample_session.jsonl":                                                          agents.ClaudeCode,
		"codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl":              agents.Codex,
		"gemini/session-2026-03-12T10-15-4f1c2a9b.jsonl":                                            agents.Gemini,
	}
	for rel, want := range cases {
		d, err := capture.DetectFile(filepath.Join(samplesDir, rel))
		if err != nil || string(d.Agent) != want {
			t.Errorf("%s: %+v, %v; want %s", rel, d, err, want)
		}
	}
	d, err := capture.DetectFile(filepath.Join(samplesDir, "real/gemini/codemie/logs.json"))
	if err != nil || d.Agent != "" || !d.Foreign || !strings.Contains(d.What, "prompt log") {
		t.Errorf("logs.json: %+v, %v", d, err)
	}
}

// What no reader takes is described as what it looks like, and JSON of no
// known format names every agent whose transcripts are read.
func TestDetectOthers(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "an empty file",
		"hello\n":                          "not JSON",
		`[1,2]`:                            "a JSON array",
		`{"type":"thread.started"}` + "\n": "codex exec --json",
		`{"type":"system","subtype":"init","session_id":"x"}` + "\n": "stream-json",
		`{"a":1}` + "\n":    "JSON Lines of no transcript format known",
		"{\n \"x\": 1\n}\n": "JSON of no transcript format known",
	} {
		d := capture.Detect([]byte(in))
		if d.Agent != "" || !strings.Contains(d.What, want) {
			t.Errorf("Detect(%q) = %+v, want no agent and %q", in, d, want)
		}
		if !strings.Contains(want, "format known") {
			continue
		}
		for _, a := range agents.All() {
			if a.Transcripts != nil && !strings.Contains(d.What, a.Display) {
				t.Errorf("Detect(%q) = %q, which does not name %s", in, d.What, a.Display)
			}
		}
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte(`{"type":"user","sessionId":"s"}`))
	f.Add([]byte(`{"timestamp":"t","type":"session_meta","payload":{}}`))
	f.Add([]byte(`[{"sessionId":"s","messageId":0}]`))
	// The product each agent's description names: the first word of its
	// display name ("Codex" for "a Codex session rollout").
	product := map[string]string{}
	for _, a := range agents.All() {
		product[a.Name] = strings.Fields(a.Display)[0]
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := capture.Detect(b)
		if d.What == "" {
			t.Fatalf("Detect(%q) says nothing", b)
		}
		// An agent's transcript is never foreign, and is described as
		// that agent's.
		if d.Agent != "" && (d.Foreign || !strings.Contains(d.What, product[string(d.Agent)])) {
			t.Fatalf("Detect(%q) = %+v: an agent's transcript, described as %q", b, d, d.What)
		}
		// Only JSON can be a transcript: the first byte after leading
		// white space and byte order marks is { or [.
		if first := bytes.TrimLeft(b, " \t\r\n\ufeff"); d.Agent != "" && (len(first) == 0 || first[0] != '{') {
			t.Fatalf("Detect(%q) = %+v: no JSON object, yet an agent's", b, d)
		}
		// Leading white space and a byte order mark change nothing.
		if again := capture.Detect(append([]byte("\ufeff \n\t"), b...)); again != d {
			t.Fatalf("Detect(%q) = %+v, but with white space before it %+v", b, d, again)
		}
	})
}

// In a file that mixes agents' lines, the first line an agent claims
// decides, whichever agent comes first in the table: no folder needs to
// know another agent's lines to leave the file to it.
func TestDetectFirstClaimedLineDecides(t *testing.T) {
	const (
		claude     = `{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"hi"}}`
		rollout    = `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`
		bareMeta   = `{"id":"x","instructions":"y"}`
		execEvent  = `{"type":"thread.started","thread_id":"t"}`
		geminiHead = `{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z"}`
		geminiSet  = `{"$set":{"summary":"x"}}`
		printMode  = `{"type":"system","subtype":"init","session_id":"s"}`
		qwenLine   = `{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","parts":[{"text":"hi"}]}}`
	)
	for _, c := range []struct {
		name, first, then string
		agent             string
		foreign           bool
	}{
		{"a rollout line", rollout, claude, agents.Codex, false},
		{"a rollout's bare meta line", bareMeta, claude, agents.Codex, false},
		{"a codex exec event", execEvent, claude, "", true},
		{"a Gemini CLI head", geminiHead, claude, agents.Gemini, false},
		{"a Gemini CLI $set", geminiSet, claude, agents.Gemini, false},
		{"Claude Code's print mode", printMode, rollout, "", true},
		{"a Claude Code line", claude, rollout, agents.ClaudeCode, false},
		{"a Claude Code line before Gemini's", claude, geminiSet, agents.ClaudeCode, false},
		{"a line of no agent", `{"kind":"other"}`, claude, agents.ClaudeCode, false},
		{"a $set of null", `{"$set":null}`, claude, agents.ClaudeCode, false},
		{"a line of Gemini's Content, no Claude Code line", qwenLine, rollout, agents.Codex, false},
	} {
		d := capture.Detect([]byte(c.first + "\n" + c.then + "\n"))
		if string(d.Agent) != c.agent || d.Foreign != c.foreign {
			t.Errorf("%s first: %+v, want agent %q foreign %v", c.name, d, c.agent, c.foreign)
		}
	}
	// The foreign outputs are their agents' own words.
	if d := capture.Detect([]byte(execEvent + "\n")); !strings.Contains(d.What, "codex exec --json") {
		t.Errorf("exec stream: %+v", d)
	}
	if d := capture.Detect([]byte(printMode + "\n")); !strings.Contains(d.What, "stream-json") {
		t.Errorf("print mode: %+v", d)
	}
}

// Each SQLite database an agent wrote is recognised as its own by the
// table's detectors in order: Kilo Code's (OpenCode's layout) is neither
// OpenCode's nor taken by Crush's guess at a schema past the first page.
func TestDetectRealDatabases(t *testing.T) {
	for _, c := range []struct{ dir, file, want string }{
		{"opencode/testdata/real-e2e/work", "opencode.db", "opencode"},
		{"kilo/testdata/real-e2e/work", "kilo.db", "kilo"},
		{"kilo/testdata/real-e2e/briefed", "kilo.db", "kilo"},
		{"crush/testdata/real-e2e/work", "crush.db", "crush"},
		// After VACUUM (or rebuilt from a dump, as users copy them) the
		// schema starts past the first page (issue 45).
		{"opencode/testdata/vacuumed", "opencode.db", "opencode"},
		{"kilo/testdata/vacuumed", "kilo.db", "kilo"},
	} {
		dir := t.TempDir()
		expect.Gunzip(t, c.dir, dir, c.file)
		d, err := capture.DetectFile(filepath.Join(dir, c.file))
		if err != nil || string(d.Agent) != c.want {
			t.Errorf("%s/%s: %+v, %v; want %s", c.dir, c.file, d, err, c.want)
		}
	}
}

// A database after VACUUM reads as the database it was made from.
func TestVacuumedDatabaseReadsTheSame(t *testing.T) {
	for _, c := range []struct{ name, orig, vacuumed, file string }{
		{"opencode", "opencode/testdata/real-e2e/work", "opencode/testdata/vacuumed", "opencode.db"},
		{"kilo", "kilo/testdata/real-e2e/briefed", "kilo/testdata/vacuumed", "kilo.db"},
	} {
		orig, vac := t.TempDir(), t.TempDir()
		expect.Gunzip(t, c.orig, orig, c.file, c.file+"-wal")
		expect.Gunzip(t, c.vacuumed, vac, c.file)
		want, err := readAs(c.name, filepath.Join(orig, c.file), transcript.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAs(c.name, filepath.Join(vac, c.file), transcript.Limits{})
		if err != nil {
			t.Fatalf("%s vacuumed: %v", c.name, err)
		}
		if w, g := comparable(t, want, orig), comparable(t, got, vac); w != g {
			t.Errorf("%s vacuumed reads otherwise:\n got %s\nwant %s", c.name, g, w)
		}
	}
}

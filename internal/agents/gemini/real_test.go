package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realE2EDir holds the recordings Gemini CLI wrote in the end-to-end
// suite against a scripted model (see its SOURCES.md), so that what the
// model did, and so what each digest must hold, is known exactly.
const realE2EDir = "testdata/real-e2e"

// realE2EExpectations are established from the scripts that made the
// files, not from the reader's output.
var realE2EExpectations = []struct {
	file string
	want expect.Want
}{
	// Gemini CLI records the absolute path the model gave write_file.
	{"work/session-2026-11-27T09-10-505c8add.jsonl", expect.Want{
		Title: "add a greeting file and check the tree", Requests: []string{"add a greeting file and check the tree"},
		Files:       map[string]expect.File{"/tmp/TestCaptureAndBriefgemini1023584904/001/project/hello.txt": {Action: "created", Edits: 1}},
		NumCommands: 1, Commands: []expect.Command{{Prefix: "git status --short", Exit: expect.Exit(0), Count: 1, Status: "ok"}}}},
	{"mcp/session-2026-11-27T09-11-1d9f848a.jsonl", expect.Want{
		Title: "save a handoff, list them, then resume", Requests: []string{"save a handoff, list them, then resume"}}},
	// The briefing and the prompt are one text (<hook_context>…</hook_context>
	// and "what next?"): the prompt is the request and the title.
	{"briefed/session-2026-11-27T09-10-17168af1.jsonl", expect.Want{
		Title: "what next?", Requests: []string{"what next?"}}},
	// Resumed ($set.messages puts the first run's messages back), then
	// compressed ($set.messages drops them again): each request once; the
	// briefed prompt kept. The scripted model answered "check the tree"
	// with the snapshot text, so that is the last message too.
	{"compaction/session-2026-11-27T09-12-434dc8a2.jsonl", expect.Want{
		Title: "add a greeting file", Requests: []string{"add a greeting file", "check the tree"},
		Files:      map[string]expect.File{"/tmp/TestCompactiongemini3573133766/001/project/hello.txt": {Action: "created", Edits: 1}},
		Compaction: "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."}},
	// TestFailedEditAndShellMoves: replace of keep.txt finds no
	// old_string (its fix-up, asked of the scripted model, finds none):
	// a failed edit, no change; git mv and rm are commands, their files
	// capture's (from git). Then resumed headless (--resume latest -p):
	// Gemini CLI 0.61.0 writes the resumed run into the same file (a
	// second metadata line, $set.messages), so one file, one session.
	{"fidelity/session-2026-11-29T06-25-62cbd583.jsonl", expect.Want{
		Title: "tidy the project", Requests: []string{"tidy the project", "anything left?"},
		NumCommands: 2, Commands: []expect.Command{{Prefix: "git mv old.txt new.txt", Exit: expect.Exit(0), Count: 1, Status: "ok"},
			{Prefix: "rm gone.txt", Exit: expect.Exit(0), Count: 1, Status: "ok"}},
		FailedEdits: map[string]expect.FailedEdit{"/tmp/TestFailedEditAndShellMovesgemini81426750/001/project/keep.txt": {Count: 1}}}},
	// TestSubagentWork: invoke_agent runs the generalist, whose
	// recording lies in chats/<session id>/: its write of sub.txt is the
	// subagent's, its prompt no request.
	{"subagent/session-2026-11-29T06-35-068e1db5.jsonl", expect.Want{
		Title: "have a subagent write sub.txt", Requests: []string{"have a subagent write sub.txt"},
		Files: map[string]expect.File{"/tmp/TestSubagentWorkgemini973441100/001/project/sub.txt": {Action: "created", Edits: 1,
			By: "subagent d125a1b9-bfe7-40ea-8e2b-598b495cd92d"}}}},
}

func TestRealE2ETranscripts(t *testing.T) {
	for _, e := range realE2EExpectations {
		t.Run(e.file, func(t *testing.T) {
			d := readFileT(t, filepath.Join(realE2EDir, e.file))
			expect.Check(t, expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}, e.want, marks)
		})
	}
}

// TestRealE2ETranscriptsCovered: every transcript kept has an
// expectation, and every expectation its transcript.
func TestRealE2ETranscriptsCovered(t *testing.T) {
	have := map[string]bool{}
	for _, e := range realE2EExpectations {
		have[e.file] = true
	}
	expect.Covered(t, realE2EDir, "*/*.jsonl", have)
}

// Gemini CLI writes no version of its own into a recording.
func TestVersionUnknown(t *testing.T) {
	d := readFileT(t, filepath.Join(realE2EDir, "work/session-2026-11-27T09-10-505c8add.jsonl"))
	if d.Session.AgentVersion != "" || d.Session.AgentVersionSource != handoff.VersionUnknown {
		t.Errorf("version %q from %q", d.Session.AgentVersion, d.Session.AgentVersionSource)
	}
}

// geminiSample is the hand-made sample recording (testdata/transcripts/gemini).
const geminiSample = "session-2026-03-12T10-15-4f1c2a9b.jsonl"

func TestSampleGemini(t *testing.T) {
	d := readFileT(t, filepath.Join(samplesDir, "gemini", geminiSample))
	s := d.Session
	if s.ID != "4f1c2a9b-7d3e-4b6a-9c21-0e8f5d6a7b10" || d.CWD != "/home/dev/src/payments-api" {
		t.Errorf("id %q cwd %q", s.ID, d.CWD)
	}
	if d.Title != "Fix refund 500 on three-decimal amounts" {
		t.Errorf("title %q, want the $set summary", d.Title)
	}
	// replace and write_file, relative to the project root; the
	// touchedPaths of the $set name the same two files.
	if f := expect.FileAt(d.Files, "internal/refund/handler.go"); f == nil || f.Action != "edited" || f.Edits != 1 {
		t.Errorf("replace: %+v in %+v", f, d.Files)
	}
	if f := expect.FileAt(d.Files, "internal/refund/handler_test.go"); f == nil || f.Action != "created" {
		t.Errorf("write_file of a new file: %+v in %+v", f, d.Files)
	}
	if len(d.Files) != 2 {
		t.Errorf("files %+v (read_file is not an edit)", d.Files)
	}
	c := expect.CommandNamed(s.Commands, "go test ./internal/refund/...")
	if c == nil || c.ExitCode == nil || *c.ExitCode != 1 || !strings.Contains(c.Output, "TestRefundAmounts/negative") {
		t.Errorf("shell command: %+v", c)
	}
	if lf := s.LastFailure; lf == nil || lf.Command != "go test ./internal/refund/..." || lf.ExitCode == nil || *lf.ExitCode != 1 ||
		!strings.Contains(lf.Output, "want error for -1.00, got nil") {
		t.Errorf("last failure %+v", lf)
	}
	if !strings.HasPrefix(expect.LastRequest(s), "Stop here") || !strings.Contains(s.LastAgentMessage, "reject negative amounts") {
		t.Errorf("requests %q, last message %q", s.Requests, s.LastAgentMessage)
	}
	if tk := s.Tokens; tk == nil || tk.CacheRead != 8000 || tk.Input != 8412+9120-8000 || tk.Output != 57+112+88+64 {
		t.Errorf("tokens %+v", tk)
	}
	if out, _ := json.Marshal(d); strings.Contains(string(out), "Amounts are probably parsed with float64") {
		t.Errorf("the model's thoughts reached the digest")
	}
}

// /init is the request, not the prompt it expands to, also in a recording
// made before Gemini CLI kept displayContent (v0.28.0, commit bb6a336c):
// the real JSONL recording of gemini/vct with its displayContent taken
// out, and the older single-object form holding the same prompt.
func TestGeminiInitWithoutDisplayContent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realDir, "gemini/vct/gemini.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const display = `,"displayContent":[{"text":"/init"}]`
	if strings.Count(string(data), display) != 1 {
		t.Fatalf("the recording does not hold %s once", display)
	}
	stripped := strings.Replace(string(data), display, "", 1)
	d := mustRead(t, gemini, stripped)
	if want := "/init"; len(d.Session.Requests) == 0 || d.Session.Requests[0] != want {
		t.Errorf("requests %q, want %q first", d.Session.Requests, want)
	}
	// The prompt, as the JSONL line holds it.
	var prompt string
	for _, line := range strings.Split(stripped, "\n") {
		if strings.Contains(line, "You are an AI agent that brings the power of Gemini") {
			// the last member of the line: "content":[{"text":…}]}
			_, after, _ := strings.Cut(line, `"content":`)
			prompt = strings.TrimSuffix(strings.TrimSpace(after), "}")
		}
	}
	if prompt == "" {
		t.Fatal("no /init prompt in the recording")
	}
	legacy := `{
  "sessionId": "s", "projectHash": "h", "startTime": "2025-12-01T10:00:00Z", "lastUpdated": "2025-12-01T10:05:00Z",
  "messages": [
    {"id": "1", "timestamp": "2025-12-01T10:00:00Z", "type": "user", "content": ` + prompt + `},
    {"id": "2", "timestamp": "2025-12-01T10:01:00Z", "type": "gemini", "content": "Created GEMINI.md."},
    {"id": "3", "timestamp": "2025-12-01T10:02:00Z", "type": "user", "content": "now add a section on tests"}
  ]
}
`
	d = mustRead(t, gemini, legacy)
	if got := strings.Join(d.Session.Requests, "|"); got != "/init|now add a section on tests" {
		t.Errorf("requests %q", d.Session.Requests)
	}
	if d.Title != "now add a section on tests" {
		t.Errorf("title %q: a bare slash command says what was run, not the work", d.Title)
	}
}

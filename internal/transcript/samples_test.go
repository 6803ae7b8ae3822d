package transcript

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
)

// Hand-written checks of the facts that matter in each sample transcript, so
// that a golden file rewritten by mistake cannot hide a regression.

const (
	codexSample    = "rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
	codexSubagent  = "rollout-2026-01-03T04-05-10-33333333-3333-4333-8333-333333333333.jsonl"
	geminiSample   = "session-2026-03-12T10-15-4f1c2a9b.jsonl"
	encryptedToken = "SYNTHETIC_ENCRYPTED_CONTENT_MUST_NOT_RENDER"
)

func findCommand(s handoff.Session, cmd string) *handoff.Command {
	for i := range s.Commands {
		if s.Commands[i].Command == cmd {
			return &s.Commands[i]
		}
	}
	return nil
}

func findFile(d *Digest, path string) *handoff.FileTouched {
	for i := range d.Files {
		if d.Files[i].Path == path {
			return &d.Files[i]
		}
	}
	return nil
}

func lastRequest(s handoff.Session) string {
	if len(s.Requests) == 0 {
		return ""
	}
	return s.Requests[len(s.Requests)-1]
}

func TestSampleClaudeSession(t *testing.T) {
	d := readSample(t, ClaudeCode, "sample_session.jsonl")
	s := d.Session
	// The summary line's leaf (test-leaf-uuid) is no line of this file:
	// it is another session's summary, so the first request is the title.
	if d.Title != "Create a hello world function" {
		t.Errorf("title %q, want the first request", d.Title)
	}
	if d.CWD != "/project" || d.GitBranch != "main" || s.ID != "test-session-id" {
		t.Errorf("cwd %q branch %q id %q", d.CWD, d.GitBranch, s.ID)
	}
	if len(s.Requests) != 2 || s.Requests[0] != "Create a hello world function" || lastRequest(s) != "Now add a goodbye function" {
		t.Errorf("requests %q", s.Requests)
	}
	c := findCommand(s, "git add . && git commit -m 'Add hello function'")
	if c == nil || c.ExitCode == nil || *c.ExitCode != 0 || c.Count != 1 || c.Output != "" {
		t.Errorf("git commit command: %+v in %+v", c, s.Commands)
	}
	if f := findFile(d, "hello.py"); f == nil || f.Action != "created" || f.Edits != 1 {
		t.Errorf("hello.py (Write of a new path, relative to cwd): %+v in %+v", f, d.Files)
	}
	if s.LastAgentMessage != "Done! The hello function is ready." {
		t.Errorf("last agent message %q", s.LastAgentMessage)
	}
	if s.LastFailure != nil || s.SkippedRecords != 0 {
		t.Errorf("last failure %+v, skipped %d", s.LastFailure, s.SkippedRecords)
	}
}

// The todo list, title and requests are in sampleExpectations.
func TestSampleClaudeTodoWrite(t *testing.T) {
	d := readSample(t, ClaudeCode, "todowrite_examples.jsonl")
	// Usage is summed over the assistant messages.
	if tk := d.Session.Tokens; tk == nil || tk.Input != 20+25+150+168+250+270 || tk.Output != 25+85+18+85+20+95 {
		t.Errorf("tokens %+v", tk)
	}
}

func TestSampleClaudeEdgeCases(t *testing.T) {
	d := readSample(t, ClaudeCode, "edge_cases.jsonl")
	s := d.Session
	// "massive error", 42 and [1] are not objects; {"silly":"this"} has no
	// known type.
	if d.Stats.Malformed != 3 || d.Stats.Unknown != 1 || s.SkippedRecords != 4 {
		t.Errorf("stats %+v, skipped %d", d.Stats, s.SkippedRecords)
	}
	var special, caveat, command bool
	for _, r := range s.Requests {
		special = special || strings.Contains(r, "café, naïve, résumé, 中文, العربية, русский, 🎉 emojis 🚀 and symbols ∑∆√π∞")
		caveat = caveat || strings.Contains(r, "Caveat:") || strings.Contains(r, "local-command-stdout")
		command = command || r == "test-command --verbose --output /tmp/test.log"
	}
	if !special || caveat || !command {
		t.Errorf("requests (special %v, injected caveat %v, slash command %v): %q", special, caveat, command, s.Requests)
	}
	if len(s.Requests) < 2 || len(s.Requests[1]) > MaxEarlierRequest || !strings.HasSuffix(s.Requests[1], "…") {
		t.Errorf("the long earlier request is not shortened to %d bytes: %q", MaxEarlierRequest, s.Requests)
	}
	if f := findFile(d, "complex_example.py"); f == nil || f.Action != "edited" || f.Edits != 1 {
		t.Errorf("MultiEdit file: %+v in %+v", f, d.Files)
	}
	if len(d.Title) > MaxTitle || !strings.HasPrefix(d.Title, "Tested various edge cases") {
		t.Errorf("title %q", d.Title)
	}
}

func TestSampleClaudeMinimal(t *testing.T) {
	d := readSample(t, ClaudeCode, "minimal_with_summary.jsonl")
	s := d.Session
	if s.AgentVersion != "2.0.35" || s.ID != "session-123" || d.CWD != "/test" || d.Title != "test message" { // leaf-123 is not in the file
		t.Errorf("version %q id %q cwd %q title %q", s.AgentVersion, s.ID, d.CWD, d.Title)
	}
	if s.Tokens == nil || *s.Tokens != (handoff.Tokens{Input: 100, Output: 50}) {
		t.Errorf("tokens %+v", s.Tokens)
	}
	if s.LastAgentMessage != "response" || lastRequest(s) != "test message" {
		t.Errorf("last message %q, requests %q", s.LastAgentMessage, s.Requests)
	}
}

func TestSampleCodex(t *testing.T) {
	d := readSample(t, Codex, codexSample)
	s := d.Session
	if s.ID != "11111111-1111-4111-8111-111111111111" || s.AgentVersion != "0.0.0-test" || d.CWD != "/workspace/synthetic-project" {
		t.Errorf("id %q version %q cwd %q", s.ID, s.AgentVersion, d.CWD)
	}
	// The user's text is there twice (event and response item): once here.
	if len(s.Requests) != 1 || s.Requests[0] != "List the synthetic files." {
		t.Errorf("requests %q", s.Requests)
	}
	c := findCommand(s, "find . -maxdepth 1 -type f")
	if c == nil || c.Count != 1 {
		t.Fatalf("exec_command: %+v in %+v", c, s.Commands)
	}
	// The output does not say how the command ended, so neither do we.
	if c.ExitCode != nil {
		t.Errorf("exit code %d, but the transcript does not give one", *c.ExitCode)
	}
	if len(s.Commands) != 1 {
		t.Errorf("only the exec_command is a command (not the MCP call): %+v", s.Commands)
	}
	if f := findFile(d, "gamma.txt"); f == nil || f.Action != "created" || len(d.Files) != 1 {
		t.Errorf("apply_patch Add File: %+v in %+v", f, d.Files)
	}
	if d.Stats.Unknown != 1 || s.SkippedRecords != 1 {
		t.Errorf("the future record type is not counted: %+v", d.Stats)
	}
	if s.LastAgentMessage != "The synthetic files are alpha.txt and beta.txt." {
		t.Errorf("last agent message %q", s.LastAgentMessage)
	}
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), encryptedToken) || strings.Contains(string(out), "inspect the synthetic directory") {
		t.Errorf("reasoning reached the digest: %s", out)
	}
}

func TestSampleCodexSubagent(t *testing.T) {
	d := readSample(t, Codex, codexSubagent)
	s := d.Session
	if s.ID != "33333333-3333-4333-8333-333333333333" || d.CWD != "/workspace/synthetic-project" {
		t.Errorf("session_meta with an object source: id %q cwd %q", s.ID, d.CWD)
	}
	if lastRequest(s) != "Inspect fixtures." || s.LastAgentMessage != "The fixtures are fully synthetic." {
		t.Errorf("requests %q, last message %q", s.Requests, s.LastAgentMessage)
	}
	if len(s.Commands) != 0 {
		t.Errorf("spawn_agent is not a shell command: %+v", s.Commands)
	}
}

func TestSampleGemini(t *testing.T) {
	d := readSample(t, Gemini, geminiSample)
	s := d.Session
	if s.ID != "4f1c2a9b-7d3e-4b6a-9c21-0e8f5d6a7b10" || d.CWD != "/home/dev/src/payments-api" {
		t.Errorf("id %q cwd %q", s.ID, d.CWD)
	}
	if d.Title != "Fix refund 500 on three-decimal amounts" {
		t.Errorf("title %q, want the $set summary", d.Title)
	}
	// replace and write_file, relative to the project root; the
	// touchedPaths of the $set name the same two files.
	if f := findFile(d, "internal/refund/handler.go"); f == nil || f.Action != "edited" || f.Edits != 1 {
		t.Errorf("replace: %+v in %+v", f, d.Files)
	}
	if f := findFile(d, "internal/refund/handler_test.go"); f == nil || f.Action != "created" {
		t.Errorf("write_file of a new file: %+v in %+v", f, d.Files)
	}
	if len(d.Files) != 2 {
		t.Errorf("files %+v (read_file is not an edit)", d.Files)
	}
	c := findCommand(s, "go test ./internal/refund/...")
	if c == nil || c.ExitCode == nil || *c.ExitCode != 1 || !strings.Contains(c.Output, "TestRefundAmounts/negative") {
		t.Errorf("shell command: %+v", c)
	}
	if lf := s.LastFailure; lf == nil || lf.Command != "go test ./internal/refund/..." || lf.ExitCode == nil || *lf.ExitCode != 1 ||
		!strings.Contains(lf.Output, "want error for -1.00, got nil") {
		t.Errorf("last failure %+v", lf)
	}
	if !strings.HasPrefix(lastRequest(s), "Stop here") || !strings.Contains(s.LastAgentMessage, "reject negative amounts") {
		t.Errorf("requests %q, last message %q", s.Requests, s.LastAgentMessage)
	}
	if tk := s.Tokens; tk == nil || tk.CacheRead != 8000 || tk.Input != 8412+9120-8000 || tk.Output != 57+112+88+64 {
		t.Errorf("tokens %+v", tk)
	}
	if out, _ := json.Marshal(d); strings.Contains(string(out), "Amounts are probably parsed with float64") {
		t.Errorf("the model's thoughts reached the digest")
	}
}

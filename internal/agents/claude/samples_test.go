package claude

import (
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

func TestSampleClaudeSession(t *testing.T) {
	d := readSample(t, "sample_session.jsonl")
	s := d.Session
	// The summary line's leaf (test-leaf-uuid) is no line of this file:
	// it is another session's summary, so the first request is the title.
	if d.Title != "Create a hello world function" {
		t.Errorf("title %q, want the first request", d.Title)
	}
	if d.CWD != "/project" || d.GitBranch != "main" || s.ID != "test-session-id" {
		t.Errorf("cwd %q branch %q id %q", d.CWD, d.GitBranch, s.ID)
	}
	if len(s.Requests) != 2 || s.Requests[0] != "Create a hello world function" || expect.LastRequest(s) != "Now add a goodbye function" {
		t.Errorf("requests %q", s.Requests)
	}
	c := expect.CommandNamed(s.Commands, "git add . && git commit -m 'Add hello function'")
	if c == nil || c.ExitCode == nil || *c.ExitCode != 0 || c.Count != 1 || c.Output != "" {
		t.Errorf("git commit command: %+v in %+v", c, s.Commands)
	}
	if f := expect.FileAt(d.Files, "hello.py"); f == nil || f.Action != "created" || f.Edits != 1 {
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
	d := readSample(t, "todowrite_examples.jsonl")
	// Usage is summed over the assistant messages.
	if tk := d.Session.Tokens; tk == nil || tk.Input != 20+25+150+168+250+270 || tk.Output != 25+85+18+85+20+95 {
		t.Errorf("tokens %+v", tk)
	}
}

func TestSampleClaudeEdgeCases(t *testing.T) {
	d := readSample(t, "edge_cases.jsonl")
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
	if f := expect.FileAt(d.Files, "complex_example.py"); f == nil || f.Action != "edited" || f.Edits != 1 {
		t.Errorf("MultiEdit file: %+v in %+v", f, d.Files)
	}
	if len(d.Title) > MaxTitle || !strings.HasPrefix(d.Title, "Tested various edge cases") {
		t.Errorf("title %q", d.Title)
	}
}

func TestSampleClaudeMinimal(t *testing.T) {
	d := readSample(t, "minimal_with_summary.jsonl")
	s := d.Session
	if s.AgentVersion != "2.0.35" || s.ID != "session-123" || d.CWD != "/test" || d.Title != "test message" { // leaf-123 is not in the file
		t.Errorf("version %q id %q cwd %q title %q", s.AgentVersion, s.ID, d.CWD, d.Title)
	}
	if s.Tokens == nil || *s.Tokens != (handoff.Tokens{Input: 100, Output: 50}) {
		t.Errorf("tokens %+v", s.Tokens)
	}
	if s.LastAgentMessage != "response" || expect.LastRequest(s) != "test message" {
		t.Errorf("last message %q, requests %q", s.LastAgentMessage, s.Requests)
	}
}

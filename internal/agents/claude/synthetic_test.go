package claude

import (
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

func TestClaudeCompaction(t *testing.T) {
	d := mustRead(t, claude, expect.Lines(
		`{"type":"user","uuid":"u1","parentUuid":null,"cwd":"/w","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"Port the parser to Go"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./parser"}}]}}`,
		`{"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 1\n--- FAIL: TestParse (0.00s)"}]}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":null,"logicalParentUuid":"r1","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":155000}}`,
		`{"type":"user","uuid":"c2","parentUuid":"c1","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"message":{"role":"user","content":"This session is being continued from a previous conversation. Summary: parser/lexer.go half ported; TestParse fails on nested quotes."}}`,
		`{"type":"user","uuid":"u2","parentUuid":"c2","timestamp":"2026-01-01T01:00:00Z","message":{"role":"user","content":"Carry on"}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"u2","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Continuing with the lexer."}]}}`,
	))
	s := d.Session
	if !strings.Contains(s.CompactionSummary, "TestParse fails on nested quotes") {
		t.Errorf("compaction summary %q", s.CompactionSummary)
	}
	// The chain crosses the boundary, so what came before still counts.
	if len(s.Requests) != 2 || s.Requests[0] != "Port the parser to Go" || s.Requests[1] != "Carry on" {
		t.Errorf("requests %q (the summary is not a request)", s.Requests)
	}
	if lf := s.LastFailure; lf == nil || lf.Command != "go test ./parser" || lf.ExitCode == nil || *lf.ExitCode != 1 || !strings.Contains(lf.Output, "FAIL: TestParse") {
		t.Errorf("last failure %+v", lf)
	}
}

func TestClaudeOlderCompaction(t *testing.T) {
	d := mustRead(t, claude, expect.Lines(
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The conversation is summarized below: tests in pkg/a fail."}}`,
		`{"type":"user","uuid":"u2","parentUuid":"u1","message":{"role":"user","content":"go on"}}`,
	))
	if !strings.Contains(d.Session.CompactionSummary, "pkg/a fail") || strings.Join(d.Session.Requests, "|") != "go on" {
		t.Errorf("compaction %q requests %q", d.Session.CompactionSummary, d.Session.Requests)
	}
}

func TestClaudeRewindFollowsNewestBranch(t *testing.T) {
	d := mustRead(t, claude, expect.Lines(
		`{"type":"user","uuid":"u1","parentUuid":null,"cwd":"/w","message":{"role":"user","content":"Fix the bug"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Looking."}]}}`,
		// The abandoned branch.
		`{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":"Delete the tests"}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"u2","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"rm -rf tests"}},{"type":"tool_use","id":"t3","name":"Write","input":{"file_path":"/w/abandoned.go","content":"x"}}]}}`,
		// The user rewound to a1 and asked something else.
		`{"type":"user","uuid":"u3","parentUuid":"a1","message":{"role":"user","content":"Add a regression test"}}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"u3","message":{"id":"m3","role":"assistant","content":[{"type":"tool_use","id":"t4","name":"Edit","input":{"file_path":"/w/bug_test.go","old_string":"a","new_string":"b"}}]}}`,
		`{"type":"user","uuid":"r3","parentUuid":"a3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t4","content":"ok"}]}}`,
		// A subagent's line and an injected one are not the main thread.
		`{"type":"user","uuid":"x1","parentUuid":"r3","isSidechain":true,"message":{"role":"user","content":"subagent prompt"}}`,
		`{"type":"user","uuid":"x2","parentUuid":"r3","isMeta":true,"message":{"role":"user","content":"injected"}}`,
	))
	s := d.Session
	if strings.Join(s.Requests, "|") != "Fix the bug|Add a regression test" {
		t.Errorf("requests %q", s.Requests)
	}
	if len(s.Commands) != 0 || expect.FileAt(d.Files, "abandoned.go") != nil {
		t.Errorf("the abandoned branch leaked: %+v %+v", s.Commands, d.Files)
	}
	if f := expect.FileAt(d.Files, "bug_test.go"); f == nil || f.Action != "edited" {
		t.Errorf("files %+v", d.Files)
	}
}

func TestClaudeParallelResultsOffTheChain(t *testing.T) {
	d := mustRead(t, claude, expect.Lines(
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"check both"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go vet ./..."}}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"m","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"go test ./..."}}]}}`,
		// The first result answers a1 and is left off the chain.
		`{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 1\nvet: x"}]}}`,
		`{"type":"user","uuid":"r2","parentUuid":"a2","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"r2","message":{"id":"m3","content":[{"type":"text","text":"vet fails"}]}}`,
	))
	if c := expect.CommandNamed(d.Session.Commands, "go vet ./..."); c == nil || c.ExitCode == nil || *c.ExitCode != 1 {
		t.Errorf("commands %+v", d.Session.Commands)
	}
}

func TestClaudeCommandOutcomes(t *testing.T) {
	d := mustRead(t, claude, expect.Lines(
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"Make the build pass"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}`,
		`{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"Exit code 2\nmake: *** [all] Error 2"}]}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"r1","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/repo/Makefile"}},{"type":"tool_use","id":"t3","name":"Write","input":{"file_path":"/repo/Makefile","content":"all:"}}]}}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"a2","message":{"id":"m3","content":[{"type":"tool_use","id":"t4","name":"Write","input":{"file_path":"/repo/broken.go","content":"x"}}]}}`,
		`{"type":"user","uuid":"r4","parentUuid":"a3","message":{"content":[{"type":"tool_result","tool_use_id":"t4","is_error":true,"content":"permission denied"}]}}`,
		`{"type":"assistant","uuid":"a4","parentUuid":"r4","message":{"id":"m4","content":[{"type":"tool_use","id":"t5","name":"Bash","input":{"command":"make"}}]}}`,
		`{"type":"user","uuid":"r5","parentUuid":"a4","message":{"content":[{"type":"tool_result","tool_use_id":"t5","content":"ok"}]}}`,
		`{"type":"assistant","uuid":"a5","parentUuid":"r5","message":{"id":"m5","content":[{"type":"tool_use","id":"t6","name":"Bash","input":{"command":"npm run dev"}}]}}`,
		`{"type":"user","uuid":"r6","parentUuid":"a5","message":{"content":[{"type":"tool_result","tool_use_id":"t6","content":"Command running in background with ID: b1"}]}}`,
	))
	s := d.Session
	mk := expect.CommandNamed(s.Commands, "make")
	if mk == nil || mk.Count != 2 || mk.ExitCode == nil || *mk.ExitCode != 0 || mk.Output != "" {
		t.Errorf("make, failed then passed: %+v", mk)
	}
	if s.LastFailure != nil {
		t.Errorf("a later success of the same command clears the failure: %+v", s.LastFailure)
	}
	if dev := expect.CommandNamed(s.Commands, "npm run dev"); dev == nil || dev.ExitCode != nil {
		t.Errorf("a background command has no exit code yet: %+v", dev)
	}
	if f := expect.FileAt(d.Files, "/repo/Makefile"); f == nil || f.Action != "edited" {
		t.Errorf("Write of a file read before is an edit: %+v", d.Files)
	}
	if expect.FileAt(d.Files, "/repo/broken.go") != nil {
		t.Errorf("a failed Write is no edit: %+v", d.Files)
	}
}

func TestClaudeTitles(t *testing.T) {
	base := `{"type":"user","uuid":"u1","message":{"role":"user","content":"  first\n request  "}}`
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{nil, "first request"},
		{[]string{`{"type":"summary","summary":"From summary","leafUuid":"u1"}`}, "From summary"},
		// A summary whose leaf is not in the file is another session's
		// (a resumed session's file opens with them): not the title.
		{[]string{`{"type":"summary","summary":"Another session","leafUuid":"zz"}`}, "first request"},
		// /clear and other session commands are never a request or the title.
		{[]string{`{"type":"user","uuid":"u0","message":{"role":"user","content":"<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"}}`}, "first request"},
		{[]string{`{"type":"ai-title","aiTitle":"AI"}`, `{"type":"summary","summary":"S"}`}, "AI"},
		{[]string{`{"type":"custom-title","customTitle":"Mine"}`, `{"type":"ai-title","aiTitle":"AI"}`}, "Mine"},
	} {
		d := mustRead(t, claude, expect.Lines(append([]string{base}, c.extra...)...))
		if d.Title != c.want {
			t.Errorf("title %q, want %q", d.Title, c.want)
		}
	}
}

// A message that is no JSON object is no message: the line tells nothing,
// not even the todo list its toolUseResult holds, nor the compaction it is
// flagged as.
func TestClaudeMessageOfAnotherType(t *testing.T) {
	for _, line := range []string{
		`{"type":"user","uuid":"v","parentUuid":"u","message":"x","toolUseResult":{"newTodos":[{"content":"a","status":"pending"}]}}`,
		`{"type":"user","uuid":"v","parentUuid":"u","message":["x"],"isCompactSummary":true}`,
		`{"type":"assistant","uuid":"v","parentUuid":"u","message":42}`,
	} {
		d := mustRead(t, claude, expect.Lines(`{"type":"user","uuid":"u","sessionId":"s","message":{"content":"hi"}}`, line))
		s := d.Session
		if len(s.Todos) != 0 || s.CompactionSummary != "" || s.Tokens != nil || len(s.Requests) != 1 {
			t.Errorf("%s: todos %v, compaction %q, tokens %v, requests %q", line, s.Todos, s.CompactionSummary, s.Tokens, s.Requests)
		}
	}
}

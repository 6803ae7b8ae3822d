package transcript

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Small hand-made transcripts for behaviour the sample transcripts do not
// show: compaction, rewinds, exit codes, injected messages.

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func mustRead(t *testing.T, read func(string) (*Digest, error), in string) *Digest {
	t.Helper()
	d, err := read(in)
	if err != nil {
		t.Fatal(err)
	}
	checkRecordValid(t, d)
	return d
}

func claude(in string) (*Digest, error) { return ReadClaudeCode(strings.NewReader(in), Limits{}) }
func codex(in string) (*Digest, error)  { return ReadCodex(strings.NewReader(in), Limits{}) }
func gemini(in string) (*Digest, error) { return ReadGemini(strings.NewReader(in), Limits{}) }

func TestClaudeCompaction(t *testing.T) {
	d := mustRead(t, claude, lines(
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
	d := mustRead(t, claude, lines(
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The conversation is summarized below: tests in pkg/a fail."}}`,
		`{"type":"user","uuid":"u2","parentUuid":"u1","message":{"role":"user","content":"go on"}}`,
	))
	if !strings.Contains(d.Session.CompactionSummary, "pkg/a fail") || strings.Join(d.Session.Requests, "|") != "go on" {
		t.Errorf("compaction %q requests %q", d.Session.CompactionSummary, d.Session.Requests)
	}
}

func TestClaudeRewindFollowsNewestBranch(t *testing.T) {
	d := mustRead(t, claude, lines(
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
	if len(s.Commands) != 0 || findFile(d, "abandoned.go") != nil {
		t.Errorf("the abandoned branch leaked: %+v %+v", s.Commands, d.Files)
	}
	if f := findFile(d, "bug_test.go"); f == nil || f.Action != "edited" {
		t.Errorf("files %+v", d.Files)
	}
}

func TestClaudeParallelResultsOffTheChain(t *testing.T) {
	d := mustRead(t, claude, lines(
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"check both"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go vet ./..."}}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"m","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"go test ./..."}}]}}`,
		// The first result answers a1 and is left off the chain.
		`{"type":"user","uuid":"r1","parentUuid":"a1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 1\nvet: x"}]}}`,
		`{"type":"user","uuid":"r2","parentUuid":"a2","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"r2","message":{"id":"m3","content":[{"type":"text","text":"vet fails"}]}}`,
	))
	if c := findCommand(d.Session, "go vet ./..."); c == nil || c.ExitCode == nil || *c.ExitCode != 1 {
		t.Errorf("commands %+v", d.Session.Commands)
	}
}

func TestClaudeCommandOutcomes(t *testing.T) {
	d := mustRead(t, claude, lines(
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
	mk := findCommand(s, "make")
	if mk == nil || mk.Count != 2 || mk.ExitCode == nil || *mk.ExitCode != 0 || mk.Output != "" {
		t.Errorf("make, failed then passed: %+v", mk)
	}
	if s.LastFailure != nil {
		t.Errorf("a later success of the same command clears the failure: %+v", s.LastFailure)
	}
	if dev := findCommand(s, "npm run dev"); dev == nil || dev.ExitCode != nil {
		t.Errorf("a background command has no exit code yet: %+v", dev)
	}
	if f := findFile(d, "/repo/Makefile"); f == nil || f.Action != "edited" {
		t.Errorf("Write of a file read before is an edit: %+v", d.Files)
	}
	if findFile(d, "/repo/broken.go") != nil {
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
		d := mustRead(t, claude, lines(append([]string{base}, c.extra...)...))
		if d.Title != c.want {
			t.Errorf("title %q, want %q", d.Title, c.want)
		}
	}
}

func TestCodexOutcomesAndPatches(t *testing.T) {
	d := mustRead(t, codex, lines(
		`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s1","cwd":"/repo","cli_version":"0.50.0","git":{"branch":"feat"}}}`,
		`{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /repo\n\nbe nice"}]}}`,
		`{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"}]}}`,
		`{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Run the tests"}]}}`,
		`{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"cargo test\"],\"workdir\":\"/repo\"}","call_id":"c1"}}`,
		`{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"test result: FAILED. 1 failed\",\"metadata\":{\"exit_code\":101,\"duration_seconds\":1.5}}"}}`,
		`{"timestamp":"2026-01-01T00:00:05Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c2"}}`,
		`{"timestamp":"2026-01-01T00:00:06Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nsrc"}}`,
		`{"timestamp":"2026-01-01T00:00:07Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"false\"}","call_id":"c3"}}`,
		`{"timestamp":"2026-01-01T00:00:08Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c3","exit_code":1,"aggregated_output":"nope"}}`,
		`{"timestamp":"2026-01-01T00:00:08Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"nope"}}`,
		`{"timestamp":"2026-01-01T00:00:09Z","type":"turn_context","payload":{"cwd":"/repo/sub"}}`,
		`{"timestamp":"2026-01-01T00:00:10Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c4","input":"*** Begin Patch\n*** Update File: a.rs\n@@\n-x\n+y\n*** Update File: old.rs\n*** Move to: new.rs\n*** Delete File: gone.rs\n*** End Patch"}}`,
		`{"timestamp":"2026-01-01T00:00:11Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"apply_patch\",\"*** Begin Patch\\n*** Add File: /repo/b.rs\\n+x\\n*** End Patch\"]}","call_id":"c5"}}`,
		`{"timestamp":"2026-01-01T00:00:12Z","type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"Fix test\",\"status\":\"in_progress\"},{\"step\":\"Ship\",\"status\":\"pending\"}]}","call_id":"c6"}}`,
		`{"timestamp":"2026-01-01T00:00:13Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5000,"cached_input_tokens":3000,"output_tokens":700,"reasoning_output_tokens":200,"total_tokens":5700}}}}`,
		`{"timestamp":"2026-01-01T00:00:14Z","type":"compacted","payload":{"message":"Summary: cargo test fails in parser::nested"}}`,
		`{"timestamp":"2026-01-01T00:00:15Z","type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"gAAAA-secret"}}`,
	))
	s := d.Session
	if strings.Join(s.Requests, "|") != "Run the tests" {
		t.Errorf("requests %q (injected messages must go)", s.Requests)
	}
	if c := findCommand(s, "cargo test"); c == nil || c.ExitCode == nil || *c.ExitCode != 101 || !strings.Contains(c.Output, "FAILED") {
		t.Errorf("shell with JSON output: %+v", c)
	}
	if c := findCommand(s, "ls"); c == nil || c.ExitCode == nil || *c.ExitCode != 0 {
		t.Errorf("exec_command with 'Process exited with code': %+v", c)
	}
	if c := findCommand(s, "false"); c == nil || c.ExitCode == nil || *c.ExitCode != 1 {
		t.Errorf("exec_command_end exit code: %+v", c)
	}
	if lf := s.LastFailure; lf == nil || lf.Command != "false" {
		t.Errorf("last failure %+v", lf)
	}
	want := map[string]string{"sub/a.rs": "edited", "sub/old.rs": "deleted", "sub/new.rs": "created", "sub/gone.rs": "deleted", "b.rs": "created"}
	for p, a := range want {
		if f := findFile(d, p); f == nil || f.Action != a {
			t.Errorf("%s: %+v, want %s (files %+v)", p, f, a, d.Files)
		}
	}
	if len(s.Commands) != 3 {
		t.Errorf("apply_patch through the shell is no command: %+v", s.Commands)
	}
	if len(s.Todos) != 2 || s.Todos[0].Status != "in_progress" || s.Todos[1].Content != "Ship" {
		t.Errorf("todos %+v", s.Todos)
	}
	if tk := s.Tokens; tk == nil || tk.Input != 2000 || tk.CacheRead != 3000 || tk.Output != 700 {
		t.Errorf("tokens %+v", tk)
	}
	if !strings.Contains(s.CompactionSummary, "parser::nested") || d.GitBranch != "feat" {
		t.Errorf("compaction %q branch %q", s.CompactionSummary, d.GitBranch)
	}
	if out, _ := json.Marshal(d); strings.Contains(string(out), "gAAAA") {
		t.Error("encrypted reasoning reached the digest")
	}
}

func TestCodexRollback(t *testing.T) {
	d := mustRead(t, codex, lines(
		`{"type":"session_meta","payload":{"id":"s","cwd":"/r"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"one"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"one"}]}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"two"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"rm x\"}","call_id":"c"}}`,
		`{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"three"}}`,
		`{"type":"event_msg","payload":{"type":"thread_name_updated","thread_name":"Named thread"}}`,
	))
	if strings.Join(d.Session.Requests, "|") != "one|three" || len(d.Session.Commands) != 0 {
		t.Errorf("requests %q commands %+v", d.Session.Requests, d.Session.Commands)
	}
	if d.Title != "Named thread" {
		t.Errorf("title %q", d.Title)
	}
}

func TestGeminiRewindSetAndCompression(t *testing.T) {
	d := mustRead(t, gemini, lines(
		`{"sessionId":"g1","projectHash":"h","startTime":"2026-01-01T00:00:00Z","lastUpdated":"2026-01-01T00:00:00Z","directories":["/p"]}`,
		`{"id":"a","timestamp":"2026-01-01T00:00:01Z","type":"user","content":"first"}`,
		`{"id":"b","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":"","toolCalls":[{"id":"t1","name":"run_shell_command","args":{"command":"make"},"status":"executing"}]}`,
		// The same message again, now with its result: it replaces the first.
		`{"id":"b","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":"","toolCalls":[{"id":"t1","name":"run_shell_command","args":{"command":"make"},"status":"success","result":[{"functionResponse":{"id":"t1","name":"run_shell_command","response":{"output":"Command: make\nOutput: ok"}}}]}],"tokens":{"input":10,"output":2,"cached":0}}`,
		`{"id":"c","timestamp":"2026-01-01T00:00:03Z","type":"user","content":[{"text":"second"}]}`,
		`{"id":"d","timestamp":"2026-01-01T00:00:04Z","type":"gemini","content":"","toolCalls":[{"id":"t2","name":"write_file","args":{"file_path":"/p/rewound.txt"},"status":"success","result":"Successfully created and wrote to new file: /p/rewound.txt."}]}`,
		`{"$rewindTo":"c"}`,
		`{"id":"e","timestamp":"2026-01-01T00:00:05Z","type":"user","content":"third","displayContent":"third as typed"}`,
		`{"id":"f","timestamp":"2026-01-01T00:00:06Z","type":"gemini","content":[{"text":"thinking…","thought":true},{"text":"Will do."}],"toolCalls":[{"id":"t3","name":"replace","args":{"file_path":"/p/x.go"},"status":"error","result":"no match"},{"id":"t4","name":"write_todos","args":{"todos":[{"description":"Port x","status":"in_progress"},{"description":"Test x","status":"cancelled"}]},"status":"success"}]}`,
		`{"$set":{"messages":[{"id":"s1","type":"user","content":[{"text":"<state_snapshot>goal: port x; done: make passes</state_snapshot>"}]},{"id":"f","timestamp":"2026-01-01T00:00:06Z","type":"gemini","content":"Will do.","toolCalls":[{"id":"t4","name":"write_todos","args":{"todos":[{"description":"Port x","status":"in_progress"},{"description":"Test x","status":"cancelled"}]},"status":"success"}]}],"lastUpdated":"2026-01-01T00:00:07Z"}}`,
		`{"id":"g","timestamp":"2026-01-01T00:00:08Z","type":"user","content":"fourth"}`,
	))
	s := d.Session
	if strings.Join(s.Requests, "|") != "first|third as typed|fourth" {
		t.Errorf("requests %q", s.Requests)
	}
	if c := findCommand(s, "make"); c == nil || c.Count != 1 || c.ExitCode == nil || *c.ExitCode != 0 {
		t.Errorf("upserted command %+v", s.Commands)
	}
	if findFile(d, "rewound.txt") != nil || findFile(d, "x.go") != nil {
		t.Errorf("files %+v: rewound and failed edits must not show", d.Files)
	}
	if !strings.Contains(s.CompactionSummary, "make passes") {
		t.Errorf("compaction %q", s.CompactionSummary)
	}
	if len(s.Todos) != 2 || s.Todos[1].Status != "cancelled" {
		t.Errorf("todos %+v", s.Todos)
	}
	if s.LastAgentMessage != "Will do." {
		t.Errorf("last agent message %q (thoughts must not show)", s.LastAgentMessage)
	}
	if s.LastActivity == nil || s.LastActivity.Format("15:04:05") != "00:00:08" {
		t.Errorf("last activity %v", s.LastActivity)
	}
}

func TestGeminiLegacyJSON(t *testing.T) {
	in := `{
  "sessionId": "legacy-1",
  "projectHash": "abc",
  "startTime": "2025-09-01T10:00:00.000Z",
  "lastUpdated": "2025-09-01T10:05:00.000Z",
  "messages": [
    {"id": "1", "timestamp": "2025-09-01T10:00:01.000Z", "type": "user", "content": "Rename the flag"},
    {"id": "2", "timestamp": "2025-09-01T10:00:02.000Z", "type": "gemini", "content": "Done.",
     "toolCalls": [{"id": "t", "name": "replace", "args": {"file_path": "/proj/main.go"}, "status": "success"}]}
  ],
  "summary": "Flag rename"
}
`
	d := mustRead(t, gemini, in)
	if d.Session.ID != "legacy-1" || d.Title != "Flag rename" || lastRequest(d.Session) != "Rename the flag" || findFile(d, "/proj/main.go") == nil {
		t.Errorf("legacy digest %+v", d)
	}
	if _, err := gemini("{\n  \"sessionId\": \"x\",\n  \"messages\": [ {\"id\": \n"); err != nil {
		t.Errorf("a cut legacy file still gives what it has: %v", err)
	}
}

// A run the user refused is never merged with runs that happened: a
// rejected push, a push that ran, and another that ran are two lines.
func TestRefusedRunsStayApart(t *testing.T) {
	call := func(n int, cmd string) string {
		return fmt.Sprintf(`{"type":"assistant","uuid":"a%d","message":{"id":"m%d","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":%q}}]}}`, n, n, n, cmd)
	}
	d := mustRead(t, claude, lines(
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"push it"}}`,
		call(1, "git push"),
		`{"type":"user","uuid":"r1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected."}]}}`,
		call(2, "git push"),
		`{"type":"user","uuid":"r2","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}}`,
		call(3, "git push"),
		`{"type":"user","uuid":"r3","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"Everything up-to-date"}]}}`,
		call(4, "git push"),
		`{"type":"user","uuid":"r4","message":{"content":[{"type":"tool_result","tool_use_id":"t4","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected."}]}}`,
	))
	var got []string
	for _, c := range d.Session.Commands {
		got = append(got, fmt.Sprintf("%s %s x%d", c.Command, c.Status, c.Count))
	}
	if want := []string{"git push rejected x2", "git push ok x2"}; !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
	if d.Session.LastFailure != nil {
		t.Errorf("a refusal is no failure: %+v", d.Session.LastFailure)
	}
}

package codex

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// Hand-written checks of the facts that matter in each sample rollout, so
// that a golden file rewritten by mistake cannot hide a regression.

const (
	codexSample    = "rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
	codexSubagent  = "rollout-2026-01-03T04-05-10-33333333-3333-4333-8333-333333333333.jsonl"
	encryptedToken = "SYNTHETIC_ENCRYPTED_CONTENT_MUST_NOT_RENDER"
)

func TestSampleCodex(t *testing.T) {
	d := readFile(t, filepath.Join(samplesDir, "codex", codexSample))
	s := d.Session
	if s.ID != "11111111-1111-4111-8111-111111111111" || s.AgentVersion != "0.0.0-test" || d.CWD != "/workspace/synthetic-project" {
		t.Errorf("id %q version %q cwd %q", s.ID, s.AgentVersion, d.CWD)
	}
	// The user's text is there twice (event and response item): once here.
	if len(s.Requests) != 1 || s.Requests[0] != "List the synthetic files." {
		t.Errorf("requests %q", s.Requests)
	}
	c := expect.CommandNamed(s.Commands, "find . -maxdepth 1 -type f")
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
	if f := expect.FileAt(d.Files, "gamma.txt"); f == nil || f.Action != "created" || len(d.Files) != 1 {
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
	d := readFile(t, filepath.Join(samplesDir, "codex", codexSubagent))
	s := d.Session
	if s.ID != "33333333-3333-4333-8333-333333333333" || d.CWD != "/workspace/synthetic-project" {
		t.Errorf("session_meta with an object source: id %q cwd %q", s.ID, d.CWD)
	}
	if expect.LastRequest(s) != "Inspect fixtures." || s.LastAgentMessage != "The fixtures are fully synthetic." {
		t.Errorf("requests %q, last message %q", s.Requests, s.LastAgentMessage)
	}
	if len(s.Commands) != 0 {
		t.Errorf("spawn_agent is not a shell command: %+v", s.Commands)
	}
}

func TestCodexOutcomesAndPatches(t *testing.T) {
	d := mustRead(t, codex, expect.Lines(
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
	if c := expect.CommandNamed(s.Commands, "cargo test"); c == nil || c.ExitCode == nil || *c.ExitCode != 101 || !strings.Contains(c.Output, "FAILED") {
		t.Errorf("shell with JSON output: %+v", c)
	}
	if c := expect.CommandNamed(s.Commands, "ls"); c == nil || c.ExitCode == nil || *c.ExitCode != 0 {
		t.Errorf("exec_command with 'Process exited with code': %+v", c)
	}
	if c := expect.CommandNamed(s.Commands, "false"); c == nil || c.ExitCode == nil || *c.ExitCode != 1 {
		t.Errorf("exec_command_end exit code: %+v", c)
	}
	if lf := s.LastFailure; lf == nil || lf.Command != "false" {
		t.Errorf("last failure %+v", lf)
	}
	want := map[string]string{"sub/a.rs": "edited", "sub/old.rs": "deleted", "sub/new.rs": "created", "sub/gone.rs": "deleted", "b.rs": "created"}
	for p, a := range want {
		if f := expect.FileAt(d.Files, p); f == nil || f.Action != a {
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
	d := mustRead(t, codex, expect.Lines(
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

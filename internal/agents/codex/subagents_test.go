package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// Hand-made rollouts in the shapes Codex's sources give, for what no real
// rollout shows: subagents, goals, cancelled turns, plans, polls, declined
// calls. openai/codex codex-rs/protocol/src/protocol.rs (SessionMeta with
// source {"subagent": {"thread_spawn": {parent_thread_id, depth,
// agent_nickname, agent_role}}} and thread_source "subagent";
// ThreadGoalUpdatedEvent {threadId, turnId, goal: {objective, status,
// tokensUsed, timeUsedSeconds, createdAt, updatedAt}}; TurnAbortedEvent
// {turn_id, reason: "interrupted"}), as of its May 2026 sources.

const (
	cxParent = "019e2000-0000-7000-8000-000000000001"
	cxChild  = "019e2000-0000-7000-8000-000000000002"
	cxGrand  = "019e2000-0000-7000-8000-000000000003"
	cxOther  = "019e2000-0000-7000-8000-000000000004"
	cxStray  = "019e2000-0000-7000-8000-000000000005"
)

// codexDay is the directory of the sessions tree a rollout begun at t
// lies in: Codex names it by the local date.
func codexDay(root string, t time.Time) string {
	t = t.Local()
	return filepath.Join(root, "sessions", t.Format("2006"), t.Format("01"), t.Format("02"))
}

func codexMeta(id, ts, source string) string {
	return `{"timestamp":"` + ts + `","type":"session_meta","payload":{"id":"` + id + `","timestamp":"` + ts +
		`","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.130.0","source":` + source + `}}`
}

func spawned(parent string) string {
	return `{"subagent":{"thread_spawn":{"parent_thread_id":"` + parent + `","depth":1,"agent_nickname":"Euler","agent_role":"worker"}}}`
}

// codexTree writes a parent rollout, its subagent, the subagent's own
// subagent, an unrelated session and another session's subagent.
func codexTree(t *testing.T) (codexHome, parent, child string) {
	t.Helper()
	codexHome = t.TempDir()
	at := time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC)
	day := codexDay(codexHome, at)
	parent = filepath.Join(day, "rollout-2026-04-02T12-00-00-"+cxParent+".jsonl")
	writeFile(t, parent, expect.Lines(
		codexMeta(cxParent, "2026-04-02T12:00:00Z", `"cli"`),
		`{"timestamp":"2026-04-02T12:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"# Context from my IDE setup:\n\n## Active file: parser.go\n\n## My request for Codex:\nSplit the parser"}}`,
		`{"timestamp":"2026-04-02T12:00:02Z","type":"event_msg","payload":{"type":"thread_goal_updated","threadId":"`+cxParent+`","goal":{"threadId":"`+cxParent+`","objective":"Lexer and parser apart, tests green","status":"active","tokensUsed":10,"timeUsedSeconds":3,"createdAt":1,"updatedAt":2}}}`,
		`{"timestamp":"2026-04-02T12:00:03Z","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","arguments":"{\"message\":\"Write the lexer tests\"}","call_id":"c1"}}`,
		`{"timestamp":"2026-04-02T12:05:00Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"agent_id\":\"`+cxChild+`\"}"}}`,
		`{"timestamp":"2026-04-02T12:05:01Z","type":"event_msg","payload":{"type":"turn_aborted","turn_id":"t1","reason":"interrupted"}}`,
	), time.Time{})
	child = filepath.Join(day, "rollout-2026-04-02T12-00-03-"+cxChild+".jsonl")
	writeFile(t, child, expect.Lines(
		codexMeta(cxChild, "2026-04-02T12:00:03Z", spawned(cxParent)),
		`{"timestamp":"2026-04-02T12:00:04Z","type":"event_msg","payload":{"type":"user_message","message":"Write the lexer tests"}}`,
		`{"timestamp":"2026-04-02T12:00:05Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"k1","input":"*** Begin Patch\n*** Add File: lexer_test.go\n+package parser\n*** End Patch\n"}}`,
		`{"timestamp":"2026-04-02T12:00:06Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"k1","output":"{\"output\":\"Success\",\"metadata\":{\"exit_code\":0}}"}}`,
		`{"timestamp":"2026-04-02T12:00:07Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test ./...\"}","call_id":"k2"}}`,
		`{"timestamp":"2026-04-02T12:00:08Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"k2","exit_code":0}}`,
	), time.Time{})
	writeFile(t, filepath.Join(day, "rollout-2026-04-02T12-01-00-"+cxGrand+".jsonl"), expect.Lines(
		codexMeta(cxGrand, "2026-04-02T12:01:00Z", spawned(cxChild)),
		`{"timestamp":"2026-04-02T12:01:01Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go vet ./...\"}","call_id":"g1"}}`,
		`{"timestamp":"2026-04-02T12:01:02Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"g1","exit_code":1}}`,
	), time.Time{})
	writeFile(t, filepath.Join(day, "rollout-2026-04-02T12-02-00-"+cxOther+".jsonl"), expect.Lines(
		codexMeta(cxOther, "2026-04-02T12:02:00Z", `"exec"`),
		`{"timestamp":"2026-04-02T12:02:01Z","type":"event_msg","payload":{"type":"user_message","message":"Another session"}}`,
		`{"timestamp":"2026-04-02T12:02:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"make\"}","call_id":"o1"}}`,
	), time.Time{})
	writeFile(t, filepath.Join(day, "rollout-2026-04-02T12-03-00-"+cxStray+".jsonl"), expect.Lines(
		codexMeta(cxStray, "2026-04-02T12:03:00Z", spawned(cxOther)),
		`{"timestamp":"2026-04-02T12:03:01Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"rm -rf build\"}","call_id":"s1"}}`,
	), time.Time{})
	return codexHome, parent, child
}

func TestCodexSubagentsFoldIntoTheirParent(t *testing.T) {
	_, parent, child := codexTree(t)
	d, err := Transcripts{}.Read(parent, "", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// The child's and the grandchild's work, not the other session's.
	if f := expect.FileAt(d.Files, "lexer_test.go"); f == nil || f.Action != "created" || len(d.Files) != 1 {
		t.Errorf("files %+v", d.Files)
	}
	if got := expect.CommandNames(d.Session); got != "go test ./...|go vet ./..." {
		t.Errorf("commands %q", got)
	}
	if d.Stats.Subagents != 2 || d.Subagent {
		t.Errorf("subagents folded %d, subagent %v", d.Stats.Subagents, d.Subagent)
	}
	// The subagents' requests are their own conversation's; the IDE's
	// preamble is not the user's.
	if strings.Join(d.Session.Requests, "|") != "Split the parser" || d.Title != "Split the parser" {
		t.Errorf("requests %q title %q", d.Session.Requests, d.Title)
	}
	if d.Goal != "Goal (active): Lexer and parser apart, tests green" || !d.Cancelled {
		t.Errorf("goal %q cancelled %v", d.Goal, d.Cancelled)
	}

	k, err := Transcripts{}.Read(child, "", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !k.Subagent || k.Parent != cxParent || k.Stats.Subagents != 0 {
		t.Errorf("child: subagent %v parent %q folded %d", k.Subagent, k.Parent, k.Stats.Subagents)
	}
}

func TestCodexSubagentSources(t *testing.T) {
	for _, tc := range []struct {
		source, extra string
		sub           bool
		parent        string
	}{
		{source: `"cli"`},
		{source: `"vscode"`},
		{source: `{"custom":"x"}`},
		{source: spawned("p1"), sub: true, parent: "p1"},
		{source: `{"subagent":"review"}`, sub: true},
		{source: `{"subagent":"memory_consolidation"}`, sub: true},
		{source: `{"subagent":{"other":"x"}}`, sub: true},
		{source: `"exec"`, extra: `,"thread_source":"subagent"`, sub: true},
		{source: `"exec"`, extra: `,"parent_thread_id":"p2"`, sub: true, parent: "p2"},
		{source: `"exec"`, extra: `,"thread_source":"user"`},
	} {
		meta := `{"type":"session_meta","payload":{"id":"s","cwd":"/w","source":` + tc.source + tc.extra + `}}`
		d := mustRead(t, codex, expect.Lines(meta, `{"type":"event_msg","payload":{"type":"user_message","message":"x"}}`))
		if d.Subagent != tc.sub || d.Parent != tc.parent {
			t.Errorf("%s%s: subagent %v parent %q, want %v %q", tc.source, tc.extra, d.Subagent, d.Parent, tc.sub, tc.parent)
		}
	}
}

func TestCodexCancelledTurn(t *testing.T) {
	const (
		meta    = `{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`
		ask1    = `{"type":"event_msg","payload":{"type":"user_message","message":"first"}}`
		ask2    = `{"type":"event_msg","payload":{"type":"user_message","message":"second"}}`
		stopped = `{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`
		replace = `{"type":"event_msg","payload":{"type":"turn_aborted","reason":"replaced"}}`
		undo    = `{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}`
		item    = `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"only items"}]}}`
	)
	for _, tc := range []struct {
		name string
		in   string
		want bool
	}{
		{"stopped last turn", expect.Lines(meta, ask1, stopped), true},
		{"asked again after", expect.Lines(meta, ask1, stopped, ask2), false},
		{"replaced is no cancel", expect.Lines(meta, ask1, replace), false},
		{"stopped turn rolled back", expect.Lines(meta, ask1, ask2, stopped, undo), false},
		{"earlier turn stopped, last rolled back", expect.Lines(meta, ask1, stopped, ask2, undo), true},
		{"response items only", expect.Lines(meta, item, stopped), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := mustRead(t, codex, tc.in); d.Cancelled != tc.want {
				t.Errorf("cancelled %v, want %v", d.Cancelled, tc.want)
			}
		})
	}
}

func TestCodexGoal(t *testing.T) {
	goal := func(obj, status string) string {
		return `{"type":"event_msg","payload":{"type":"thread_goal_updated","threadId":"s","goal":{"threadId":"s","objective":"` + obj + `","status":"` + status + `","tokensUsed":1,"timeUsedSeconds":1,"createdAt":1,"updatedAt":1}}}`
	}
	d := mustRead(t, codex, expect.Lines(
		`{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"go"}}`,
		goal("Port the CLI", "active"),
		goal("Port the CLI", "budgetLimited"),
		goal("", "complete"), // no objective: not a goal
	))
	if d.Goal != "Goal (budgetLimited): Port the CLI" {
		t.Errorf("goal %q", d.Goal)
	}
}

func TestCodexRequestsWithoutTheAppsPreamble(t *testing.T) {
	// Response items only (no user_message events): the injected blocks
	// go, and the preamble before "## My request for Codex:".
	d := mustRead(t, codex, expect.Lines(
		`{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>be brief</INSTRUCTIONS>"},{"type":"input_text","text":"<environment_context>\n<cwd>/w</cwd>\n</environment_context>"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# Context from my IDE setup:\n\n## Open tabs:\n- a.go\n\n## My request for Codex:\nRename Foo to Bar\n"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"}]}}`,
	))
	if strings.Join(d.Session.Requests, "|") != "Rename Foo to Bar" || d.Title != "Rename Foo to Bar" {
		t.Errorf("requests %q title %q", d.Session.Requests, d.Title)
	}
}

func TestCodexPlanModePlan(t *testing.T) {
	plan := func(text string) string {
		return `{"type":"event_msg","payload":{"type":"item_completed","thread_id":"s","turn_id":"t","item":{"type":"Plan","id":"p","text":` + expect.JSONString(text) + `}}}`
	}
	const (
		meta = `{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`
		ask  = `{"type":"event_msg","payload":{"type":"user_message","message":"plan it"}}`
		undo = `{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}`
	)
	d := mustRead(t, codex, expect.Lines(meta, ask, plan("1. Split\n2. Test"), ask, plan("1. Split again")))
	if d.Session.Plan != "1. Split again" {
		t.Errorf("plan %q", d.Session.Plan)
	}
	// The second turn rolled back takes its plan with it.
	d, err := codex(expect.Lines(meta, ask, plan("1. Split\n2. Test"), ask, plan("1. Split again"), undo))
	if err != nil || d.Session.Plan != "1. Split\n2. Test" {
		t.Errorf("plan %q, %v", d.Session.Plan, err)
	}
}

func TestCodexExitCodeFromAPoll(t *testing.T) {
	// Codex Desktop writes no exec_command_end: a command still running
	// when its call returned ends in the output of a write_stdin poll.
	d := mustRead(t, codex, expect.Lines(
		`{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"test it"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"npm test\"}","call_id":"e1"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"e1","output":"Chunk ID: a\nWall time: 1.0 seconds\nProcess running with session ID 4242\nOriginal token count: 0\nOutput:\n"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":4242,\"chars\":\"\"}","call_id":"w1"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"w1","output":"Chunk ID: b\nWall time: 5.0 seconds\nProcess running with session ID 4242\nOutput:\n"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":4242,\"chars\":\"\"}","call_id":"w2"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"w2","output":"Chunk ID: c\nWall time: 0.1 seconds\nProcess exited with code 1\nOutput:\nFAIL src/a.test.ts\n"}}`,
	))
	c := expect.CommandNamed(d.Session.Commands, "npm test")
	if c == nil || c.ExitCode == nil || *c.ExitCode != 1 || len(d.Session.Commands) != 1 {
		t.Fatalf("commands %+v", d.Session.Commands)
	}
	if lf := d.Session.LastFailure; lf == nil || lf.Command != "npm test" || !strings.Contains(lf.Output, "FAIL src/a.test.ts") {
		t.Errorf("last failure %+v", lf)
	}
}

func TestCodexForkedSubagentCountsOnlyItsOwnPatches(t *testing.T) {
	codexHome := t.TempDir()
	day := codexDay(codexHome, time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC))
	patchEnd := func(id, file string) string {
		return `{"timestamp":"2026-04-02T12:00:02Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"` + id + `","turn_id":"t","stdout":"Success","stderr":"","success":true,"changes":{"` + file + `":{"type":"update","unified_diff":"@@ -1 +1 @@\n-a\n+b\n","move_path":null}}}}`
	}
	parent := filepath.Join(day, "rollout-2026-04-02T12-00-00-"+cxParent+".jsonl")
	writeFile(t, parent, expect.Lines(
		codexMeta(cxParent, "2026-04-02T12:00:00Z", `"cli"`),
		`{"timestamp":"2026-04-02T12:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"Fix a.go, then have a helper look"}}`,
		`{"timestamp":"2026-04-02T12:00:01Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"p1","input":"*** Begin Patch\n*** Update File: /w/a.go\n@@\n-a\n+b\n*** End Patch\n"}}`,
		patchEnd("p1", "/w/a.go"),
	), time.Time{})
	// Forked with the parent's context: the parent's meta and events come
	// first, its tool calls do not.
	writeFile(t, filepath.Join(day, "rollout-2026-04-02T12-00-05-"+cxChild+".jsonl"), expect.Lines(
		codexMeta(cxChild, "2026-04-02T12:00:05Z", spawned(cxParent)),
		codexMeta(cxParent, "2026-04-02T12:00:00Z", `"cli"`),
		`{"timestamp":"2026-04-02T12:00:05Z","type":"event_msg","payload":{"type":"user_message","message":"Fix a.go, then have a helper look"}}`,
		patchEnd("p1", "/w/a.go"),
		`{"timestamp":"2026-04-02T12:00:06Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"k1","input":"*** Begin Patch\n*** Update File: /w/b.go\n@@\n-a\n+b\n*** End Patch\n"}}`,
		patchEnd("k1", "/w/b.go"),
	), time.Time{})
	d, err := Transcripts{}.Read(parent, "", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := expect.FileAt(d.Files, "a.go"), expect.FileAt(d.Files, "b.go")
	if a == nil || a.Edits != 1 || b == nil || b.Edits != 1 || d.Stats.Subagents != 1 {
		t.Errorf("files %+v, folded %d", d.Files, d.Stats.Subagents)
	}
}

func TestCodexDeclinedCommand(t *testing.T) {
	d := mustRead(t, codex, expect.Lines(
		`{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"clean up"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"rm -rf build\"}","call_id":"a"}}`,
		`{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"a","stdout":"","stderr":"exec command rejected by user","aggregated_output":"exec command rejected by user","exit_code":-1,"status":"declined"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"a","output":"exec command rejected by user"}}`,
		`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"b","input":"*** Begin Patch\n*** Update File: a.go\n@@\n-a\n+b\n*** End Patch\n"}}`,
		`{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"b","output":"patch rejected by user"}}`,
	))
	c := expect.CommandNamed(d.Session.Commands, "rm -rf build")
	if c == nil || c.Status != handoff.StatusRejected || d.Session.LastFailure != nil {
		t.Errorf("command %+v, last failure %+v", c, d.Session.LastFailure)
	}
	if len(d.Files) != 0 {
		t.Errorf("a declined patch changed %+v", d.Files)
	}
}

// Reading every session of a day reads each rollout's first line once,
// not once for every session of the day (a full index was quadratic in
// a day's sessions); a subagent's rollout written later is still found.
func TestCodexDayReadOnce(t *testing.T) {
	home := t.TempDir()
	at := time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC)
	day := codexDay(home, at)
	const n = 12
	var paths []string
	for i := range n {
		id := fmt.Sprintf("019e2000-0000-7000-8000-%012d", 100+i)
		ts := at.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		p := filepath.Join(day, "rollout-"+strings.ReplaceAll(ts[:19], ":", "-")+"-"+id+".jsonl")
		writeFile(t, p, expect.Lines(codexMeta(id, ts, `"cli"`),
			`{"timestamp":"`+ts+`","type":"event_msg","payload":{"type":"user_message","message":"task `+id+`"}}`), time.Time{})
		paths = append(paths, p)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(day, old, old); err != nil {
		t.Fatal(err)
	}
	before := metaReads.Load()
	for _, p := range paths {
		if _, err := (Transcripts{}).Read(p, "", transcript.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := metaReads.Load() - before; got > 2*n {
		t.Errorf("reading %d sessions of a day read %d first lines, want at most %d", n, got, 2*n)
	}
	child := filepath.Join(day, "rollout-2026-04-02T13-00-00-"+cxChild+".jsonl")
	writeFile(t, child, expect.Lines(codexMeta(cxChild, "2026-04-02T13:00:00Z", spawned("019e2000-0000-7000-8000-000000000100")),
		`{"timestamp":"2026-04-02T13:00:01Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go vet ./...\"}","call_id":"g1"}}`), time.Time{})
	d, err := Transcripts{}.Read(paths[0], "", transcript.Limits{})
	if err != nil || d.Stats.Subagents != 1 {
		t.Errorf("after a subagent's rollout was added: %d subagents, %v", d.Stats.Subagents, err)
	}
}

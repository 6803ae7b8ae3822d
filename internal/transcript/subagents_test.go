package transcript

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// Hand-made transcripts in the shapes the agents' sources give, for what
// no real transcript shows: subagents, goals, cancelled turns.
//
// Codex CLI: openai/codex codex-rs/protocol/src/protocol.rs (SessionMeta
// with source {"subagent": {"thread_spawn": {parent_thread_id, depth,
// agent_nickname, agent_role}}} and thread_source "subagent";
// ThreadGoalUpdatedEvent {threadId, turnId, goal: {objective, status,
// tokensUsed, timeUsedSeconds, createdAt, updatedAt}}; TurnAbortedEvent
// {turn_id, reason: "interrupted"}), as of its May 2026 sources.
//
// Gemini CLI: google-gemini/gemini-cli 0.56.0-nightly (5411f113)
// packages/core/src/services/chatRecordingService.ts (a subagent's
// recording, chats/<parent id>/<id>.jsonl, metadata kind "subagent") and
// chatRecordingTypes.ts; packages/core/src/tools/trackerTools.ts
// (returnDisplay {todos: [{description, status}]}), topicTool.ts
// (update_topic {title, summary, strategic_intent}), enter-plan-mode.ts
// and exit-plan-mode.ts ({plan_filename}; "Plan approved: …", "Plan
// rejected. User feedback: …").

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
	writeFile(t, parent, lines(
		codexMeta(cxParent, "2026-04-02T12:00:00Z", `"cli"`),
		`{"timestamp":"2026-04-02T12:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"# Context from my IDE setup:\n\n## Active file: parser.go\n\n## My request for Codex:\nSplit the parser"}}`,
		`{"timestamp":"2026-04-02T12:00:02Z","type":"event_msg","payload":{"type":"thread_goal_updated","threadId":"`+cxParent+`","goal":{"threadId":"`+cxParent+`","objective":"Lexer and parser apart, tests green","status":"active","tokensUsed":10,"timeUsedSeconds":3,"createdAt":1,"updatedAt":2}}}`,
		`{"timestamp":"2026-04-02T12:00:03Z","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","arguments":"{\"message\":\"Write the lexer tests\"}","call_id":"c1"}}`,
		`{"timestamp":"2026-04-02T12:05:00Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"agent_id\":\"`+cxChild+`\"}"}}`,
		`{"timestamp":"2026-04-02T12:05:01Z","type":"event_msg","payload":{"type":"turn_aborted","turn_id":"t1","reason":"interrupted"}}`,
	), time.Time{})
	child = filepath.Join(day, "rollout-2026-04-02T12-00-03-"+cxChild+".jsonl")
	writeFile(t, child, lines(
		codexMeta(cxChild, "2026-04-02T12:00:03Z", spawned(cxParent)),
		`{"timestamp":"2026-04-02T12:00:04Z","type":"event_msg","payload":{"type":"user_message","message":"Write the lexer tests"}}`,
		`{"timestamp":"2026-04-02T12:00:05Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"k1","input":"*** Begin Patch\n*** Add File: lexer_test.go\n+package parser\n*** End Patch\n"}}`,
		`{"timestamp":"2026-04-02T12:00:06Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"k1","output":"{\"output\":\"Success\",\"metadata\":{\"exit_code\":0}}"}}`,
		`{"timestamp":"2026-04-02T12:00:07Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test ./...\"}","call_id":"k2"}}`,
		`{"timestamp":"2026-04-02T12:00:08Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"k2","exit_code":0}}`,
	), time.Time{})
	writeFile(t, filepath.Join(day, "rollout-2026-04-02T12-01-00-"+cxGrand+".jsonl"), lines(
		codexMeta(cxGrand, "2026-04-02T12:01:00Z", spawned(cxChild)),
		`{"timestamp":"2026-04-02T12:01:01Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go vet ./...\"}","call_id":"g1"}}`,
		`{"timestamp":"2026-04-02T12:01:02Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"g1","exit_code":1}}`,
	), time.Time{})
	writeFile(t, filepath.Join(day, "rollout-2026-04-02T12-02-00-"+cxOther+".jsonl"), lines(
		codexMeta(cxOther, "2026-04-02T12:02:00Z", `"exec"`),
		`{"timestamp":"2026-04-02T12:02:01Z","type":"event_msg","payload":{"type":"user_message","message":"Another session"}}`,
		`{"timestamp":"2026-04-02T12:02:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"make\"}","call_id":"o1"}}`,
	), time.Time{})
	writeFile(t, filepath.Join(day, "rollout-2026-04-02T12-03-00-"+cxStray+".jsonl"), lines(
		codexMeta(cxStray, "2026-04-02T12:03:00Z", spawned(cxOther)),
		`{"timestamp":"2026-04-02T12:03:01Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"rm -rf build\"}","call_id":"s1"}}`,
	), time.Time{})
	return codexHome, parent, child
}

func commandNames(s handoff.Session) string {
	var out []string
	for _, c := range s.Commands {
		out = append(out, c.Command)
	}
	return strings.Join(out, "|")
}

func TestCodexSubagentsFoldIntoTheirParent(t *testing.T) {
	_, parent, child := codexTree(t)
	d, err := ReadTranscript(Codex, parent, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// The child's and the grandchild's work, not the other session's.
	if f := findFile(d, "lexer_test.go"); f == nil || f.Action != "created" || len(d.Files) != 1 {
		t.Errorf("files %+v", d.Files)
	}
	if got := commandNames(d.Session); got != "go test ./...|go vet ./..." {
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

	k, err := ReadTranscript(Codex, child, Limits{})
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
		d := mustRead(t, codex, lines(meta, `{"type":"event_msg","payload":{"type":"user_message","message":"x"}}`))
		if d.Subagent != tc.sub || d.Parent != tc.parent {
			t.Errorf("%s%s: subagent %v parent %q, want %v %q", tc.source, tc.extra, d.Subagent, d.Parent, tc.sub, tc.parent)
		}
	}
}

// readCodexBoth reads a rollout in one pass and in two, which must agree.
func readCodexBoth(t *testing.T, in string) *Digest {
	t.Helper()
	two := mustRead(t, codex, in)
	oncePass = true
	defer func() { oncePass = false }()
	one, err := ReadCodex(testReader([]byte(in)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if one.Cancelled != two.Cancelled || one.Goal != two.Goal || strings.Join(one.Session.Requests, "|") != strings.Join(two.Session.Requests, "|") {
		t.Fatalf("one pass %v %q %q, two passes %v %q %q", one.Cancelled, one.Goal, one.Session.Requests, two.Cancelled, two.Goal, two.Session.Requests)
	}
	return two
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
		{"stopped last turn", lines(meta, ask1, stopped), true},
		{"asked again after", lines(meta, ask1, stopped, ask2), false},
		{"replaced is no cancel", lines(meta, ask1, replace), false},
		{"stopped turn rolled back", lines(meta, ask1, ask2, stopped, undo), false},
		{"earlier turn stopped, last rolled back", lines(meta, ask1, stopped, ask2, undo), true},
		{"response items only", lines(meta, item, stopped), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := readCodexBoth(t, tc.in); d.Cancelled != tc.want {
				t.Errorf("cancelled %v, want %v", d.Cancelled, tc.want)
			}
		})
	}
}

func TestCodexGoal(t *testing.T) {
	goal := func(obj, status string) string {
		return `{"type":"event_msg","payload":{"type":"thread_goal_updated","threadId":"s","goal":{"threadId":"s","objective":"` + obj + `","status":"` + status + `","tokensUsed":1,"timeUsedSeconds":1,"createdAt":1,"updatedAt":1}}}`
	}
	d := readCodexBoth(t, lines(
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
	d := readCodexBoth(t, lines(
		`{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>be brief</INSTRUCTIONS>"},{"type":"input_text","text":"<environment_context>\n<cwd>/w</cwd>\n</environment_context>"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# Context from my IDE setup:\n\n## Open tabs:\n- a.go\n\n## My request for Codex:\nRename Foo to Bar\n"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"}]}}`,
	))
	if strings.Join(d.Session.Requests, "|") != "Rename Foo to Bar" || d.Title != "Rename Foo to Bar" {
		t.Errorf("requests %q title %q", d.Session.Requests, d.Title)
	}
}

const gmParent = "aaaa1111-2222-4333-8444-555566667777"

func geminiTree(t *testing.T) (home, parent, child, old string) {
	t.Helper()
	home = t.TempDir()
	proj := filepath.Join(home, ".gemini", "tmp", "proj")
	writeFile(t, filepath.Join(proj, ".project_root"), "/src/proj", time.Time{})
	parent = filepath.Join(proj, "chats", "session-2026-04-02T12-00-aaaa1111.jsonl")
	writeFile(t, parent, lines(
		`{"sessionId":"`+gmParent+`","projectHash":"h","startTime":"2026-04-02T12:00:00Z","lastUpdated":"2026-04-02T12:00:00Z","kind":"main"}`,
		`{"id":"u0","timestamp":"2026-04-02T12:00:01Z","type":"user","content":[{"text":"<session_context>\nGEMINI.md: be terse\n</session_context>"}]}`,
		`{"id":"u1","timestamp":"2026-04-02T12:00:02Z","type":"user","content":[{"text":"Add a lexer"}]}`,
		`{"id":"g1","timestamp":"2026-04-02T12:00:03Z","type":"gemini","content":"","toolCalls":[`+
			`{"id":"t1","name":"update_topic","args":{"title":"Lexer work","summary":"Adding a lexer","strategic_intent":"tests first"},"status":"success"},`+
			`{"id":"t2","name":"codebase_investigator","args":{"objective":"look around"},"status":"success"}]}`,
		`{"id":"u2","timestamp":"2026-04-02T12:00:04Z","type":"user","content":[{"text":"<hook_context>lint ran</hook_context>"}]}`,
		`{"id":"u3","timestamp":"2026-04-02T12:00:05Z","type":"user","content":[{"text":"Please continue."}]}`,
		`{"id":"u4","timestamp":"2026-04-02T12:00:06Z","type":"user","content":[{"text":"/stats"}]}`,
		`{"id":"u5","timestamp":"2026-04-02T12:00:07Z","type":"user","content":[{"text":"System: Potential loop detected. Details: repeated reads. Please take a step back."}]}`,
		`{"id":"g2","timestamp":"2026-04-02T12:00:08Z","type":"gemini","content":"","toolCalls":[`+
			`{"id":"t3","name":"tracker_create_task","args":{"title":"Parser","description":"d","type":"task"},"status":"success",`+
			`"resultDisplay":{"todos":[{"description":"task: Lexer (abc123)","status":"in_progress"},{"description":"task: Parser (def456)","status":"blocked"},{"description":"epic: Done part (0a0b0c)","status":"completed"}]}}]}`,
		`{"$set":{"lastUpdated":"2026-04-02T12:09:00Z","summary":"An older summary"}}`,
	), time.Time{})
	child = filepath.Join(proj, "chats", gmParent, "sub-1.jsonl")
	writeFile(t, child, lines(
		`{"sessionId":"sub-1","projectHash":"h","startTime":"2026-04-02T12:00:03Z","lastUpdated":"2026-04-02T12:00:03Z","kind":"subagent","directories":["/src/proj"]}`,
		`{"id":"s1","timestamp":"2026-04-02T12:00:03Z","type":"user","content":[{"text":"Look around"}]}`,
		`{"id":"s2","timestamp":"2026-04-02T12:00:04Z","type":"gemini","content":"","toolCalls":[`+
			`{"id":"x1","name":"write_file","args":{"file_path":"/src/proj/notes.md","content":"n"},"status":"success","result":[{"functionResponse":{"id":"x1","name":"write_file","response":{"output":"Successfully created and wrote to new file: /src/proj/notes.md."}}}]},`+
			`{"id":"x2","name":"run_shell_command","args":{"command":"ls"},"status":"success","result":[{"functionResponse":{"id":"x2","name":"run_shell_command","response":{"output":"Output: a\nExit Code: 0"}}}]}]}`,
	), time.Time{})
	// Gemini CLI 0.30 to 0.35 kept a subagent's recording beside the
	// others, as one JSON object naming no parent.
	old = filepath.Join(proj, "chats", "session-2026-03-01T10-00-bbbb2222.json")
	writeFile(t, old, `{
  "sessionId": "bbbb2222-0000",
  "projectHash": "h",
  "startTime": "2026-03-01T10:00:00Z",
  "lastUpdated": "2026-03-01T10:05:00Z",
  "kind": "subagent",
  "messages": [{"id": "1", "type": "user", "content": "Investigate"}]
}`, time.Time{})
	return home, parent, child, old
}

func TestGeminiSubagentsFoldIntoTheirParent(t *testing.T) {
	_, parent, child, old := geminiTree(t)
	d, err := ReadTranscript(Gemini, parent, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Session.Requests, "|") != "Add a lexer" {
		t.Errorf("requests %q: injected turns counted", d.Session.Requests)
	}
	if d.Title != "Lexer work" {
		t.Errorf("title %q, want the topic's", d.Title)
	}
	want := []handoff.Todo{{Content: "task: Lexer (abc123)", Status: "in_progress"}, {Content: "task: Parser (def456)", Status: "pending"}, {Content: "epic: Done part (0a0b0c)", Status: "completed"}}
	if !slices.Equal(d.Session.Todos, want) {
		t.Errorf("todos %+v", d.Session.Todos)
	}
	if f := findFile(d, "notes.md"); f == nil || f.Action != "created" || commandNames(d.Session) != "ls" || d.Stats.Subagents != 1 {
		t.Errorf("files %+v commands %q folded %d", d.Files, commandNames(d.Session), d.Stats.Subagents)
	}

	k, err := ReadTranscript(Gemini, child, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !k.Subagent || k.Parent != gmParent {
		t.Errorf("child: subagent %v parent %q", k.Subagent, k.Parent)
	}
	o, err := ReadTranscript(Gemini, old, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Subagent || o.Parent != "" {
		t.Errorf("old layout: subagent %v parent %q", o.Subagent, o.Parent)
	}
}

func geminiPlanSession(calls ...string) string {
	return lines(
		`{"sessionId":"p","projectHash":"h","directories":["/src/proj"]}`,
		`{"id":"u1","type":"user","content":"Plan the migration"}`,
		`{"id":"g1","type":"gemini","content":"","toolCalls":[`+strings.Join(calls, ",")+`]}`,
	)
}

const (
	planPathT = "/home/u/.gemini/tmp/proj/p/plans/migrate.md"
	enterPlan = `{"id":"a","name":"enter_plan_mode","args":{"reason":"a big change"},"status":"success"}`
	writePlan = `{"id":"b","name":"write_file","args":{"file_path":"` + planPathT + `","content":"1. Add the column\n2. Backfill"},"status":"success","result":[{"functionResponse":{"response":{"output":"Successfully created and wrote to new file: ` + planPathT + `."}}}]}`
	editPlan  = `{"id":"c","name":"replace","args":{"file_path":"` + planPathT + `","old_string":"2. Backfill","new_string":"2. Backfill in batches of 1000"},"status":"success","result":[{"functionResponse":{"response":{"output":"Successfully modified file: ` + planPathT + ` (1 replacements)."}}}]}`
)

func exitPlan(output string) string {
	return `{"id":"d","name":"exit_plan_mode","args":{"plan_filename":"migrate.md"},"status":"success","result":[{"functionResponse":{"response":{"output":"` + output + `"}}}]}`
}

func TestGeminiPlan(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []string
		want  []string // substrings of the plan; none: no plan
	}{
		{"approved", []string{enterPlan, writePlan, editPlan, exitPlan(`Switching to Default mode.\n\nThe approved implementation plan is stored at: ` + planPathT + `\nRead and follow the plan strictly during implementation.`)},
			[]string{"approved by the user", "1. Add the column\n2. Backfill in batches of 1000"}},
		{"rejected", []string{enterPlan, writePlan, exitPlan(`Plan rejected. User feedback: do it in two releases\n\nThe plan is stored at: ` + planPathT)},
			[]string{"rejected by the user (feedback: do it in two releases)", "2. Backfill"}},
		{"still drafting", []string{enterPlan, writePlan, editPlan},
			[]string{"not yet put to the user", "in batches of 1000"}},
		{"dialog dismissed", []string{enterPlan, writePlan, exitPlan(`User cancelled the plan approval dialog. The plan was not approved and you are still in Plan Mode.`)},
			[]string{"not yet put to the user", "2. Backfill"}},
		{"plan mode entered, nothing written", []string{enterPlan}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustRead(t, gemini, geminiPlanSession(tc.calls...))
			plan := d.Session.Plan
			if len(tc.want) == 0 && plan != "" {
				t.Errorf("plan %q, want none", plan)
			}
			for _, w := range tc.want {
				if !strings.Contains(plan, w) {
					t.Errorf("plan %q lacks %q", plan, w)
				}
			}
			// The plan file is Gemini CLI's, not the project's.
			if len(d.Files) != 0 {
				t.Errorf("files %+v", d.Files)
			}
		})
	}
}

func TestGeminiInjectedTurns(t *testing.T) {
	for _, content := range []string{
		"<session_context>\nThis is the Gemini CLI.\n</session_context>", "<hook_context>x</hook_context>",
		"Please continue.", "System: Please continue.", "/memory show", "?", "  ",
		"System: Potential loop detected. Details: x. Please take a step back.",
	} {
		in := lines(`{"sessionId":"s","projectHash":"h"}`,
			`{"id":"1","type":"user","content":[{"text":"real request"}]}`,
			`{"id":"2","type":"user","content":[{"text":`+jsonString(content)+`}]}`)
		d := mustRead(t, gemini, in)
		if strings.Join(d.Session.Requests, "|") != "real request" {
			t.Errorf("%q counted as a request: %q", content, d.Session.Requests)
		}
	}
	// A command the CLI expands: the command is the request.
	d := mustRead(t, gemini, lines(`{"sessionId":"s","projectHash":"h"}`,
		`{"id":"1","type":"user","content":[{"text":"You are an AI agent that … write GEMINI.md"}],"displayContent":[{"text":"/init"}]}`))
	if strings.Join(d.Session.Requests, "|") != "/init" {
		t.Errorf("requests %q", d.Session.Requests)
	}
}

func TestGeminiCancelledTurn(t *testing.T) {
	cancelled := `{"id":"c","type":"info","content":"Request cancelled."}`
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"1","type":"user","content":"a"}`, cancelled), true},
		{lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"1","type":"user","content":"a"}`, cancelled, `{"id":"2","type":"user","content":"b"}`), false},
		{lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"1","type":"user","content":"a"}`, `{"id":"i","type":"info","content":"Switched to fallback model."}`), false},
	} {
		if d := mustRead(t, gemini, tc.in); d.Cancelled != tc.want {
			t.Errorf("%s: cancelled %v, want %v", tc.in, d.Cancelled, tc.want)
		}
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestCodexPlanModePlan(t *testing.T) {
	plan := func(text string) string {
		return `{"type":"event_msg","payload":{"type":"item_completed","thread_id":"s","turn_id":"t","item":{"type":"Plan","id":"p","text":` + jsonString(text) + `}}}`
	}
	const (
		meta = `{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`
		ask  = `{"type":"event_msg","payload":{"type":"user_message","message":"plan it"}}`
		undo = `{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}`
	)
	d := readCodexBoth(t, lines(meta, ask, plan("1. Split\n2. Test"), ask, plan("1. Split again")))
	if d.Session.Plan != "1. Split again" {
		t.Errorf("plan %q", d.Session.Plan)
	}
	// The second turn rolled back takes its plan with it, in one pass
	// and in two.
	for _, once := range []bool{false, true} {
		oncePass = once
		d, err := ReadCodex(testReader([]byte(lines(meta, ask, plan("1. Split\n2. Test"), ask, plan("1. Split again"), undo))), Limits{})
		oncePass = false
		if err != nil || d.Session.Plan != "1. Split\n2. Test" {
			t.Errorf("once %v: plan %q, %v", once, d.Session.Plan, err)
		}
	}
}

func TestCodexExitCodeFromAPoll(t *testing.T) {
	// Codex Desktop writes no exec_command_end: a command still running
	// when its call returned ends in the output of a write_stdin poll.
	d := readCodexBoth(t, lines(
		`{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"test it"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"npm test\"}","call_id":"e1"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"e1","output":"Chunk ID: a\nWall time: 1.0 seconds\nProcess running with session ID 4242\nOriginal token count: 0\nOutput:\n"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":4242,\"chars\":\"\"}","call_id":"w1"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"w1","output":"Chunk ID: b\nWall time: 5.0 seconds\nProcess running with session ID 4242\nOutput:\n"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":4242,\"chars\":\"\"}","call_id":"w2"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"w2","output":"Chunk ID: c\nWall time: 0.1 seconds\nProcess exited with code 1\nOutput:\nFAIL src/a.test.ts\n"}}`,
	))
	c := findCommand(d.Session, "npm test")
	if c == nil || c.ExitCode == nil || *c.ExitCode != 1 || len(d.Session.Commands) != 1 {
		t.Fatalf("commands %+v", d.Session.Commands)
	}
	if lf := d.Session.LastFailure; lf == nil || lf.Command != "npm test" || !strings.Contains(lf.Output, "FAIL src/a.test.ts") {
		t.Errorf("last failure %+v", lf)
	}
}

func TestSubagentFoldingIsBounded(t *testing.T) {
	home := t.TempDir()
	chats := filepath.Join(home, "chats")
	// The session id names the directory of its subagents, sanitized as
	// Gemini CLI sanitizes it: it cannot lead out of chats/.
	id := "../../x"
	parent := filepath.Join(chats, "session-a.jsonl")
	writeFile(t, parent, lines(`{"sessionId":"`+id+`","projectHash":"h"}`, `{"id":"1","type":"user","content":"go"}`), time.Time{})
	writeFile(t, filepath.Join(home, "x", "escape.jsonl"), lines(
		`{"sessionId":"e","projectHash":"h","kind":"subagent"}`,
		`{"id":"1","type":"gemini","toolCalls":[{"id":"t","name":"run_shell_command","args":{"command":"escaped"},"status":"success"}]}`), time.Time{})
	for i := range maxSubagents + 6 {
		writeFile(t, filepath.Join(chats, geminiSafeName(id), fmt.Sprintf("sub-%03d.jsonl", i)), lines(
			`{"sessionId":"s","projectHash":"h","kind":"subagent"}`,
			fmt.Sprintf(`{"id":"1","type":"gemini","toolCalls":[{"id":"t","name":"run_shell_command","args":{"command":"step %03d"},"status":"success"}]}`, i)), time.Time{})
	}
	d, err := ReadTranscript(Gemini, parent, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Stats.Subagents != maxSubagents || len(d.Session.Commands) != maxSubagents || findCommand(d.Session, "escaped") != nil {
		t.Errorf("folded %d subagents, %d commands: %s", d.Stats.Subagents, len(d.Session.Commands), commandNames(d.Session))
	}
}

func TestMergeSubagentPaths(t *testing.T) {
	d := &Digest{CWD: "/src/proj", Files: []handoff.FileTouched{{Path: "a.go", Action: "edited", Edits: 1}},
		Session: handoff.Session{Commands: []handoff.Command{{Command: "make", Count: 1}}}}
	// A subagent whose working directory is unknown: its absolute paths
	// are made relative to the parent's too.
	mergeSubagent(d, &Digest{CWD: "", Files: []handoff.FileTouched{
		{Path: "/src/proj/a.go", Action: "edited", Edits: 2},
		{Path: "/elsewhere/b.go", Action: "created", Edits: 1},
	}, Session: handoff.Session{Commands: []handoff.Command{{Command: "go vet ./...", Count: 1}}}}, "subagent k1")
	mergeSubagent(d, &Digest{CWD: "/src/proj/sub", Files: []handoff.FileTouched{{Path: "c.go", Action: "deleted"}}}, "subagent k2")
	want := []handoff.FileTouched{
		{Path: "a.go", Action: "edited", Edits: 3},
		{Path: "/elsewhere/b.go", Action: "created", Edits: 1, By: "subagent k1"},
		{Path: "sub/c.go", Action: "deleted", By: "subagent k2"},
	}
	if len(d.Files) != len(want) {
		t.Fatalf("files %+v", d.Files)
	}
	for i := range want {
		if d.Files[i] != want[i] {
			t.Errorf("file %d: %+v, want %+v", i, d.Files[i], want[i])
		}
	}
	if commandNames(d.Session) != "make|go vet ./..." || d.Session.Commands[1].By != "subagent k1" {
		t.Errorf("commands %+v", d.Session.Commands)
	}
}

func TestCodexForkedSubagentCountsOnlyItsOwnPatches(t *testing.T) {
	codexHome := t.TempDir()
	day := codexDay(codexHome, time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC))
	patchEnd := func(id, file string) string {
		return `{"timestamp":"2026-04-02T12:00:02Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"` + id + `","turn_id":"t","stdout":"Success","stderr":"","success":true,"changes":{"` + file + `":{"type":"update","unified_diff":"@@ -1 +1 @@\n-a\n+b\n","move_path":null}}}}`
	}
	parent := filepath.Join(day, "rollout-2026-04-02T12-00-00-"+cxParent+".jsonl")
	writeFile(t, parent, lines(
		codexMeta(cxParent, "2026-04-02T12:00:00Z", `"cli"`),
		`{"timestamp":"2026-04-02T12:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"Fix a.go, then have a helper look"}}`,
		`{"timestamp":"2026-04-02T12:00:01Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"p1","input":"*** Begin Patch\n*** Update File: /w/a.go\n@@\n-a\n+b\n*** End Patch\n"}}`,
		patchEnd("p1", "/w/a.go"),
	), time.Time{})
	// Forked with the parent's context: the parent's meta and events come
	// first, its tool calls do not.
	writeFile(t, filepath.Join(day, "rollout-2026-04-02T12-00-05-"+cxChild+".jsonl"), lines(
		codexMeta(cxChild, "2026-04-02T12:00:05Z", spawned(cxParent)),
		codexMeta(cxParent, "2026-04-02T12:00:00Z", `"cli"`),
		`{"timestamp":"2026-04-02T12:00:05Z","type":"event_msg","payload":{"type":"user_message","message":"Fix a.go, then have a helper look"}}`,
		patchEnd("p1", "/w/a.go"),
		`{"timestamp":"2026-04-02T12:00:06Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"k1","input":"*** Begin Patch\n*** Update File: /w/b.go\n@@\n-a\n+b\n*** End Patch\n"}}`,
		patchEnd("k1", "/w/b.go"),
	), time.Time{})
	d, err := ReadTranscript(Codex, parent, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := findFile(d, "a.go"), findFile(d, "b.go")
	if a == nil || a.Edits != 1 || b == nil || b.Edits != 1 || d.Stats.Subagents != 1 {
		t.Errorf("files %+v, folded %d", d.Files, d.Stats.Subagents)
	}
}

func TestGeminiCancelledCalls(t *testing.T) {
	d := mustRead(t, gemini, lines(`{"sessionId":"s","projectHash":"h"}`,
		`{"id":"1","type":"user","content":"go"}`,
		`{"id":"2","type":"gemini","content":"","toolCalls":[`+
			`{"id":"a","name":"run_shell_command","args":{"command":"rm -rf build"},"status":"cancelled","result":[{"functionResponse":{"response":{"error":"[Operation Cancelled] Reason: User denied execution."}}}]},`+
			`{"id":"b","name":"run_shell_command","args":{"command":"npm test"},"status":"cancelled","result":[{"functionResponse":{"response":{"error":"[Operation Cancelled] User cancelled tool execution."}}}]},`+
			`{"id":"c","name":"replace","args":{"file_path":"a.go"},"status":"cancelled"}]}`))
	if c := findCommand(d.Session, "rm -rf build"); c == nil || c.Status != handoff.StatusRejected {
		t.Errorf("denied: %+v", c)
	}
	if c := findCommand(d.Session, "npm test"); c == nil || c.Status != handoff.StatusInterrupted {
		t.Errorf("stopped: %+v", c)
	}
	if len(d.Files) != 0 || d.Session.LastFailure != nil {
		t.Errorf("a cancelled edit changed %+v; failure %+v", d.Files, d.Session.LastFailure)
	}
}

func TestCodexDeclinedCommand(t *testing.T) {
	d := readCodexBoth(t, lines(
		`{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"clean up"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"rm -rf build\"}","call_id":"a"}}`,
		`{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"a","stdout":"","stderr":"exec command rejected by user","aggregated_output":"exec command rejected by user","exit_code":-1,"status":"declined"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"a","output":"exec command rejected by user"}}`,
		`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"b","input":"*** Begin Patch\n*** Update File: a.go\n@@\n-a\n+b\n*** End Patch\n"}}`,
		`{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"b","output":"patch rejected by user"}}`,
	))
	c := findCommand(d.Session, "rm -rf build")
	if c == nil || c.Status != handoff.StatusRejected || d.Session.LastFailure != nil {
		t.Errorf("command %+v, last failure %+v", c, d.Session.LastFailure)
	}
	if len(d.Files) != 0 {
		t.Errorf("a declined patch changed %+v", d.Files)
	}
}

// Gemini CLI puts the session-start hook's context in front of the prompt,
// in the same text (packages/cli/src/gemini.tsx, v0.61.0:
// "<hook_context>…</hook_context>\n\n" + input), and BeforeAgent's context in
// a text part after the request (packages/core/src/core/client.ts,
// sendMessageStream). Either way the prompt is the request and the title.
func TestGeminiHookContextKeepsThePrompt(t *testing.T) {
	for name, content := range map[string]string{
		"session start": `[{"text":` + jsonString("<hook_context># Handoff\nDo <b>this</b>\n</hook_context>\n\nfix the login bug") + `}]`,
		"before agent":  `[{"text":"fix the login bug"},{"text":"<hook_context>lint ran</hook_context>"}]`,
		"both":          `[{"text":` + jsonString("<hook_context>brief</hook_context>\n\nfix the login bug") + `},{"text":"<hook_context>lint</hook_context>"}]`,
	} {
		in := lines(`{"sessionId":"s","projectHash":"h"}`,
			`{"id":"1","type":"user","content":`+content+`}`)
		d := mustRead(t, gemini, in)
		if strings.Join(d.Session.Requests, "|") != "fix the login bug" {
			t.Errorf("%s: requests %q", name, d.Session.Requests)
		}
		if d.Title != "fix the login bug" {
			t.Errorf("%s: title %q", name, d.Title)
		}
	}
}

// A command Gemini CLI refused to run is rejected, not failed, and is
// never the last failure.
func TestGeminiRefusedCommandIsNoFailure(t *testing.T) {
	call := func(id, cmd, status, out string) string {
		return `{"id":"` + id + `","type":"gemini","content":"","toolCalls":[{"id":"` + id + `","name":"run_shell_command","args":{"command":` + jsonString(cmd) +
			`},"status":"` + status + `","result":[{"functionResponse":{"id":"` + id + `","name":"run_shell_command","response":{"output":` + jsonString(out) + `}}}]}]}`
	}
	d := mustRead(t, gemini, lines(`{"sessionId":"s","projectHash":"h"}`,
		`{"id":"u","type":"user","content":[{"text":"check it"}]}`,
		call("c1", "go test ./... && rm -rf /", "error", "Command rejected because it could not be parsed safely"),
		call("c2", "curl x | sh", "error", "Tool execution denied by policy. Network is off."),
	))
	if d.Session.LastFailure != nil {
		t.Errorf("last failure %+v, want none", d.Session.LastFailure)
	}
	for _, c := range d.Session.Commands {
		if c.Status != handoff.StatusRejected {
			t.Errorf("%q: status %q, want rejected", c.Command, c.Status)
		}
	}
	if len(d.Session.Commands) != 2 {
		t.Errorf("commands %+v", d.Session.Commands)
	}
}

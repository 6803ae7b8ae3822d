package claude

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// Shapes of Claude Code 2.1.x that no real transcript in testdata/transcripts shows,
// built from what Claude Code writes (2.1.88 source: src/types/logs.ts,
// src/utils/attachments.ts, src/utils/messageQueueManager.ts,
// src/utils/messages.ts, src/tools/*; toolDenialKind and the remove
// reason as later versions write them, see docs/TRANSCRIPTS.md).

// A prompt typed mid-turn that the running turn absorbs is written twice
// from 2.1.x on: a queued_command attachment and a queue-operation remove
// (with reason absorbed_mid_turn from 2.1.246). It is one request. A
// remove for another reason delivered nothing, and a task notification
// queued the same way is not the user's.
func TestClaudeQueuedCommandCountsOnce(t *testing.T) {
	in := expect.Lines(
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","cwd":"/w","message":{"role":"user","content":"fix the parser"}}`,
		`{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"keep the public API"}`,
		`{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"<task-notification><task-id>b1</task-id><status>completed</status></task-notification>"}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./parser"}}]}}`,
		`{"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"toolUseResult":{"exitCode":0}}`,
		`{"type":"attachment","uuid":"q1","parentUuid":"r1","attachment":{"type":"queued_command","prompt":"keep the public API","commandMode":"prompt","origin":{"kind":"human"}}}`,
		`{"type":"queue-operation","operation":"remove","sessionId":"s","content":"keep the public API","reason":"absorbed_mid_turn"}`,
		`{"type":"attachment","uuid":"q2","parentUuid":"q1","attachment":{"type":"queued_command","prompt":"<task-notification><task-id>b1</task-id></task-notification>","commandMode":"task-notification"}}`,
		`{"type":"queue-operation","operation":"remove","sessionId":"s","content":"<task-notification><task-id>b1</task-id><status>completed</status></task-notification>","reason":"absorbed_mid_turn"}`,
		`{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"draft withdrawn"}`,
		`{"type":"queue-operation","operation":"remove","sessionId":"s","content":"draft withdrawn","reason":"cancelled"}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"q2","message":{"id":"m2","content":[{"type":"text","text":"done, API kept"}]}}`,
	)
	want := []string{"fix the parser", "keep the public API"}
	d := mustRead(t, claude, in)
	if !slices.Equal(d.Session.Requests, want) {
		t.Errorf("requests %q, want %q", d.Session.Requests, want)
	}
	// Read once (a plain reader) as well as twice.
	d2, err := readAll(struct{ io.Reader }{strings.NewReader(in)}, Limits{})
	if err != nil || !slices.Equal(d2.Session.Requests, want) {
		t.Errorf("read once: requests %v, err %v; want %q", d2.Session.Requests, err, want)
	}
}

// How a call ended: rejected (by the user, a rule, or the 2.1.88 texts),
// interrupted, blocked by a hook, backgrounded, or run. Only a run that
// failed, or a hook block, is a failure.
func TestClaudeCommandStatus(t *testing.T) {
	call := func(id, cmd string) string {
		return `{"type":"assistant","uuid":"a` + id + `","message":{"id":"m` + id + `","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"` + cmd + `"}}]}}`
	}
	result := func(id, extra, block string) string {
		return `{"type":"user","uuid":"r` + id + `",` + extra + `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `",` + block + `}]}}`
	}
	d := mustRead(t, claude, expect.Lines(
		`{"type":"user","uuid":"u","message":{"role":"user","content":"clean up"}}`,
		call("t1", "rm -rf build"), result("t1", `"toolDenialKind":"user-rejected",`, `"is_error":true,"content":"The user doesn't want to proceed with this tool use."`),
		call("t2", "git push --force"), result("t2", `"toolDenialKind":"permission-rule",`, `"is_error":true,"content":"Permission to use Bash has been denied."`),
		call("t3", "make deploy"), result("t3", ``, `"is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nnot now"`),
		call("t4", "sleep 100"), result("t4", `"toolDenialKind":"interrupted",`, `"is_error":true,"content":"[Request interrupted by user for tool use]"`),
		call("t5", "curl evil.example"), result("t5", ``, `"is_error":true,"content":"PreToolUse:Bash hook error: [guard.sh]: network access is not allowed"`),
		call("t6", "npm run dev"), result("t6", `"toolUseResult":{"backgroundTaskId":"b1","interrupted":false},`, `"content":"Command running in background with ID: b1"`),
		call("t7", "ls"), result("t7", `"toolUseResult":{"stdout":"a","interrupted":false},`, `"content":"a"`),
		call("t8", "go vet ./..."), result("t8", ``, `"is_error":true,"content":"Exit code 1\nvet: x.go:1: bad"`),
	))
	want := map[string]string{
		"rm -rf build": handoff.StatusRejected, "git push --force": handoff.StatusRejected, "make deploy": handoff.StatusRejected,
		"sleep 100": handoff.StatusInterrupted, "curl evil.example": handoff.StatusBlocked, "npm run dev": handoff.StatusBackground,
		"ls": handoff.StatusOK, "go vet ./...": handoff.StatusFailed,
	}
	for _, c := range d.Session.Commands {
		if c.Status != want[c.Command] {
			t.Errorf("%q: status %q, want %q", c.Command, c.Status, want[c.Command])
		}
		delete(want, c.Command)
	}
	if len(want) > 0 {
		t.Errorf("commands missing: %v", want)
	}
	if f := d.Session.LastFailure; f == nil || f.Command != "go vet ./..." {
		t.Errorf("open failure %+v, want go vet (the hook block came before it, and rejections are not failures)", f)
	}
}

// A hook block is the open failure when nothing later settles it.
func TestClaudeHookBlockIsFailure(t *testing.T) {
	d := mustRead(t, claude, expect.Lines(
		`{"type":"user","uuid":"u","message":{"role":"user","content":"fetch it"}}`,
		`{"type":"assistant","uuid":"a","parentUuid":"u","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"curl https://x.example"}}]}}`,
		`{"type":"user","uuid":"r","parentUuid":"a","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":"Hook PreToolUse:Bash denied this tool"}]}}`,
	))
	if f := d.Session.LastFailure; f == nil || f.Status != handoff.StatusBlocked || f.ExitCode != nil {
		t.Errorf("open failure %+v, want the blocked curl without an exit code", f)
	}
}

// Tasks (2.1.16 on; the lines here are unlinked, read in order):
// TaskCreate's result carries the new task's id;
// TaskUpdate changes its status or subject, or deletes it; TaskList and
// task_reminder attachments give the whole list.
func TestClaudeTasks(t *testing.T) {
	create := func(id, n, subject string) string {
		return `{"type":"assistant","uuid":"ac` + n + `","message":{"id":"mc` + n + `","content":[{"type":"tool_use","id":"c` + n + `","name":"TaskCreate","input":{"subject":"` + subject + `","description":"d"}}]}}` + "\n" +
			`{"type":"user","uuid":"rc` + n + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c` + n + `","content":"Task #` + id + ` created successfully: ` + subject + `"}]},"toolUseResult":{"task":{"id":"` + id + `","subject":"` + subject + `"}}}`
	}
	update := func(n, input string) string {
		return `{"type":"assistant","uuid":"au` + n + `","message":{"id":"mu` + n + `","content":[{"type":"tool_use","id":"u` + n + `","name":"TaskUpdate","input":` + input + `}]}}`
	}
	in := expect.Lines(
		`{"type":"user","uuid":"u0","message":{"role":"user","content":"plan the port"}}`,
		create("1", "1", "Port lexer"), create("2", "2", "Port parser"), create("3", "3", "Write docs"),
		update("1", `{"taskId":"1","status":"completed"}`),
		update("2", `{"taskId":"2","status":"in_progress","subject":"Port parser and AST"}`),
		update("3", `{"taskId":"3","status":"deleted"}`),
	)
	d := mustRead(t, claude, in)
	want := []handoff.Todo{{Content: "Port lexer", Status: "completed"}, {Content: "Port parser and AST", Status: "in_progress"}}
	if !slices.Equal(d.Session.Todos, want) {
		t.Errorf("todos %+v, want %+v", d.Session.Todos, want)
	}
	// A reminder replaces the list; a later update applies to it.
	d = mustRead(t, claude, in+expect.Lines(
		`{"type":"attachment","uuid":"tr","attachment":{"type":"task_reminder","itemCount":2,"content":[{"id":"7","subject":"Release","status":"pending","blocks":[],"blockedBy":[]},{"id":"8","subject":"Announce","status":"pending"}]}}`,
		update("9", `{"taskId":"8","status":"in_progress"}`),
	))
	want = []handoff.Todo{{Content: "Release", Status: "pending"}, {Content: "Announce", Status: "in_progress"}}
	if !slices.Equal(d.Session.Todos, want) {
		t.Errorf("after the reminder: todos %+v, want %+v", d.Session.Todos, want)
	}
}

// ExitPlanMode's plan is the session's plan; AskUserQuestion's answers are
// decisions; pr-link records are its pull requests (each URL once, as the
// metadata is re-appended); worktree-state says where its files are; an
// unknown record type is named.
func TestClaudePlanDecisionsPRsWorktree(t *testing.T) {
	d := mustRead(t, claude, expect.Lines(
		`{"type":"worktree-state","sessionId":"s","worktreeSession":{"originalCwd":"/w","worktreePath":"/w/.claude/worktrees/lexer","worktreeName":"lexer","worktreeBranch":"worktree-lexer","sessionId":"s"}}`,
		`{"type":"user","uuid":"u1","sessionId":"s","cwd":"/w","message":{"role":"user","content":"port the lexer"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","content":[{"type":"tool_use","id":"q","name":"AskUserQuestion","input":{"questions":[{"question":"Which Go version?","header":"Go","options":[{"label":"1.22"},{"label":"1.25"}],"multiSelect":false},{"question":"Keep the C API?","header":"API","options":[{"label":"yes"},{"label":"no"}],"multiSelect":false}]}}]}}`,
		`{"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"q","content":"User has answered your questions: ..."}]},"toolUseResult":{"questions":[{"question":"Which Go version?"},{"question":"Keep the C API?"}],"answers":{"Keep the C API?":"no","Which Go version?":"1.25"}}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"r1","message":{"id":"m2","content":[{"type":"tool_use","id":"p","name":"ExitPlanMode","input":{"plan":"1. Port tokens\n2. Port scanner"}}]}}`,
		`{"type":"user","uuid":"r2","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"p","content":"User has approved your plan."}]},"toolUseResult":{"plan":"1. Port tokens\n2. Port scanner","filePath":"/home/u/.claude/plans/brave-lexer.md"}}`,
		`{"type":"pr-link","sessionId":"s","prNumber":42,"prUrl":"https://github.com/o/r/pull/42","prRepository":"o/r","timestamp":"2026-08-01T00:00:00Z"}`,
		`{"type":"pr-link","sessionId":"s","prNumber":42,"prUrl":"https://github.com/o/r/pull/42","prRepository":"o/r","timestamp":"2026-08-01T01:00:00Z"}`,
		`{"type":"marble-origami-commit","sessionId":"s"}`,
		`{"type":"cost-state","sessionId":"s"}`,
		`{"type":"cost-state","sessionId":"s"}`,
	))
	if d.Session.Plan != "1. Port tokens\n2. Port scanner" {
		t.Errorf("plan %q", d.Session.Plan)
	}
	if want := []string{"Which Go version? → 1.25", "Keep the C API? → no"}; !slices.Equal(d.Decisions, want) {
		t.Errorf("decisions %q, want %q", d.Decisions, want)
	}
	if want := []handoff.PullRequest{{URL: "https://github.com/o/r/pull/42", Number: 42, Repository: "o/r"}}; !slices.Equal(d.Session.PullRequests, want) {
		t.Errorf("pull requests %+v, want %+v", d.Session.PullRequests, want)
	}
	if d.Worktree != "/w/.claude/worktrees/lexer" {
		t.Errorf("worktree %q", d.Worktree)
	}
	// cost-state is known since 2.1.328's transcripts were read: skipped,
	// not unknown.
	if got := d.Stats.UnknownTypes; got["marble-origami-commit"] != 1 || got["cost-state"] != 0 || d.Stats.Unknown != 1 {
		t.Errorf("unknown types %v (%d), want marble-origami-commit 1", got, d.Stats.Unknown)
	}
	// Leaving the worktree (worktreeSession null) leaves CWD the place.
	d = mustRead(t, claude, expect.Lines(
		`{"type":"worktree-state","sessionId":"s","worktreeSession":{"worktreePath":"/w/.claude/worktrees/lexer"}}`,
		`{"type":"user","uuid":"u1","sessionId":"s","cwd":"/w","message":{"role":"user","content":"port the lexer"}}`,
		`{"type":"worktree-state","sessionId":"s","worktreeSession":null}`,
	))
	if d.Worktree != "" {
		t.Errorf("worktree %q after leaving it, want none", d.Worktree)
	}
}

// A partial compaction keeps the turns from headUuid to tailUuid as they
// are; on resume Claude Code links the head to the anchor, the summary.
// The summary is the compaction summary, and every turn stays.
func TestClaudePartialCompaction(t *testing.T) {
	d := mustRead(t, claude, expect.Lines(
		`{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"first ask"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","content":[{"type":"text","text":"one"}]}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":"second ask"}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"u2","message":{"id":"m2","content":[{"type":"tool_use","id":"t","name":"Write","input":{"file_path":"/w/keep.go"}}]}}`,
		`{"type":"user","uuid":"r2","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"r2","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":9000,"preservedSegment":{"headUuid":"u2","anchorUuid":"s","tailUuid":"r2"}}}`,
		`{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"role":"user","content":"Summary: the first ask is done."}}`,
		`{"type":"user","uuid":"u3","parentUuid":"r2","message":{"role":"user","content":"third ask"}}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"u3","message":{"id":"m3","content":[{"type":"text","text":"three"}]}}`,
	))
	if want := []string{"first ask", "second ask", "third ask"}; !slices.Equal(d.Session.Requests, want) {
		t.Errorf("requests %q, want %q", d.Session.Requests, want)
	}
	if d.Session.CompactionSummary != "the first ask is done." {
		t.Errorf("compaction %q", d.Session.CompactionSummary)
	}
	if len(d.Files) != 1 || d.Files[0].Path != "/w/keep.go" {
		t.Errorf("files %+v: the preserved turn's write is lost", d.Files)
	}
}

// The older layout (2.0.x) keeps a subagent's file beside its session, as
// agent-<id>.jsonl; capturing the session folds it in, and the file alone
// is refused.
func TestClaudeOlderLayoutSubagent(t *testing.T) {
	dir := t.TempDir()
	parent := filepath.Join(dir, "s1.jsonl")
	agent := filepath.Join(dir, "agent-77.jsonl")
	other := filepath.Join(dir, "agent-88.jsonl")
	write := func(p, text string) {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(parent, expect.Lines(
		`{"type":"user","uuid":"u","sessionId":"s1","cwd":"/w","version":"2.0.50","message":{"role":"user","content":"survey the repo"}}`,
		`{"type":"assistant","uuid":"a","parentUuid":"u","sessionId":"s1","cwd":"/w","message":{"id":"m","content":[{"type":"text","text":"asked a subagent"}]}}`,
	))
	sub := func(session string) string {
		return expect.Lines(
			`{"type":"user","uuid":"su","isSidechain":true,"agentId":"77","sessionId":"`+session+`","cwd":"/w","message":{"role":"user","content":"survey"}}`,
			`{"type":"assistant","uuid":"sa","parentUuid":"su","isSidechain":true,"agentId":"77","sessionId":"`+session+`","cwd":"/w","message":{"id":"sm","content":[{"type":"tool_use","id":"t","name":"Write","input":{"file_path":"/w/NOTES.md"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"wc -l *.go"}}]}}`,
			`{"type":"user","uuid":"sr","parentUuid":"sa","isSidechain":true,"agentId":"77","sessionId":"`+session+`","cwd":"/w","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"},{"type":"tool_result","tool_use_id":"t2","content":"12"}]}}`,
		)
	}
	write(agent, sub("s1"))
	write(other, sub("another-session"))
	d, err := readFile(parent, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 1 || d.Files[0] != (handoff.FileTouched{Path: "NOTES.md", Action: "created", Edits: 1, By: "subagent 77"}) {
		t.Errorf("files %+v, want NOTES.md created by subagent 77 (and nothing of the other session's agent)", d.Files)
	}
	if len(d.Session.Commands) != 1 || d.Session.Commands[0].By != "subagent 77" {
		t.Errorf("commands %+v", d.Session.Commands)
	}
	if _, err := readFile(agent, Limits{}); err == nil || !strings.Contains(err.Error(), "of session s1") {
		t.Errorf("reading the agent file alone: %v", err)
	}
}

// A plan keeps what the user said to it (Claude Code 2.1.328: an approved
// ExitPlanMode returns "User has approved your plan…" and the plan in
// toolUseResult; a rejected one "The user doesn't want to proceed…"), and
// a turn the user stopped, with no request after it, is open.
func TestClaudePlanStatusAndInterruptedTurn(t *testing.T) {
	plan := `{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","content":[{"type":"tool_use","id":"p1","name":"ExitPlanMode","input":{"plan":"# Port the lexer\n1. Split tokens"}}]}}`
	ask := `{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"plan the lexer port"}}`
	for name, c := range map[string]struct {
		lines     []string
		status    string
		cancelled bool
	}{
		"approved": {[]string{ask, plan,
			`{"type":"user","uuid":"r1","parentUuid":"a1","toolUseResult":{"plan":"# Port the lexer\n1. Split tokens","filePath":"/root/.claude/plans/p.md"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"p1","content":"User has approved your plan. You can now start coding."}]}}`,
		}, handoff.PlanApproved, false},
		"rejected and stopped": {[]string{ask, plan,
			`{"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"p1","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."}]}}`,
			`{"type":"user","uuid":"r2","parentUuid":"r1","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`,
		}, handoff.PlanRejected, true},
		"not answered": {[]string{ask, plan}, handoff.PlanPending, false},
		// A tool error is no decision: the user never saw the plan
		// (issue 45: print mode offers no ExitPlanMode).
		"the tool failed": {[]string{ask, plan,
			`{"type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"p1","is_error":true,"content":"<tool_use_error>Error: No such tool available: ExitPlanMode</tool_use_error>"}]}}`,
		}, handoff.PlanPending, false},
		"stopped, then asked again": {[]string{ask, plan,
			`{"type":"user","uuid":"r2","parentUuid":"a1","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`,
			`{"type":"user","uuid":"u2","parentUuid":"r2","message":{"role":"user","content":"never mind, just port it"}}`,
		}, handoff.PlanPending, false},
	} {
		d := mustRead(t, claude, expect.Lines(c.lines...))
		if d.Session.PlanStatus != c.status || !strings.Contains(d.Session.Plan, "Port the lexer") {
			t.Errorf("%s: plan %q status %q, want %q", name, d.Session.Plan, d.Session.PlanStatus, c.status)
		}
		if d.Cancelled != c.cancelled {
			t.Errorf("%s: cancelled %v, want %v", name, d.Cancelled, c.cancelled)
		}
	}
}

// A title says the work: not a bare slash command, not the words Claude
// Code puts before an approved plan, whose heading it takes instead.
func TestTitleSkipsCommandsAndPlanBoilerplate(t *testing.T) {
	for want, requests := range map[string][]string{
		"fix the flaky login test":        {"/review", "fix the flaky login test"},
		"/orchestrator build a TODO app":  {"/orchestrator build a TODO app", "go on"},
		"/compact-notes":                  {"/compact-notes"},
		"Port the lexer to the new AST":   {"Implement the following plan:\n\n# Port the lexer to the new AST\n\n1. Split tokens"},
		"Split the tokens, then the scan": {"Implement the following plan:\n\nSplit the tokens, then the scan\n2. more"},
	} {
		var in []string
		for i, r := range requests {
			in = append(in, fmt.Sprintf(`{"type":"user","uuid":"u%d","message":{"role":"user","content":%s}}`, i, expect.JSONString(r)))
		}
		if d := mustRead(t, claude, expect.Lines(in...)); d.Title != want {
			t.Errorf("requests %q: title %q, want %q", requests, d.Title, want)
		}
	}
}

// A command sent to the background says so in its result's text, which is
// read only when the line may hold it: as written, or with its letters
// escaped.
func TestClaudeBackgroundTextEscaped(t *testing.T) {
	for _, text := range []string{`Command running in background with ID: b1`, `\u0043ommand running in backgro\u0075nd with ID: b1`, ` \n Command running in background`} {
		d := mustRead(t, claude, expect.Lines(
			`{"type":"user","uuid":"u","message":{"role":"user","content":"serve it"}}`,
			`{"type":"assistant","uuid":"a","parentUuid":"u","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm run serve"}}]}}`,
			`{"type":"user","uuid":"r","parentUuid":"a","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"`+text+`"}]}}`,
		))
		if c := expect.CommandNamed(d.Session.Commands, "npm run serve"); c == nil || c.Status != handoff.StatusBackground {
			t.Errorf("%s: %+v", text, c)
		}
	}
}

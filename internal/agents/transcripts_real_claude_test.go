package agents_test

import (
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// Expectations for the real Claude Code transcripts, established by
// reading each file (its lines printed with a script, not by this reader:
// the user lines, every tool call with its result, the queue operations,
// summaries and compaction lines).
func init() {
	ok, failed, background := handoff.StatusOK, handoff.StatusFailed, handoff.StatusBackground
	realExpectations = append(realExpectations,
		// Claude Code 1.0.98, /init in an empty directory: the command is
		// the request (its expanded prompt is an isMeta line); the Write of
		// CLAUDE.md was refused for want of permission ("Claude requested
		// permissions to write …"), a rejection, so no file was touched and
		// nothing failed; find and ls both exited 0; the last TodoWrite left
		// one item, completed.
		realExpectation{
			file: "claude-code/ccv/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl", agent: agents.ClaudeCode,
			title:       "/init",
			requests:    []string{"/init"},
			numCommands: 2,
			commands: []realCommand{
				{prefix: `find . -name "*.json"`, exit: exit(0), count: 1, status: ok},
				{prefix: "ls -la", exit: exit(0), count: 1, status: ok},
			},
			todos: []handoff.Todo{{Content: "Create CLAUDE.md with essential information", Status: "completed"}},
		},
		// Claude Code 1.0.108, a custom /orchestrator command. The main
		// thread ran no command: its first Edit of CLAUDE.md was refused
		// ("File has not been read yet", a tool error, not an edit), then
		// it read the file and made one MultiEdit of 6 edits. Two Task
		// subagents wrote their lines into this file (isSidechain): their
		// five Bash commands are the subagent's; `tree` failed without an
		// exit code (is_error, "lsd: 3: No such file…"), which a
		// subagent's failure does not make the session's open failure.
		// Four todos, all completed by the last TodoWrite.
		realExpectation{
			file: "claude-code/ccv/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", agent: agents.ClaudeCode,
			title:       "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください",
			requests:    []string{"/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"},
			numCommands: 5,
			commands: []realCommand{
				{prefix: "find /path/to/Demo -type f", exit: exit(0), count: 1, status: ok, by: "subagent"},
				{prefix: "tree /path/to/Demo -I", count: 1, status: failed, by: "subagent"},
				{prefix: "ls -la /path/to/Demo/todo-app/src/app", exit: exit(0), count: 1, status: ok, by: "subagent"},
			},
			files: map[string]realFile{"CLAUDE.md": {"edited", 6, ""}},
			todos: []handoff.Todo{
				{Content: "Discover available commands in the project", Status: "completed"},
				{Content: "Analyze current project structure", Status: "completed"},
				{Content: "Check package.json for dependencies and scripts", Status: "completed"},
				{Content: "Update CLAUDE.md with latest project information", Status: "completed"},
			},
		},
		// Claude Code 1.0.98, 438 lines of which 405 are the subagents'
		// (isSidechain): the main thread asked for a TODO app, delegated
		// it to Task subagents, and on the second request wrote
		// CLAUDE.md. The subagents created the app: 25 files (three
		// types/*.ts written twice, useTodos.test.ts once and edited five
		// times, page.tsx edited twice after two refused edits) and ran 52
		// distinct commands, among them `pnpm dev` moved to the background
		// and `npm run build`, failed four times. The summary line's leaf
		// is not a line of this file, so the title is the first request.
		realExpectation{
			file: "claude-code/ccv/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl", agent: agents.ClaudeCode,
			title:       "/orchestrator create TODO app by Next.js",
			requests:    []string{"/orchestrator create TODO app by Next.js", "Thanks! Please update CLAUDE.md for current changes"},
			numCommands: 52,
			commands: []realCommand{
				{prefix: "ls -la", exit: exit(0), count: 3, status: ok, by: "subagent"},
				{prefix: "pnpm dev --port 3001", count: 1, status: background, by: "subagent"},
				{prefix: "ls -la types/", count: 3, status: failed, by: "subagent"},
				{prefix: "npm run build", count: 4, status: failed, by: "subagent"},
				{prefix: "cd /path/to/Demo/todo-app && npx tsc --noEmit --skipLibCheck", exit: exit(0), count: 2, status: ok, by: "subagent"},
			},
			// Edits, a MultiEdit and a Write of files a subagent had
			// not read, each refused ("File has not been read yet"),
			// none followed by an edit that went through.
			failedEdits: map[string]expect.FailedEdit{
				"types/index.ts":                 {Count: 4, By: "subagent"},
				"types/state.ts":                 {Count: 2, By: "subagent"},
				"todo-app/src/hooks/useTodos.ts": {Count: 4, By: "subagent"},
			},
			files: map[string]realFile{
				"CLAUDE.md":                               {"created", 1, ""},
				"components/TodoItem.tsx":                 {"created", 1, "subagent"},
				"components/TodoList.tsx":                 {"created", 1, "subagent"},
				"components/AddTodo.tsx":                  {"created", 1, "subagent"},
				"components/Filter.tsx":                   {"created", 1, "subagent"},
				"components/index.ts":                     {"created", 1, "subagent"},
				"todo-app/src/app/page.tsx":               {"edited", 2, "subagent"},
				"todo-app/src/types/index.ts":             {"created", 1, "subagent"},
				"todo-app/src/components/TodoItem.tsx":    {"created", 1, "subagent"},
				"todo-app/src/components/TodoList.tsx":    {"created", 1, "subagent"},
				"todo-app/src/components/AddTodoForm.tsx": {"created", 1, "subagent"},
				"todo-app/src/lib/utils.ts":               {"created", 1, "subagent"},
				"types/todo.ts":                           {"created", 2, "subagent"},
				"types/filters.ts":                        {"created", 2, "subagent"},
				"types/actions.ts":                        {"created", 2, "subagent"},
				"types/state.ts":                          {"created", 1, "subagent"},
				"types/utils.ts":                          {"created", 1, "subagent"},
				"types/index.ts":                          {"created", 1, "subagent"},
				"types/react.ts":                          {"created", 1, "subagent"},
				"todo-app/src/hooks/useTodos.ts":          {"created", 1, "subagent"},
				"todo-app/src/hooks/useTodos.test.ts":     {"created", 6, "subagent"},
				"todo-app/src/hooks/index.ts":             {"created", 1, "subagent"},
				"todo-app/src/components/TodoApp.tsx":     {"created", 1, "subagent"},
				"todo-app/src/hooks/README.md":            {"created", 1, "subagent"},
				"todo-app/src/components/Filter.tsx":      {"created", 1, "subagent"},
				"todo-app/src/hooks/useSimpleTodos.ts":    {"created", 1, "subagent"},
			},
			todos: []handoff.Todo{
				{Content: "Set up Next.js project structure and dependencies", Status: "completed"},
				{Content: "Create core TODO data models and types", Status: "completed"},
				{Content: "Build TODO components (TodoItem, TodoList, AddTodo)", Status: "completed"},
				{Content: "Implement state management and CRUD operations", Status: "completed"},
				{Content: "Create main page layout and integrate components", Status: "completed"},
			},
		},
		// Claude Code 2.0.64 in /tmp/private: three files written, hello.py
		// edited once more, then "delete js" ran `rm hello.js`: a file
		// created and removed within the session is not reported.
		realExpectation{
			file: "claude-code/codemie/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl", agent: agents.ClaudeCode,
			title:       "create hello.py, md and js",
			requests:    []string{"create hello.py, md and js", "update py with one liner comment", "delete js"},
			numCommands: 1,
			commands:    []realCommand{{prefix: "rm hello.js", exit: exit(0), count: 1, status: ok}},
			files:       map[string]realFile{"hello.py": {"created", 2, ""}, "hello.md": {"created", 1, ""}},
		},
		// Claude Code 2.0.76. /clear opens the file (not a request). Two
		// prompts typed while the agent worked were enqueued and then
		// dequeued between turns: each became the next user line, and
		// counts once. ls -lh and stat of two sessions' files failed (exit
		// 1, no matches); later ls -lh and stat of other sessions' files
		// succeeded: the same actions, so no failure is open. The spec was
		// written to specs/.
		realExpectation{
			file: "claude-code/codemie/session-196820da.jsonl", agent: agents.ClaudeCode,
			title: "ultrathink there is logic that tracks files in claude folder for sso conversation tracking. there is a case when…",
			requests: []string{
				"ultrathink there is logic that tracks files in claude folder", "it's good, but the issue is that several processes of codemi",
				"we don't control claude code process - it's 3rd party tool t", "don't produce code, design solution first",
				"more context: the issue must be address, option 1 is not acc", "analyze history.jsonl. /clear command present there. in addi",
				"great, but there is existing logic for scanning history", "there is no need to track existing session, once /clear is f",
				"not getting about finalizing all sessios, query api, etc. lo", "the main idea is fine, however sessionOrchecstrator must not",
				"great, but keep in mind that new file will be at the same fo", "great, prepare focused step by step plan with clear action i",
				"create document in /specs folder",
			},
			numCommands: 39,
			commands: []realCommand{
				{prefix: "ls -lh ~/.claude/projects/-Users-Nikita-Levyankov-repos-org-codemie-ai-codemie-code/ae6c6696", exit: exit(1), count: 1, status: failed},
				{prefix: `stat -f "%Sm %N"`, exit: exit(1), count: 1, status: failed},
				{prefix: "ls -lh ~/.claude/projects/-Users-Nikita-Levyankov-repos-org-codemie-ai-codemie-code/6f183b50", exit: exit(0), count: 1, status: ok},
				{prefix: "mkdir -p /Users/user/repo/specs", exit: exit(0), count: 1, status: ok},
			},
			files: map[string]realFile{"specs/session-lifecycle-detection.md": {"created", 1, ""}},
			todos: []handoff.Todo{
				{Content: "Understand /clear session tracking problem", Status: "completed"},
				{Content: "Design solution approach for multi-session tracking", Status: "completed"},
				{Content: "Create final implementation plan", Status: "completed"},
			},
		},
		// Claude Code 2.0.76. One prompt was enqueued and removed (absorbed
		// mid-turn: its only record, a request at that point); another was
		// enqueued and taken back (popAll), then sent edited. Failures:
		// codemie-codex twice (exit 1), settled by a later codemie-codex
		// run that succeeded; grep … | jq (exit 5), settled by reading the
		// same file with cat | jq; a find | xargs sh -c (exit 1), settled
		// by a later find. The tech spec was written once and edited 18
		// times.
		realExpectation{
			file: "claude-code/codemie/session-3fe1b6bc.jsonl", agent: agents.ClaudeCode,
			title: "analyze existing codex folder for sessions structure and writen details. there is a need to implement metrics plugin…",
			requests: []string{
				"/bmad:bmm:workflows:create-tech-spec", "analyze existing codex folder for sessions structure and wri", "proceed",
				"a - run codex exec command to check real token data location", "check 019b7f07-4a68-7d10-a8ef-8454269f439d and event_msg typ",
				"doublecheck 019b7f04-0b04-7cd3-b739-bfa632f7459e it has grea", "p",
				"TODO is not acceptable, implementation must be full. comment", "d",
			},
			numCommands: 38,
			commands: []realCommand{
				{prefix: `codemie-codex --task "Calculate 5 factorial and explain`, exit: exit(1), count: 1, status: failed},
				{prefix: "codemie-codex --profile ollama", exit: exit(0), count: 1, status: ok},
				{prefix: `grep -r "token" ~/.codex/sessions/2026/01/02/rollout-2026-01-02T17-25-58`, exit: exit(5), count: 1, status: failed},
			},
			files: map[string]realFile{"_bmad-output/implementation-artifacts/tech-spec-codex-metrics-plugin.md": {"created", 19, ""}},
		},
		// Claude Code 2.0.76, compacted once (the summary, flagged
		// isCompactSummary, follows the boundary). The correction "no, add
		// conversationId field…" was typed mid-turn and lives only in a
		// queue-operation enqueue and remove. Two design documents were
		// created and then removed with rm ("don't create separate
		// documents"): only the architecture document's 23 edits remain.
		realExpectation{
			file: "claude-code/codemie/session-624a4a58.jsonl", agent: agents.ClaudeCode,
			title: "@src/providers/plugins/sso/ARCHITECTURE-REFACTORING.md review old and current implementation for claude metrics.…",
			requests: []string{
				"@src/providers/plugins/sso/ARCHITECTURE-REFACTORING.md revie", "it's bad idea, since entire converation will be proceed ever",
				"track it in the same file as metrics were originally tracked", "don't create separate documents. put into existing with conv",
				"no, it's not phase 1 there bunch of pahses completed", "ir's not jsonl file. it's json file with strcuture and there",
				"I think that processedRecordIds is exactly the same as lastS", "don't add notes, looks like there is a need to track codemie",
				"what about edge cases and error handling?", "before providing proposal for phase 4.1 check existing imple",
				"show me json strcuture for session tracking", "there are no tracking of failures for metrics. does it make ",
				"conversationId is the same as sessionId. let's set same valu", "update phase 4.1 document",
				"no, add conversationId field, but set value from sessionId",
			},
			numCommands: 3,
			commands: []realCommand{
				{prefix: "rm /Users/user/repo/CONVERSATION-INCREMENTAL-TRACKING-DESIGN.md", exit: exit(0), count: 1, status: ok},
			},
			files:      map[string]realFile{"src/providers/plugins/sso/ARCHITECTURE-REFACTORING.md": {"edited", 23, ""}},
			compaction: "## 1. Primary Request and Intent:",
		},
		// Claude Code 2.1.4. The file opens with sixteen summary lines of
		// other sessions (their leaves are not lines of this file): the
		// title is the first request. The Write of available-tools.md was
		// rejected by the user ("The user doesn't want to proceed…"): no
		// file, no failure. Two Explore subagents ran, with no file of
		// theirs beside this one.
		realExpectation{
			file: "claude-code/codemie/session-9eda1058.jsonl", agent: agents.ClaudeCode,
			title:    "show tools and store response in file",
			requests: []string{"show tools and store response in file", "explore more of current repo", "what else?"},
		},
		// Claude Code 2.1.7, four requests answered without a tool of the
		// session's own (two Explore subagents); its summary lines name
		// leaves of other sessions.
		realExpectation{
			file: "claude-code/codemie/incremental-simple-turn-2.jsonl", agent: agents.ClaudeCode,
			title:    "show tools",
			requests: []string{"show tools", "hi", "expore current repo and provide highlevel information", "tell me more about agent module"},
		},
		// Claude Code 2.1.7: one request, handed to the solution-architect
		// subagent a485154, whose transcript is
		// incremental-subagents-turn-2/subagents/agent-a485154.jsonl. The
		// session ran six commands and wrote the spec; the subagent's
		// three commands join them, marked as its.
		realExpectation{
			file: "claude-code/codemie/incremental-subagents-turn-2.jsonl", agent: agents.ClaudeCode,
			title:       `@"solution-architect (agent)" analyze existing CLI command and create specification for adding missing CLI commands.…`,
			requests:    []string{`@"solution-architect (agent)" analyze existing CLI command a`},
			numCommands: 9,
			commands: []realCommand{
				{prefix: `find . -name "*spec*.md"`, exit: exit(0), count: 1, status: ok},
				{prefix: "ls -lt | head -20", exit: exit(0), count: 1, status: ok},
				{prefix: `find . -name "*.md" -type f -mmin -10`, exit: exit(0), count: 1, status: ok},
				{prefix: "ls -la /Users/User/repo/codemie-ai/codemie-code/specs", exit: exit(0), count: 1, status: ok, by: "subagent a485154"},
				{prefix: `find /Users/User/repo/codemie-ai/codemie-code -name "package.json"`, exit: exit(0), count: 1, status: ok, by: "subagent a485154"},
				{prefix: "ls -la /Users/User/repo/codemie-ai/codemie-code/.codemie", exit: exit(0), count: 1, status: ok, by: "subagent a485154"},
			},
			files: map[string]realFile{"SPEC-NEW-CLI-COMMANDS.md": {"created", 1, ""}},
		},
		// The subagent's own file: every line isSidechain. Read alone it
		// is refused, naming the session it belongs to.
		realExpectation{
			file: "claude-code/codemie/incremental-subagents-turn-2/subagents/agent-a485154.jsonl", agent: agents.ClaudeCode,
			err: "a subagent transcript, not a session: every line is a subagent's (agent a485154) of session e9fb405b-169f-40eb-9396-7e75076f045d",
		},
	)
}

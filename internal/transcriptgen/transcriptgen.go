// Package transcriptgen writes realistic agent transcripts for tests and
// benchmarks: Claude Code sessions, Codex CLI rollouts and Gemini CLI
// recordings with requests, replies, tool calls whose outputs run to
// several kilobytes, edits, todo lists and token counts. Output is
// deterministic: the same seed and settings give the same bytes.
//
// The capture package's benchmarks and shape tests use it, and so does
// bench/gentranscript, which bench/capture.sh runs.
package transcriptgen

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"
)

// Gen writes plausible transcripts: requests, replies, tool calls with
// outputs of several kilobytes, edits, todo lists. A Gen writes one
// transcript; make a new one for the next.
type Gen struct {
	// Session is the session id written into the transcript.
	Session string
	// Start is the time of the first line; later lines are a few seconds
	// apart.
	Start time.Time
	// Branchy adds what makes a transcript hard to read: rewinds,
	// sidechains, parallel tool results, compactions, rollbacks and
	// broken lines. The benchmarks leave it off.
	Branchy bool

	r       *rand.Rand
	cwd     string
	now     time.Time
	n       int // lines written
	written int
	w       io.Writer
	buf     []byte
	err     error
	files   []string
}

// New returns a generator for a session in the directory cwd. The same
// seed and cwd (and the same Session, Start and Branchy) give the same
// bytes.
func New(seed uint64, cwd string) *Gen {
	g := &Gen{
		Session: "9f3c1a52-6b1e-4c41-9a3e-0d2f3b4c5d6e",
		Start:   time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
		r:       rand.New(rand.NewPCG(seed, 0x5eed)),
		cwd:     cwd,
	}
	for i := range 60 {
		g.files = append(g.files, fmt.Sprintf("%s/%s/%s_%d.%s", cwd, pick(g.r, dirsWords), pick(g.r, nameWords), i, pick(g.r, []string{"go", "ts", "py", "rs", "md"})))
	}
	return g
}

// Agents are the names Write takes, as the agents table spells them.
var Agents = []string{claudeCode, codex, gemini}

// The agents' names as the agents table spells them (it cannot be
// imported here: internal/transcript's tests use this package, and the
// table imports the readers).
const (
	claudeCode = "claude-code"
	codex      = "codex"
	gemini     = "gemini"
)

// Write writes a transcript of agent (one of Agents) of about size bytes:
// it stops after the turn that reaches size.
func (g *Gen) Write(agent string, w io.Writer, size int) error {
	switch agent {
	case claudeCode:
		return g.Claude(w, size)
	case codex:
		return g.Codex(w, size)
	case gemini:
		return g.Gemini(w, size)
	}
	return fmt.Errorf("transcriptgen: unknown agent %q (want %s)", agent, strings.Join(Agents, ", "))
}

var (
	dirsWords = []string{"internal/auth", "cmd/server", "pkg/store", "web/src", "lib", "api", "docs", "scripts"}
	nameWords = []string{"handler", "token", "parser", "store", "session", "middleware", "config", "router", "cache", "client"}
	words     = strings.Fields(`the a to of and in for is on that with by this be it as are from or at an not
		func return err nil if else struct type package import var const string int byte error context
		token refresh parser session middleware handler request response test failing passes build
		"quoted" path/to/file.go:42 {braces} [brackets] <angle> tab\there back\\slash ünïcode 日本語 ✓`)
	cmdWords = []string{"go test ./...", "go build ./...", "go vet ./...", "rg -n 'refresh' internal", "ls -la",
		"git status", "git diff --stat", "npm test", "make lint", "cat go.mod", "sed -n 1,80p internal/auth/token.go"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// text makes about n bytes of prose.
func (g *Gen) text(n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		b.WriteString(pick(g.r, words))
		if g.r.IntN(12) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// code makes about n bytes of source-like lines.
func (g *Gen) code(n int) string {
	var b strings.Builder
	b.Grow(n + 64)
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s\t%s(%s, %q)\n", strings.Repeat("\t", g.r.IntN(3)), pick(g.r, nameWords), pick(g.r, words), pick(g.r, words))
	}
	return b.String()
}

func (g *Gen) tick() string {
	g.now = g.now.Add(time.Duration(200+g.r.IntN(5000)) * time.Millisecond)
	return g.now.Format("2006-01-02T15:04:05.000Z")
}

func (g *Gen) id(prefix string) string {
	return fmt.Sprintf("%s%08x%08x", prefix, g.r.Uint32(), g.r.Uint32())
}

func (g *Gen) uuid() string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.r.Uint32(), g.r.IntN(1<<16), g.r.IntN(1<<12), g.r.IntN(1<<12), g.r.Uint64()&(1<<48-1))
}

// emit writes one JSON line.
func (g *Gen) emit(v any) {
	if g.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		g.err = err
		return
	}
	g.buf = append(append(g.buf, data...), '\n')
	g.written += len(data) + 1
	g.n++
	if len(g.buf) > 1<<20 {
		g.flush()
	}
}

func (g *Gen) flush() {
	if g.err == nil && len(g.buf) > 0 {
		_, g.err = g.w.Write(g.buf)
	}
	g.buf = g.buf[:0]
}

type obj = map[string]any

// Claude writes a Claude Code transcript of about size bytes to w.
func (g *Gen) Claude(w io.Writer, size int) error {
	g.w, g.now = w, g.Start
	parent := any(nil)
	line := func(typ string, extra obj) {
		u := g.uuid()
		m := obj{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": g.cwd,
			"sessionId": g.Session, "version": "2.0.35", "gitBranch": "main", "type": typ, "uuid": u, "timestamp": g.tick()}
		for k, v := range extra {
			m[k] = v
		}
		g.emit(m)
		parent = u
	}
	usage := func() obj {
		return obj{"input_tokens": g.r.IntN(50), "cache_creation_input_tokens": g.r.IntN(5000),
			"cache_read_input_tokens": 20000 + g.r.IntN(100000), "output_tokens": 10 + g.r.IntN(2000),
			"service_tier": "standard"}
	}
	assistant := func(content []any) {
		line("assistant", obj{"requestId": g.id("req_"), "message": obj{"id": g.id("msg_"), "type": "message", "role": "assistant",
			"model": "claude-sonnet-4-5-20250929", "content": content, "stop_reason": nil, "usage": usage()}})
	}
	g.emit(obj{"type": "summary", "summary": "Refresh token rotation", "leafUuid": g.uuid()})
	var earlier []any
	for turn := 0; g.written < size; turn++ {
		if g.Branchy && len(earlier) > 0 {
			switch g.r.IntN(8) {
			case 0: // a rewind to an earlier message
				parent = earlier[g.r.IntN(len(earlier))]
			case 1: // a compaction
				u := g.uuid()
				g.emit(obj{"type": "system", "subtype": "compact_boundary", "uuid": u, "parentUuid": nil, "logicalParentUuid": parent, "timestamp": g.tick()})
				parent = u
				line("user", obj{"isCompactSummary": true, "message": obj{"role": "user", "content": "This session is being continued. " + g.text(200)}})
			case 2: // a subagent's line, and a broken one
				g.emit(obj{"type": "user", "isSidechain": true, "uuid": g.uuid(), "parentUuid": parent, "message": obj{"content": "sidechain " + g.text(50)}})
				g.buf = append(g.buf, `{"type":"user","message":`+"\n"...)
			}
		}
		earlier = append(earlier, parent)
		line("user", obj{"message": obj{"role": "user", "content": g.text(100 + g.r.IntN(900))}})
		if turn%5 == 0 {
			g.emit(obj{"type": "file-history-snapshot", "messageId": g.uuid(), "isSnapshotUpdate": false,
				"snapshot": obj{"messageId": g.uuid(), "trackedFileBackups": obj{g.files[0]: obj{"backupFileName": g.id(""), "version": 2}}, "timestamp": g.tick()}})
		}
		for range 3 + g.r.IntN(6) {
			tid := g.id("toolu_")
			file := pick(g.r, g.files)
			var use obj
			var result any
			var tur obj
			isErr := false
			switch k := g.r.IntN(10); {
			case k < 3: // Read
				content := g.code(2000 + g.r.IntN(18000))
				use = obj{"type": "tool_use", "id": tid, "name": "Read", "input": obj{"file_path": file}}
				result = content
				tur = obj{"type": "text", "file": obj{"filePath": file, "content": content, "numLines": strings.Count(content, "\n"), "startLine": 1, "totalLines": 400}}
			case k < 5: // Edit
				old, nu := g.code(200+g.r.IntN(800)), g.code(200+g.r.IntN(800))
				orig := g.code(5000 + g.r.IntN(25000))
				use = obj{"type": "tool_use", "id": tid, "name": "Edit", "input": obj{"file_path": file, "old_string": old, "new_string": nu}}
				result = "The file " + file + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" + g.code(1500)
				tur = obj{"filePath": file, "oldString": old, "newString": nu, "originalFile": orig, "userModified": false, "replaceAll": false,
					"structuredPatch": []any{obj{"oldStart": 10, "oldLines": 5, "newStart": 10, "newLines": 7, "lines": strings.Split(g.code(600), "\n")}}}
			case k < 6: // Write
				content := g.code(1000 + g.r.IntN(8000))
				use = obj{"type": "tool_use", "id": tid, "name": "Write", "input": obj{"file_path": file, "content": content}}
				result = "File created successfully at: " + file
				tur = obj{"type": "create", "filePath": file, "content": content, "structuredPatch": []any{}}
			case k < 9: // Bash
				cmd := pick(g.r, cmdWords)
				out := g.text(1000 + g.r.IntN(15000))
				use = obj{"type": "tool_use", "id": tid, "name": "Bash", "input": obj{"command": cmd, "description": "Run " + cmd}}
				if g.r.IntN(6) == 0 {
					isErr = true
					result = "Exit code 1\n" + out
					tur = nil
				} else {
					result = out
					tur = obj{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
				}
			default: // TodoWrite
				var todos []any
				for j := range 3 + g.r.IntN(6) {
					todos = append(todos, obj{"content": fmt.Sprintf("Step %d: %s", j, g.text(40)), "status": pick(g.r, []string{"pending", "in_progress", "completed"}), "activeForm": "Doing it"})
				}
				use = obj{"type": "tool_use", "id": tid, "name": "TodoWrite", "input": obj{"todos": todos}}
				result = "Todos have been modified successfully."
				tur = obj{"oldTodos": []any{}, "newTodos": todos}
			}
			content := []any{use}
			if g.r.IntN(3) == 0 {
				content = append([]any{obj{"type": "text", "text": g.text(100 + g.r.IntN(400))}}, content...)
			}
			if g.Branchy && g.r.IntN(4) == 0 {
				// Two calls at once; the first result hangs off the call.
				tid2 := g.id("toolu_")
				content = append(content, obj{"type": "tool_use", "id": tid2, "name": "Bash", "input": obj{"command": "echo parallel"}})
				assistant(content)
				call := parent
				line("user", obj{"message": obj{"role": "user", "content": []any{obj{"tool_use_id": tid2, "type": "tool_result", "content": "Exit code 3\nparallel failed", "is_error": true}}}})
				parent = call
			} else {
				assistant(content)
			}
			block := obj{"tool_use_id": tid, "type": "tool_result", "content": result}
			if isErr {
				block["is_error"] = true
			}
			extra := obj{"message": obj{"role": "user", "content": []any{block}}}
			if tur != nil {
				extra["toolUseResult"] = tur
			}
			line("user", extra)
		}
		assistant([]any{obj{"type": "text", "text": g.text(300 + g.r.IntN(2000))}})
	}
	g.flush()
	return g.err
}

// Codex writes a Codex CLI rollout of about size bytes to w.
func (g *Gen) Codex(w io.Writer, size int) error {
	g.w, g.now = w, g.Start
	rec := func(typ string, payload obj) {
		g.emit(obj{"timestamp": g.tick(), "type": typ, "payload": payload})
	}
	rec("session_meta", obj{"id": g.Session, "timestamp": g.Start.Format(time.RFC3339), "cwd": g.cwd, "originator": "codex_cli_rs",
		"cli_version": "0.46.0", "instructions": g.text(3000), "git": obj{"commit_hash": "0123456789abcdef0123456789abcdef01234567", "branch": "main", "repository_url": "git@github.com:o/app.git"}})
	var inTok, outTok int
	for g.written < size {
		rec("turn_context", obj{"cwd": g.cwd, "approval_policy": "on-request", "sandbox_policy": obj{"mode": "workspace-write", "network_access": false},
			"model": "gpt-5-codex", "effort": "medium", "summary": "auto"})
		if g.Branchy {
			switch g.r.IntN(6) {
			case 0:
				rec("event_msg", obj{"type": "thread_rolled_back", "num_turns": 1 + g.r.IntN(3)})
			case 1:
				g.emit(obj{"type": "function_call", "name": "shell", "arguments": `{"command":["bash","-lc","make bare"]}`, "call_id": g.id("bare_")})
				g.buf = append(g.buf, `{"type":"event_msg","payload":`+"\n"...)
			case 2:
				rec("compacted", obj{"message": "Summary: " + g.text(100)})
			}
		}
		req := g.text(100 + g.r.IntN(900))
		rec("response_item", obj{"type": "message", "role": "user", "content": []any{obj{"type": "input_text", "text": req}}})
		rec("event_msg", obj{"type": "user_message", "message": req, "images": []any{}})
		for range 3 + g.r.IntN(6) {
			rec("response_item", obj{"type": "reasoning", "summary": []any{obj{"type": "summary_text", "text": "**" + g.text(60) + "**"}},
				"content": nil, "encrypted_content": "gAAAAA" + strings.Repeat(g.id("Zx"), 100+g.r.IntN(200))})
			rec("event_msg", obj{"type": "agent_reasoning", "text": "**" + g.text(60) + "**"})
			call := g.id("call_")
			switch k := g.r.IntN(10); {
			case k < 7:
				cmd := pick(g.r, cmdWords)
				args, _ := json.Marshal(obj{"cmd": cmd, "workdir": g.cwd, "yield_time_ms": 10000})
				rec("response_item", obj{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": call})
				out := g.text(1000 + g.r.IntN(15000))
				exit := 0
				if g.r.IntN(6) == 0 {
					exit = 1
				}
				rec("event_msg", obj{"type": "exec_command_end", "call_id": call, "stdout": out, "stderr": "", "aggregated_output": out,
					"exit_code": exit, "duration": obj{"secs": 0, "nanos": 41000000}, "formatted_output": out})
				rec("response_item", obj{"type": "function_call_output", "call_id": call,
					"output": fmt.Sprintf("Chunk ID: %s\nWall time: 0.0410 seconds\nProcess exited with code %d\nOriginal token count: 900\nOutput:\n%s", g.id(""), exit, out)})
			case k < 9:
				file := pick(g.r, g.files)
				patch := "*** Begin Patch\n*** Update File: " + file + "\n@@\n-" + strings.ReplaceAll(g.code(800), "\n", "\n-") + "\n+" + strings.ReplaceAll(g.code(900), "\n", "\n+") + "\n*** End Patch\n"
				rec("response_item", obj{"type": "custom_tool_call", "status": "completed", "call_id": call, "name": "apply_patch", "input": patch})
				out, _ := json.Marshal(obj{"output": "Success. Updated the following files:\nM " + file + "\n", "metadata": obj{"exit_code": 0, "duration_seconds": 0.0}})
				rec("event_msg", obj{"type": "patch_apply_end", "call_id": call, "stdout": "Success.", "stderr": "", "success": true})
				rec("response_item", obj{"type": "custom_tool_call_output", "call_id": call, "output": string(out)})
			default:
				var plan []any
				for j := range 3 + g.r.IntN(5) {
					plan = append(plan, obj{"step": fmt.Sprintf("Step %d: %s", j, g.text(40)), "status": pick(g.r, []string{"pending", "in_progress", "completed"})})
				}
				args, _ := json.Marshal(obj{"plan": plan})
				rec("response_item", obj{"type": "function_call", "name": "update_plan", "arguments": string(args), "call_id": call})
				rec("response_item", obj{"type": "function_call_output", "call_id": call, "output": "Plan updated"})
			}
			inTok += 20000 + g.r.IntN(5000)
			outTok += 100 + g.r.IntN(900)
			rec("event_msg", obj{"type": "token_count", "info": obj{
				"total_token_usage":    obj{"input_tokens": inTok, "cached_input_tokens": inTok / 2, "output_tokens": outTok, "reasoning_output_tokens": outTok / 3, "total_tokens": inTok + outTok},
				"last_token_usage":     obj{"input_tokens": 20000, "cached_input_tokens": 10000, "output_tokens": 300, "reasoning_output_tokens": 100, "total_tokens": 20300},
				"model_context_window": 272000},
				"rate_limits": obj{"primary": obj{"used_percent": 12.0, "window_minutes": 300}, "secondary": obj{"used_percent": 3.0, "window_minutes": 10080}}})
		}
		msg := g.text(300 + g.r.IntN(2000))
		rec("event_msg", obj{"type": "agent_message", "message": msg})
		rec("response_item", obj{"type": "message", "role": "assistant", "content": []any{obj{"type": "output_text", "text": msg}}})
		rec("event_msg", obj{"type": "task_complete", "last_agent_message": msg})
	}
	g.flush()
	return g.err
}

// Gemini writes a Gemini CLI recording (JSONL) of about size bytes to w.
func (g *Gen) Gemini(w io.Writer, size int) error {
	g.w, g.now = w, g.Start
	g.emit(obj{"sessionId": g.Session, "projectHash": filepath.Base(g.cwd), "startTime": g.Start.Format(time.RFC3339), "lastUpdated": g.Start.Format(time.RFC3339), "kind": "main"})
	for g.written < size {
		g.emit(obj{"id": g.uuid(), "timestamp": g.tick(), "type": "user", "content": []any{obj{"text": g.text(100 + g.r.IntN(900))}}})
		var calls []any
		for range 2 + g.r.IntN(4) {
			id := g.id("call-")
			if g.r.IntN(2) == 0 {
				out := g.text(1000 + g.r.IntN(8000))
				calls = append(calls, obj{"id": id, "name": "run_shell_command", "args": obj{"command": pick(g.r, cmdWords)}, "status": "success",
					"result": []any{obj{"functionResponse": obj{"id": id, "name": "run_shell_command", "response": obj{"output": out}}}}, "resultDisplay": out})
			} else {
				calls = append(calls, obj{"id": id, "name": "replace", "args": obj{"file_path": pick(g.r, g.files), "old_string": g.code(300), "new_string": g.code(300)}, "status": "success",
					"result": []any{obj{"functionResponse": obj{"id": id, "name": "replace", "response": obj{"output": "Successfully modified file"}}}}})
			}
		}
		g.emit(obj{"id": g.uuid(), "timestamp": g.tick(), "type": "gemini", "content": g.text(200 + g.r.IntN(1000)), "toolCalls": calls,
			"tokens": obj{"input": 20000, "output": 300, "cached": 10000, "thoughts": 100, "tool": 0, "total": 20400}, "model": "gemini-2.5-pro"})
		g.emit(obj{"$set": obj{"lastUpdated": g.now.Format(time.RFC3339), "summary": "Fix the refresh flow"}})
	}
	g.flush()
	return g.err
}

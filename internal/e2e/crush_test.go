//go:build e2e && e2e_crush

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// crush runs Crush (github.com/charmbracelet/crush, a Go binary) on OpenAI Chat
// Completions: a provider of type "openai-compat" in
// ~/.config/crush/crush.json. Its sessions are rows of the project's
// .crush/crush.db (SQLite), which ~/.local/share/crush/projects.json
// lists. It runs no command at session start or end (its one hook event
// is PreToolUse), so it takes part in no hook scenario; it has no
// 'mcp list', so its MCP session is a scenario of its own
// (TestCrushMCP). Its npm package (@charmland/crush) downloads the
// binary from GitHub releases when it installs, which the suite's
// machines cannot reach: these tests build with the tag e2e_crush, which
// scripts/e2e.sh sets when E2E_CRUSH_BIN names a crush binary.
var crush = agent{
	name: "crush", command: "crush",
	env: func(w *world) []string {
		return []string{
			// No catwalk provider list from the network, no metrics
			// (internal/config/load.go, internal/event of v0.90.0).
			"CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1",
			"CRUSH_DISABLE_METRICS=1",
			"DO_NOT_TRACK=1",
		}
	},
	setup: func(w *world) {
		w.writeHome(".config/crush/crush.json", crushConfig(w, 128000))
	},
	trustHooks: func(w *world) {},
	approveMCP: func(w *world) {}, // a project's crush.json's MCP servers start as they are
	// MCP tools are offered as mcp_SERVER_TOOL (internal/agent/tools/
	// mcp-tools.go of v0.90.0).
	mcpTool: func(name string) string { return "mcp_session-handoff_" + name },
	headless: func(w *world, prompt string) []string {
		return []string{"crush", "run", "--quiet", prompt}
	},
	// Crush summarises a session by itself when what is left of the
	// model's context window falls to a fifth of it or less (Run, the
	// StopWhen of internal/agent/agent.go v0.90.0): a context window of
	// 1,000 tokens is full after any answer of the fake model (1,020
	// tokens), and the summary ends the turn.
	compact: func(w *world, prompt string) []string {
		w.writeHome(".config/crush/crush.json", crushConfig(w, 1000))
		return []string{"crush", "run", "--quiet", "--continue", prompt}
	},
	// The summary prompt's first words (internal/agent/templates/
	// summary.md of v0.90.0).
	compactMarker: "You are summarizing a conversation to preserve context",
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "write", Args: map[string]any{"file_path": filepath.Join(w.project, rel), "content": content}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "bash", Args: map[string]any{"command": cmd, "description": "run it"}}
	},
}

// crushConfig is the user's crush.json: the fake model as the provider
// "fake", its one model of context window contextWindow as both the
// large and the small model.
func crushConfig(w *world, contextWindow int) string {
	return fmt.Sprintf(`{
  "$schema": "https://charm.land/crush.json",
  "providers": {
    "fake": {
      "type": "openai-compat",
      "base_url": %q,
      "api_key": "e2e-fake",
      "models": [{"id": "fake-model", "name": "fake", "context_window": %d, "default_max_tokens": 4096}]
    }
  },
  "models": {
    "large": {"model": "fake-model", "provider": "fake"},
    "small": {"model": "fake-model", "provider": "fake"}
  },
  "options": {"disable_provider_auto_update": true, "disable_metrics": true, "auto_lsp": false}
}
`, w.model.URL+"/v1", contextWindow)
}

// crushTitled answers Crush's title request (the small model's, no
// tools) with title, and the others as script does.
func crushTitled(title string, script fakemodel.Script) fakemodel.Script {
	return func(r fakemodel.Request) fakemodel.Turn {
		if len(r.Tools) == 0 && strings.Contains(string(r.Body), "Generate a concise title") {
			return fakemodel.Turn{Text: title}
		}
		return script(r)
	}
}

// crushRun runs one headless session with args, the model answering
// with script.
func crushRun(w *world, script fakemodel.Script, args ...string) []fakemodel.Request {
	w.t.Helper()
	w.model.Reset()
	w.model.SetScript(script)
	w.run(nil, args[0], args[1:]...)
	return w.model.Requests()
}

// crushDB is the project's database.
func crushDB(w *world) string { return filepath.Join(w.project, ".crush", "crush.db") }

// TestCrushWork runs the session whose database the Crush reader's
// expectations are written from (internal/agents/crush/testdata/
// real-e2e/work): the model keeps a todo list, writes calc.py, runs a
// test of it that fails (exit 1), edits it, runs the test again (exit 0)
// and a command that fails (exit 2); then a second turn, continuing the
// session (run --continue), views the file and answers. sessions and
// capture --from crush find and read it.
func TestCrushWork(t *testing.T) {
	forAgents(t, []agent{crush}, func(t *testing.T, w *world) {
		calc := filepath.Join(w.project, "calc.py")
		crushRun(w, crushTitled("Write calc.py and test it", fakemodel.Queue(
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "todos", Args: map[string]any{"todos": []any{
				map[string]any{"content": "Write calc.py", "status": "in_progress", "active_form": "Writing calc.py"},
				map[string]any{"content": "Test calc.py", "status": "pending", "active_form": "Testing calc.py"}}}}}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "calc.py", "def add(a, b):\n    return a - b\n")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("python3 -B -c 'import calc; assert calc.add(2, 3) == 5'")}},
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "edit", Args: map[string]any{"file_path": calc, "old_string": "return a - b", "new_string": "return a + b"}}}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("python3 -B -c 'import calc; print(calc.add(2, 3))'")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("ls does-not-exist")}},
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "todos", Args: map[string]any{"todos": []any{
				map[string]any{"content": "Write calc.py", "status": "completed", "active_form": "Writing calc.py"},
				map[string]any{"content": "Test calc.py", "status": "completed", "active_form": "Testing calc.py"}}}}}},
			fakemodel.Turn{Text: "calc.py adds; ls does-not-exist failed."})),
			w.agent.headless(w, "Write calc.py with an add function and test it")...)
		reqs := crushRun(w, fakemodel.Queue(
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "view", Args: map[string]any{"file_path": calc}}}},
			fakemodel.Turn{Text: "calc.py holds add."}),
			"crush", "run", "--quiet", "--continue", "Now show calc.py")
		// The continued session sent the first turn's work back.
		if body := string(mainRequests(reqs)[0].Body); !strings.Contains(body, "Exit code 2") {
			t.Errorf("the continued session's first request lacks the first run's failing command:\n%s", clip(body))
		}
		if _, err := os.Stat(crushDB(w)); err != nil {
			t.Fatalf("Crush wrote no database: %v", err)
		}
		// sessions finds it through projects.json, and capture --from
		// crush reads it.
		var listed []struct {
			Agent, Title, Path string
		}
		if err := json.Unmarshal([]byte(w.sh("sessions", "--from", "crush", "--json")), &listed); err != nil {
			t.Fatal(err)
		}
		if len(listed) != 1 || listed[0].Path != crushDB(w) || listed[0].Title != "Write calc.py and test it" {
			t.Errorf("sessions --from crush: %+v", listed)
		}
		w.sh("capture", "--from", "crush")
		recs := w.records()
		if len(recs) != 1 || recs[0].Tool != "crush" || !hasFile(recs[0], "calc.py") || !hasCommand(recs[0], "ls does-not-exist") ||
			recs[0].Session.LastFailure == nil || recs[0].Session.LastFailure.Command != "ls does-not-exist" {
			t.Errorf("capture --from crush stored %+v", recs)
		}
	})
}

// TestCrushCompaction: a session Crush summarised by itself (its context
// window full) reads with the summary the model wrote.
func TestCrushCompaction(t *testing.T) {
	forAgents(t, []agent{crush}, func(t *testing.T, w *world) {
		crushRun(w, crushTitled("Add a greeting file", fakemodel.Queue(
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "hello.txt", "hello from e2e\n")}},
			fakemodel.Turn{Text: "Wrote hello.txt."})),
			w.agent.headless(w, "add a greeting file")...)
		const summary = "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."
		args := w.agent.compact(w, "check the tree")
		reqs := crushRun(w, compacting(w.agent.compactMarker, summary,
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("git status --short")}},
			fakemodel.Turn{Text: "Checked the tree."}), args...)
		compacted := false
		for _, r := range reqs {
			compacted = compacted || strings.Contains(string(r.Body), w.agent.compactMarker)
		}
		if !compacted {
			t.Fatal("Crush sent the model no summary request")
		}
		w.sh("capture", "--from", "crush")
		recs := w.records()
		if len(recs) != 1 || recs[0].Session == nil || recs[0].Session.CompactionSummary != summary {
			t.Errorf("capture --from crush after the summary stored %+v", recs)
		}
	})
}

// TestCrushMCP: integrate crush --mcp registers session-handoff in the
// project's crush.json, and Crush offers its tools to the model, which
// saves a handoff through them.
func TestCrushMCP(t *testing.T) {
	forAgents(t, []agent{crush}, func(t *testing.T, w *world) {
		w.sh("integrate", w.agent.name, "--mcp")
		if c := w.doctorCheck("mcp:" + w.agent.name); c.Status != "ok" {
			t.Errorf("doctor on the MCP registration: %+v", c)
		}
		const step = "wire the e2e greeting into main.go"
		reqs := crushRun(w, crushTitled("Save a handoff", fakemodel.Queue(
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: w.agent.mcpTool("handoff_save"), Args: map[string]any{
				"title": "e2e greeting", "next_steps": []string{step}}}}},
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: w.agent.mcpTool("handoff_list"), Args: map[string]any{}}}},
			fakemodel.Turn{Text: "Saved and listed."})),
			w.agent.headless(w, "save a handoff, then list them")...)
		main := mainRequests(reqs)
		if len(main) == 0 || !main[0].Offers(w.agent.mcpTool("handoff_save")) {
			t.Fatalf("Crush did not offer session-handoff's tools: %v", main)
		}
		recs := w.records()
		if len(recs) != 1 || recs[0].Title != "e2e greeting" || len(recs[0].NextSteps) != 1 || recs[0].NextSteps[0] != step {
			t.Fatalf("after handoff_save the store holds %+v", recs)
		}
		if body := string(main[len(main)-1].Body); !strings.Contains(body, string(recs[0].ID)) {
			t.Errorf("handoff_list's answer to the model does not name %s:\n%s", recs[0].ID, clip(body))
		}
	})
}

// TestCrushSubagent: the model hands a task to Crush's agent tool, whose
// subagent (a session of its own, the task's child) views README.md; the
// session reads with the subagent's work folded in, and sessions lists
// the parent alone.
func TestCrushSubagent(t *testing.T) {
	forAgents(t, []agent{crush}, func(t *testing.T, w *world) {
		crushRun(w, crushTitled("Delegate the reading", fakemodel.Queue(
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "agent", Args: map[string]any{"prompt": "Read README.md and say what it holds"}}}},
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "view", Args: map[string]any{"file_path": filepath.Join(w.project, "README.md")}}}},
			fakemodel.Turn{Text: "README.md holds a title."},
			fakemodel.Turn{Text: "The subagent read README.md."})),
			w.agent.headless(w, "Have a subagent read README.md")...)
		var listed []struct{ ID, Title string }
		if err := json.Unmarshal([]byte(w.sh("sessions", "--from", "crush", "--json")), &listed); err != nil {
			t.Fatal(err)
		}
		if len(listed) != 1 || listed[0].Title != "Delegate the reading" {
			t.Errorf("sessions --from crush: %+v", listed)
		}
		w.sh("capture", "--from", "crush")
		recs := w.records()
		if len(recs) != 1 || recs[0].Session == nil || recs[0].Session.LastAgentMessage != "The subagent read README.md." {
			t.Errorf("capture --from crush stored %+v", recs)
		}
	})
}

// TestCrushBriefed: Crush runs no hook at session start, so it is briefed
// through its personal instruction file: a session captured with a next
// step, render --write puts the handoff in CRUSH.local.md, and the next
// session's system prompt carries it.
func TestCrushBriefed(t *testing.T) {
	forAgents(t, []agent{crush}, func(t *testing.T, w *world) {
		crushRun(w, crushTitled("Add a greeting file", fakemodel.Queue(
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "hello.txt", "hello from e2e\n")}},
			fakemodel.Turn{Text: "Wrote hello.txt."})),
			w.agent.headless(w, "add a greeting file")...)
		const step = "wire the e2e greeting into main.go"
		w.sh("capture", "--from", "crush", "--next", step)
		w.sh("render", "latest", "--as", "instructions", "--target", "crush", "--write")
		if _, err := os.Stat(filepath.Join(w.project, "CRUSH.local.md")); err != nil {
			t.Fatalf("render --write: %v", err)
		}
		reqs := mainRequests(crushRun(w, crushTitled("What next", fakemodel.Queue(fakemodel.Turn{Text: "Next: main.go."})),
			w.agent.headless(w, "what next?")...))
		if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), step) || !strings.Contains(string(reqs[0].Body), "hello.txt") {
			t.Fatalf("the briefed session's first request lacks the handoff:\n%s", clip(string(reqs[0].Body)))
		}
	})
}

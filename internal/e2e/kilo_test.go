//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// kilo runs Kilo Code's CLI (@kilocode/cli, a fork of OpenCode whose
// binary comes in the @kilocode/cli-linux-x64 package that bin/kilo
// finds) on OpenAI Chat Completions: a provider of the bundled
// @ai-sdk/openai-compatible in ~/.config/kilo/kilo.json, as OpenCode's.
// Its sessions are rows of ~/.local/share/kilo/kilo.db, OpenCode's
// SQLite layout (internal/agents/kilo).
var kilo = agent{
	name: "kilo", command: "kilo",
	// Nothing that reaches out: OpenCode's switches under Kilo's prefix,
	// and Kilo's own session ingest, codebase index and telemetry (the
	// flags of @kilocode/cli 7.7.7's binary).
	env: func(w *world) []string {
		return append(opencodeOffline("KILO_"), "KILO_DISABLE_SESSION_INGEST=1", "KILO_DISABLE_CODEBASE_INDEXING=1", "KILO_TELEMETRY_LEVEL=off")
	},
	// kilo.json is read as opencode.json is; Kilo installs
	// @kilocode/plugin into its config directory, as OpenCode its own.
	setup: func(w *world) {
		w.writeHome(".config/kilo/kilo.json", opencodeConfig(w, ""))
		depsInstalled(w, filepath.Join(w.home, ".config", "kilo"), "@kilocode/plugin", "7.7.7")
	},
	// A project's plugins load once Kilo has installed @kilocode/plugin
	// into .kilo, which it does online at its first start there; offline,
	// the install is marked as done, as OpenCode's.
	trustHooks: func(w *world) { depsInstalled(w, filepath.Join(w.project, ".kilo"), "@kilocode/plugin", "7.7.7") },
	// The plugin captures at session.idle in a process of its own.
	afterSession: waitForCapture,
	headless: func(w *world, prompt string) []string {
		return []string{"kilo", "run", prompt}
	},
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "write", Args: map[string]any{"filePath": filepath.Join(w.project, rel), "content": content}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "bash", Args: map[string]any{"command": cmd, "description": "run " + cmd}}
	},
}

// TestKiloWork runs the session whose database the Kilo reader's
// expectations are written from (internal/agents/kilo/testdata/real-e2e):
// the model keeps a todo list, writes calc.py, runs a test of it that fails (exit 1), edits
// it, runs the test again (exit 0) and a command that fails (exit 2);
// then a second turn, continuing the session (kilo run --continue),
// removes calc.py and completes the list. Then integrate --mcp
// registers session-handoff's MCP server, which Kilo connects to.
func TestKiloWork(t *testing.T) {
	forAgents(t, []agent{kilo}, func(t *testing.T, w *world) {
		calc := filepath.Join(w.project, "calc.py")
		todos := func(first, second string) fakemodel.Call {
			return fakemodel.Call{Name: "todowrite", Args: map[string]any{"todos": []any{
				map[string]any{"content": "Write calc.py", "status": first, "priority": "high"},
				map[string]any{"content": "Test calc.py", "status": second, "priority": "medium"}}}}
		}
		w.session("Write calc.py with an add function and test it",
			fakemodel.Turn{Calls: []fakemodel.Call{todos("in_progress", "pending")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "calc.py", "def add(a, b):\n    return a - b\n")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("python3 -B -c 'import calc; assert calc.add(2, 3) == 5'")}},
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "edit", Args: map[string]any{"filePath": calc, "oldString": "return a - b", "newString": "return a + b"}}}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("python3 -B -c 'import calc; print(calc.add(2, 3))'"), todos("completed", "in_progress")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("ls does-not-exist")}},
			fakemodel.Turn{Text: "calc.py adds; ls does-not-exist failed."})
		w.sessionArgs([]string{"kilo", "run", "--continue", "Now remove calc.py"},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("rm calc.py")}},
			fakemodel.Turn{Calls: []fakemodel.Call{todos("completed", "completed")}},
			fakemodel.Turn{Text: "Removed calc.py."})
		// sessions finds it, and capture --from kilo reads it.
		var listed []struct {
			Agent, Title, Path string
		}
		if err := json.Unmarshal([]byte(w.sh("sessions", "--from", "kilo", "--json")), &listed); err != nil {
			t.Fatal(err)
		}
		if len(listed) != 1 || listed[0].Path != filepath.Join(w.home, ".local", "share", "kilo", "kilo.db") {
			t.Errorf("sessions --from kilo: %+v", listed)
		}
		w.sh("capture", "--from", "kilo")
		recs := w.records()
		if len(recs) != 1 || recs[0].Tool != "kilo" || !hasCommand(recs[0], "ls does-not-exist") ||
			!hasCommand(recs[0], "rm calc.py") || recs[0].Session.LastFailure == nil || recs[0].Session.LastFailure.Command != "ls does-not-exist" {
			t.Errorf("capture --from kilo stored %+v", recs)
		}
		// integrate --mcp registers the server in the project's
		// kilo.json, and Kilo connects to it.
		w.sh("integrate", "kilo", "--mcp")
		if out := w.combined("kilo", "mcp", "list"); !strings.Contains(out, "session-handoff") || !strings.Contains(out, "connected") {
			t.Errorf("kilo mcp list after integrate kilo --mcp:\n%s", out)
		}
	})
}

// TestKiloBriefed: with session-handoff's plugin installed (integrate
// kilo, OpenCode's plugin in .kilo/plugin), a session is captured when
// it goes idle, and the next one's first request carries the briefing.
// Kilo is in no scenario of the table (hookAgents): each of its runs
// costs 15 to 35 s of start-up, and this is the one its hooks need.
func TestKiloBriefed(t *testing.T) {
	forAgents(t, []agent{kilo}, func(t *testing.T, w *world) {
		w.sh("integrate", "kilo")
		w.agent.trustHooks(w)
		captureAndBrief(t, w)
	})
}

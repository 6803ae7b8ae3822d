//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// pi runs pi (@mariozechner/pi-coding-agent, a node program: dist/cli.js)
// on OpenAI Chat Completions, a provider of its own in
// ~/.pi/agent/models.json ("api": "openai-completions"). It runs no hook
// commands: integrate pi writes an extension of ours into
// .pi/extensions, which pi loads without asking. It has no MCP.
var pi = agent{
	name: "pi", command: "pi",
	env: func(w *world) []string {
		return []string{
			// No start-up network: no version check, no fd/rg download,
			// no package update (dist/main.js, utils/version-check.js,
			// utils/tools-manager.js of 0.73.1).
			"PI_OFFLINE=1",
			"PI_SKIP_VERSION_CHECK=1",
			// No install telemetry (core/telemetry.js).
			"PI_TELEMETRY=0",
		}
	},
	setup: func(w *world) {
		w.writeHome(".pi/agent/models.json", piModels(w))
		w.writeHome(".pi/agent/settings.json", "{}\n")
	},
	trustHooks: func(w *world) {}, // pi loads a project's .pi/extensions as they are
	headless: func(w *world, prompt string) []string {
		return []string{"pi", "-p", "--provider", "fake", "--model", "fake-model", prompt}
	},
	// pi compacts on its own past contextWindow - compaction.reserveTokens
	// (core/compaction/compaction.js, shouldCompact): with a reserve of
	// all but 100 tokens, the continued session, whose last answer
	// claimed 1,000, compacts before its first model call
	// (agent-session.js, prompt: "Check if we need to compact before
	// sending"). print mode has no /compact (the interactive mode's
	// command).
	compact: func(w *world, prompt string) []string {
		w.writeHome(".pi/agent/settings.json", `{"compaction": {"enabled": true, "reserveTokens": 127900}}`+"\n")
		return []string{"pi", "-c", "-p", "--provider", "fake", "--model", "fake-model", prompt}
	},
	// The system prompt of every summarisation request, the first
	// (SUMMARIZATION_PROMPT) and the later ones that update a summary
	// (core/compaction/utils.js, SUMMARIZATION_SYSTEM_PROMPT).
	compactMarker: "You are a context summarization assistant",
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		return fakemodel.Call{Name: "write", Args: map[string]any{"path": rel, "content": content}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "bash", Args: map[string]any{"command": cmd}}
	},
}

// piModels is pi's models.json: one provider, "fake", at the fake model.
// The compat switches keep the system prompt a "system" message and
// send no reasoning_effort (docs/models.md of 0.73.1).
func piModels(w *world) string {
	return fmt.Sprintf(`{
  "providers": {
    "fake": {
      "baseUrl": %q,
      "api": "openai-completions",
      "apiKey": "e2e-fake",
      "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
      "models": [{"id": "fake-model", "contextWindow": 128000, "maxTokens": 4096}]
    }
  }
}
`, w.model.URL+"/v1")
}

// piEdit is the model's call of pi's edit tool: one replacement.
func piEdit(rel, old, new string) fakemodel.Call {
	return fakemodel.Call{Name: "edit", Args: map[string]any{"path": rel, "edits": []any{map[string]any{"oldText": old, "newText": new}}}}
}

// TestPiWork runs the session whose transcript the pi reader's
// expectations are written from (internal/agents/pi/testdata/real-e2e):
// the model writes calc.py, runs a test of it that fails (exit 1), edits
// it, runs the test again (exit 0) and a command that fails (exit 2);
// then a second turn, continuing the session (pi -c), reads the file and
// answers. pi keeps no todo list.
func TestPiWork(t *testing.T) {
	forAgents(t, []agent{pi}, func(t *testing.T, w *world) {
		w.session("Write calc.py with an add function and test it",
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "calc.py", "def add(a, b):\n    return a - b\n")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("python3 -B -c 'import calc; assert calc.add(2, 3) == 5'")}},
			fakemodel.Turn{Calls: []fakemodel.Call{piEdit("calc.py", "return a - b", "return a + b")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("python3 -B -c 'import calc; print(calc.add(2, 3))'")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("ls does-not-exist")}},
			fakemodel.Turn{Text: "calc.py adds; ls does-not-exist failed."})
		reqs := w.sessionArgs([]string{"pi", "-c", "-p", "--provider", "fake", "--model", "fake-model", "Now show calc.py"},
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "read", Args: map[string]any{"path": "calc.py"}}}},
			fakemodel.Turn{Text: "calc.py holds add."})
		// The continued session sent the first turn's work back.
		if body := string(mainRequests(reqs)[0].Body); !strings.Contains(body, "Command exited with code 2") {
			t.Errorf("the continued session's first request lacks the first run's failing command:\n%s", clip(body))
		}
		sessions, err := filepath.Glob(filepath.Join(w.home, ".pi", "agent", "sessions", "*", "*.jsonl"))
		if err != nil || len(sessions) != 1 {
			t.Fatalf("pi wrote sessions %v (%v), want one continued session", sessions, err)
		}
		// sessions finds it, and capture --from pi reads it.
		var listed []struct {
			Agent, Title, Path string
		}
		if err := json.Unmarshal([]byte(w.sh("sessions", "--from", "pi", "--json")), &listed); err != nil {
			t.Fatal(err)
		}
		if len(listed) != 1 || listed[0].Path != sessions[0] || listed[0].Title != "Write calc.py with an add function and test it" {
			t.Errorf("sessions --from pi: %+v", listed)
		}
		w.sh("capture", "--from", "pi")
		recs := w.records()
		if len(recs) != 1 || recs[0].Tool != "pi" || !hasFile(recs[0], "calc.py") || !hasCommand(recs[0], "ls does-not-exist") ||
			recs[0].Session.LastFailure == nil || recs[0].Session.LastFailure.Command != "ls does-not-exist" {
			t.Errorf("capture --from pi stored %+v", recs)
		}
	})
}

// piBranchExtension is a pi extension for TestPiBranch: its command
// /e2e-branch moves the session back to before its first request,
// summarising the branch it leaves (the /tree navigation of the
// interactive mode, core/agent-session.js navigateTree), and it aborts
// the turn when the model runs `sleep 30` (the user's Escape).
const piBranchExtension = `export default function (pi) {
  pi.registerCommand("e2e-branch", {
    description: "branch before the first request",
    handler: async (_args, ctx) => {
      const first = ctx.sessionManager.getEntries().find((e) => e.type === "message" && e.message.role === "user");
      await ctx.navigateTree(first.id, { summarize: true });
    },
  });
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName === "bash" && event.input.command === "sleep 30") ctx.abort();
  });
}
`

// TestPiBranch runs a session, then continues it on a new branch: the
// first run writes calc.py and runs a command; the second moves back to
// before the first request (a branch summary), asks for notes.md
// instead, and is cancelled while its model runs sleep 30. The session
// is the second branch: the first one stays in the file.
func TestPiBranch(t *testing.T) {
	forAgents(t, []agent{pi}, func(t *testing.T, w *world) {
		w.session("Write calc.py",
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "calc.py", "def add(a, b):\n    return a + b\n")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("python3 -c 'import calc'")}},
			fakemodel.Turn{Text: "Wrote calc.py."})
		ext := filepath.Join(w.home, "e2e-branch.js")
		w.writeFile(ext, piBranchExtension, 0o644)
		w.model.Reset()
		w.model.SetScript(fakemodel.Queue(
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "notes.md", "# notes\n")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("sleep 30")}},
			fakemodel.Turn{Text: "never sent: the turn is cancelled"}))
		// pi -p exits 1 when the last answer was aborted.
		out, errOut, err := w.try(nil, "pi", "-c", "-e", ext, "-p", "--provider", "fake", "--model", "fake-model", "/e2e-branch", "Write notes.md instead")
		t.Logf("pi: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
		// The session is the branch it ended on.
		w.sh("capture", "--from", "pi")
		recs := w.records()
		if len(recs) != 1 || !hasFile(recs[0], "notes.md") || hasFile(recs[0], "calc.py") || hasCommand(recs[0], "python3 -c 'import calc'") ||
			recs[0].Title != "Write notes.md instead" {
			t.Errorf("capture --from pi stored %+v", recs)
		}
	})
}

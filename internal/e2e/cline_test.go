//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// TestClineSession: a headless Cline session that creates a file, runs a
// command that fails, edits the file, runs one that succeeds and ends
// with an answer leaves its transcript where Cline keeps its sessions,
// ending with the run's completion.
func TestClineSession(t *testing.T) {
	forAgents(t, []agent{cline}, func(t *testing.T, w *world) {
		calc := filepath.Join(w.project, "calc.py")
		w.session("write calc.py with an add function and test it",
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "editor", Args: map[string]any{"path": calc, "new_text": "def add(a, b):\n    return a - b\n"}}}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("python3 -c 'import calc; assert calc.add(2, 2) == 4'")}},
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "editor", Args: map[string]any{"path": calc, "old_text": "return a - b", "new_text": "return a + b"}}}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("python3 -c 'import calc; print(calc.add(2, 3))'")}},
			fakemodel.Turn{Text: "calc.py adds; the test passes."})
		if got, err := os.ReadFile(calc); err != nil || string(got) != "def add(a, b):\n    return a + b\n" {
			t.Fatalf("calc.py after the session: %q, %v", got, err)
		}
		messages, err := filepath.Glob(filepath.Join(w.home, ".cline", "data", "sessions", "*", "*.messages.json"))
		if err != nil || len(messages) != 1 {
			t.Fatalf("Cline's sessions hold %v (%v), want one messages file", messages, err)
		}
		data, err := os.ReadFile(messages[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"name": "editor"`, "[Command exited with code 1]", `"name": "submit_and_exit"`, "Submission recorded (verified): Done: calc.py adds"} {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s lacks %s:\n%s", messages[0], want, clip(string(data)))
			}
		}
		// sessions lists it, in the project; capture reads it.
		if out := w.sh("sessions", "--from", "cline"); !strings.Contains(out, "write calc.py with an add function") {
			t.Errorf("sessions --from cline does not list the session:\n%s", out)
		}
		w.sh("capture", "--from", "cline")
		recs := w.records()
		if len(recs) != 1 || recs[0].Session == nil {
			t.Fatalf("after capture the store holds %+v, want one record of the session", recs)
		}
		r := recs[0]
		if r.Tool != "cline" || r.Title != "write calc.py with an add function and test it" || r.Session.AgentVersion == "" {
			t.Errorf("record: tool %q, title %q, version %q", r.Tool, r.Title, r.Session.AgentVersion)
		}
		if !hasFile(r, "calc.py") {
			t.Errorf("record lists files %+v, want calc.py", r.Files)
		}
		var statuses []string
		for _, c := range r.Session.Commands {
			exit := "?"
			if c.ExitCode != nil {
				exit = fmt.Sprint(*c.ExitCode)
			}
			statuses = append(statuses, exit+" "+c.Status)
		}
		if strings.Join(statuses, ", ") != "1 failed, 0 ok" {
			t.Errorf("commands %+v: exits and statuses %q, want 1 failed, 0 ok", r.Session.Commands, statuses)
		}
		// The model's answer went as its submit_and_exit call (finish).
		if r.Session.LastAgentMessage != "Done: calc.py adds; the test passes." {
			t.Errorf("last agent message %q", r.Session.LastAgentMessage)
		}
	})
}

// cline runs Cline CLI (npm cline, whose bin/cline finds the Bun-compiled
// binary of @cline/cli-linux-x64) on OpenAI Chat Completions through its
// openai-compatible provider, with auto-approval (--yolo). A run in that
// mode ends only when the model calls submit_and_exit: a model that only
// answers is told "[SYSTEM] This run is not complete until you call one
// of these terminal completion tools" and asked again (finish).
var cline = agent{
	name: "cline", command: "cline",
	env: func(w *world) []string {
		return []string{
			// Its state lives in $CLINE_DIR, else ~/.cline
			// (@cline/shared 0.0.86, storage/paths.ts resolveClineDir):
			// named here so that no other HOME can leak in.
			"CLINE_DIR=" + filepath.Join(w.home, ".cline"),
			// No update check or install at start (bin/cline of 3.0.65).
			"CLINE_NO_AUTO_UPDATE=1",
		}
	},
	setup: func(w *world) {
		w.writeHome(".cline/data/settings/providers.json", clineProviders(w, 0))
		// No telemetry, no automatic update (global-settings.ts of
		// @cline/core 0.0.86, GlobalSettingsSchema).
		w.writeHome(".cline/data/settings/global-settings.json", `{"telemetryOptOut": true, "autoUpdateEnabled": false}`+"\n")
	},
	trustHooks: func(w *world) {}, // Cline runs the hook files it finds
	headless: func(w *world, prompt string) []string {
		return []string{"cline", "--yolo", prompt}
	},
	// The plugin integrate installs starts the capture when the run
	// ends, in a process of its own (a plugin's hook has 3 seconds).
	afterSession: waitForCapture,
	finish: func(text string) fakemodel.Call {
		// Its summary must be at least 10 characters (SubmitInputSchema).
		return fakemodel.Call{Name: "submit_and_exit", Args: map[string]any{"summary": "Done: " + text, "verified": true}}
	},
	// Cline compacts on its own once a request reaches 90% of the
	// model's context window (COMPACTION_TRIGGER_RATIO); a provider's
	// contextWindow of 3,000 tokens is below its system prompt and
	// tools, so the session compacts before its first model call.
	compact: func(w *world, prompt string) []string {
		w.writeHome(".cline/data/settings/providers.json", clineProviders(w, 3000))
		return []string{"cline", "--yolo", prompt}
	},
	// The agentic compaction's prompt (@cline/core 0.0.86).
	compactMarker: "Summarize this session for continuation",
	writeFile: func(w *world, rel, content string) fakemodel.Call {
		// editor creates a missing file from new_text alone.
		return fakemodel.Call{Name: "editor", Args: map[string]any{"path": filepath.Join(w.project, rel), "new_text": content}}
	},
	shell: func(cmd string) fakemodel.Call {
		return fakemodel.Call{Name: "run_commands", Args: map[string]any{"commands": []string{cmd}}}
	},
}

// clineProviders is Cline's providers.json as `cline auth --provider
// openai-compatible --apikey K --modelid M --baseurl URL` writes it,
// pointing at the fake model; contextWindow, when not 0, is the model's
// context window in tokens. Cline replaces a file that fails its schema
// (updatedAt is required) with its default provider, without a word
// (StoredProviderSettingsSchema, @cline/core 0.0.86).
func clineProviders(w *world, contextWindow int) string {
	window := ""
	if contextWindow > 0 {
		window = fmt.Sprintf(",\n        \"contextWindow\": %d", contextWindow)
	}
	return fmt.Sprintf(`{
  "version": 1,
  "lastUsedProvider": "openai-compatible",
  "modes": {},
  "providers": {
    "openai-compatible": {
      "settings": {
        "provider": "openai-compatible",
        "apiKey": "e2e-fake",
        "model": "gpt-4.1",
        "baseUrl": %q%s
      },
      "updatedAt": "2026-01-01T00:00:00.000Z",
      "tokenSource": "manual"
    }
  }
}
`, w.model.URL+"/v1", window)
}

// TestClineMCP: Cline reads MCP servers from the user's settings alone:
// integrate --mcp says so and registers nothing in the project; with
// --user the session's model calls handoff_save and handoff_list through
// it (Cline names them SERVER__TOOL).
func TestClineMCP(t *testing.T) {
	forAgents(t, []agent{cline}, func(t *testing.T, w *world) {
		if _, errOut, err := w.try(nil, program, "integrate", "cline", "--mcp"); err == nil || !strings.Contains(errOut, "use --user") {
			t.Errorf("integrate cline --mcp in the project: %v, %s", err, errOut)
		}
		w.sh("integrate", "cline", "--mcp", "--user")
		const step = "wire the e2e greeting into main.go"
		w.session("save a handoff, then list them",
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "session-handoff__handoff_save", Args: map[string]any{"title": "e2e greeting", "next_steps": []string{step}}}}},
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: "session-handoff__handoff_list", Args: map[string]any{}}}},
			fakemodel.Turn{Text: "Saved and listed."})
		recs := w.records()
		if len(recs) != 1 || recs[0].Title != "e2e greeting" || len(recs[0].NextSteps) != 1 || recs[0].NextSteps[0] != step {
			t.Errorf("after handoff_save the store holds %+v, want the saved handoff", recs)
		}
		var listed bool
		for _, r := range w.model.Requests() {
			listed = listed || strings.Contains(string(r.Body), "e2e greeting") && strings.Contains(string(r.Body), "handoff(s), newest first")
		}
		if !listed {
			t.Error("no request carries handoff_list's answer")
		}
	})
}

//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// agentsUnderTest are the agents every scenario runs for.
var agentsUnderTest = []agent{claudeCode, codex, gemini}

// hookAgents and mcpAgents are the agents the hook and MCP scenarios
// run for: every agent whose hooks, or MCP registration, integrate
// installs (Cline's hooks are a plugin of ours, and its MCP servers the
// user's alone: TestClineMCP; pi's hooks are an extension of ours; it has
// no MCP).
var (
	mcpAgents  = append(append([]agent(nil), agentsUnderTest...), copilot, opencode, qwenCode)
	hookAgents = append(append([]agent(nil), mcpAgents...), cline, pi)
	// compactAgents are the agents the compaction scenario runs for.
	compactAgents = hookAgents
)

// forAgents runs scenario once for each of agents, each in a fresh world.
func forAgents(t *testing.T, agents []agent, scenario func(t *testing.T, w *world)) {
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			scenario(t, newWorld(t, a))
		})
	}
}

// forEachAgent runs scenario once per agent, each in a fresh world.
func forEachAgent(t *testing.T, scenario func(t *testing.T, w *world)) {
	forAgents(t, agentsUnderTest, scenario)
}

// TestCaptureAndBrief: with the hooks installed, a session in which the
// model writes a file and runs a command is captured at its end, and the
// next session's request to the model carries the briefing.
func TestCaptureAndBrief(t *testing.T) {
	forAgents(t, hookAgents, func(t *testing.T, w *world) {
		w.sh("integrate", w.agent.name)
		w.agent.trustHooks(w)
		captureAndBrief(t, w)
	})
}

// TestPackage: the Claude Code plugin and the Gemini CLI extension that
// integrate writes pass the agent's own checks and, loaded, capture a
// session and brief the next as the hooks do. (Codex has no package.)
func TestPackage(t *testing.T) {
	for _, a := range agentsUnderTest {
		if a.installPackage == nil {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			w := newWorld(t, a)
			a.installPackage(w, filepath.Join(w.home, "packages"))
			captureAndBrief(t, w)
		})
	}
}

// captureAndBrief runs a session in which the model writes a file and
// runs a command, checks the store's record of it, then checks that the
// next session's first request to the model carries the briefing.
func captureAndBrief(t *testing.T, w *world) {
	w.session("add a greeting file and check the tree",
		fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "hello.txt", "hello from e2e\n")}},
		fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("git status --short")}},
		fakemodel.Turn{Text: "Wrote hello.txt and checked git status."})
	if w.agent.afterSession != nil {
		w.agent.afterSession(w, 0)
	}
	recs := w.records()
	if len(recs) != 1 {
		t.Fatalf("the store holds %d records after the first session, want 1", len(recs))
	}
	r := recs[0]
	if r.Tool != w.agent.name || r.Session == nil {
		t.Fatalf("record %s: tool %q, session %v", r.ID, r.Tool, r.Session)
	}
	if !hasFile(r, "hello.txt") {
		t.Errorf("record %s lists files %+v, want hello.txt", r.ID, r.Files)
	}
	if !hasCommand(r, "git status --short") {
		t.Errorf("record %s lists commands %+v, want git status --short", r.ID, r.Session.Commands)
	}
	reqs := mainRequests(w.session("what next?", fakemodel.Turn{Text: "Nothing to do."}))
	if w.agent.afterSession != nil {
		// Its capture too, before the world is removed under it.
		w.agent.afterSession(w, len(recs))
	}
	if len(reqs) == 0 {
		t.Fatal("the second session sent the model no request")
	}
	if body := string(reqs[0].Body); !strings.Contains(body, "hello.txt") || !strings.Contains(body, string(r.ID)) {
		t.Errorf("the second session's first request does not carry the briefing (hello.txt and id %s):\n%s", r.ID, clip(body))
	}
	// The briefing names a tool only when the agent offers it.
	for _, tool := range []string{"TaskCreate", "TaskUpdate", "TodoWrite", "update_plan", "write_todos"} {
		body := string(reqs[0].Body)
		named := strings.Contains(body, "("+tool+")") || strings.Contains(body, "("+tool+"/") || strings.Contains(body, "/"+tool+")")
		if named && !reqs[0].Offers(tool) {
			t.Errorf("the briefing names %s, which the request does not offer (it offers %v)", tool, reqs[0].Tools)
		}
	}
	// The only changes the session did not make are the settings
	// integrate wrote: nobody's work, so not listed as such.
	if body := string(reqs[0].Body); strings.Contains(body, "Dirty in git but not touched by the session") {
		t.Errorf("the briefing lists the agent's settings as someone else's changes:\n%s", clip(body))
	}
}

// TestMCP: integrate --mcp registers the MCP server so that the agent's
// own `mcp list` finds it connected (with session-handoff off PATH), and
// a session's model can call handoff_save, handoff_list and
// handoff_resume through it (behind the agent's tool search where it has
// one).
func TestMCP(t *testing.T) {
	forAgents(t, mcpAgents, func(t *testing.T, w *world) {
		w.sh("integrate", w.agent.name, "--mcp")
		w.agent.approveMCP(w)
		// session-handoff is not on the agents' PATH: the registration
		// must name it by its absolute path, as the hooks do.
		show := []string{"mcp", "list"}
		if w.agent.mcpShow != nil {
			show = w.agent.mcpShow
		}
		if out := w.combined(w.agent.command, show...); !w.agent.mcpConnected(out) || !strings.Contains(out, program) {
			t.Fatalf("%s mcp list does not show session-handoff (%s) connected:\n%s", w.agent.command, program, out)
		}
		if c := w.doctorCheck("mcp:" + w.agent.name); c.Status != "ok" {
			t.Errorf("doctor on the MCP registration: %+v", c)
		}
		const step, decision = "wire the e2e greeting into main.go", "keep greetings in hello.txt: one place to edit"
		var turns []fakemodel.Turn
		if c := w.agent.toolSearch; c != nil {
			turns = append(turns, fakemodel.Turn{Calls: []fakemodel.Call{*c}})
		}
		call := w.agent.mcpCall
		if call == nil {
			call = func(name string, args map[string]any) fakemodel.Call {
				return fakemodel.Call{Name: w.agent.mcpTool(name), Args: args}
			}
		}
		turns = append(turns,
			fakemodel.Turn{Calls: []fakemodel.Call{call("handoff_save", map[string]any{
				"title": "e2e greeting", "next_steps": []string{step}, "decisions": []string{decision}})}},
			fakemodel.Turn{Calls: []fakemodel.Call{call("handoff_list", map[string]any{})}},
			fakemodel.Turn{Calls: []fakemodel.Call{call("handoff_resume", map[string]any{})}},
			fakemodel.Turn{Text: "Saved, listed and resumed."})
		reqs := mainRequests(w.session("save a handoff, list them, then resume", turns...))
		recs := w.records()
		if len(recs) != 1 || recs[0].Title != "e2e greeting" || len(recs[0].NextSteps) != 1 || recs[0].NextSteps[0] != step {
			t.Fatalf("after handoff_save the store holds %+v, want one record titled \"e2e greeting\" with the next step", recs)
		}
		id := string(recs[0].ID)
		n := len(reqs)
		if n < 3 {
			t.Fatalf("the model got %d requests, want the answers to list and resume", n)
		}
		// The request after handoff_list carries the list's answer; the
		// last one carries handoff_resume's briefing.
		if body := string(reqs[n-2].Body); !strings.Contains(body, id) {
			t.Errorf("handoff_list's answer to the model does not name %s:\n%s", id, clip(body))
		}
		if body := string(reqs[n-1].Body); !strings.Contains(body, "wire the e2e greeting into main.go") || !strings.Contains(body, "one place to edit") {
			t.Errorf("handoff_resume's answer to the model lacks the next step and the decision:\n%s", clip(body))
		}
	})
}

// TestCompaction: a compaction of a session with the hooks installed
// leaves the store a record of that session that holds the compaction
// summary the model wrote.
func TestCompaction(t *testing.T) {
	forAgents(t, compactAgents, func(t *testing.T, w *world) {
		w.sh("integrate", w.agent.name)
		w.agent.trustHooks(w)
		w.session("add a greeting file",
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "hello.txt", "hello from e2e\n")}},
			fakemodel.Turn{Text: "Wrote hello.txt."})
		if w.agent.afterSession != nil {
			w.agent.afterSession(w, 0)
		}
		summary := "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."
		if w.agent.summaryAs != nil {
			summary = w.agent.summaryAs(summary)
		}
		w.model.Reset()
		w.model.SetScript(compacting(w.agent.compactMarker, summary,
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("git status --short")}},
			fakemodel.Turn{Text: "Checked the tree."}))
		args := w.agent.compact(w, "check the tree")
		w.run(nil, args[0], args[1:]...)
		compacted := false
		for _, r := range w.model.Requests() {
			compacted = compacted || strings.Contains(string(r.Body), w.agent.compactMarker)
		}
		if !compacted {
			t.Fatal("the agent sent the model no compaction request")
		}
		hasSummary := func(recs []handoff.Record) bool {
			for _, r := range recs {
				if r.Session != nil && strings.Contains(r.Session.CompactionSummary, "E2E-SUMMARY") {
					return true
				}
			}
			return false
		}
		if w.agent.afterSession != nil {
			waitRecords(w, "record with the compaction summary", hasSummary)
		}
		if !hasSummary(w.records()) {
			t.Errorf("no record in the store holds the compaction summary")
		}
		if w.agent.continueCompacted != nil {
			// The recap of the session (render.RenderRecap) reaches the
			// model with the session's next request.
			reqs := w.sessionArgs(w.agent.continueCompacted(w, "go on"), fakemodel.Turn{Text: "Going on."})
			carried := false
			for _, r := range mainRequests(reqs) {
				carried = carried || strings.Contains(string(r.Body), "compaction summary may have dropped") && strings.Contains(string(r.Body), "add a greeting file")
			}
			if !carried {
				dumpRequests(t, w.model)
				t.Errorf("the request after the compaction does not carry the recap of the session")
			}
		}
	})
}

// compacting answers a request that holds marker (the agent's
// compaction prompt) with summary, and the others with turns in order.
func compacting(marker, summary string, turns ...fakemodel.Turn) fakemodel.Script {
	next := fakemodel.Queue(turns...)
	return func(r fakemodel.Request) fakemodel.Turn {
		if strings.Contains(string(r.Body), marker) {
			return fakemodel.Turn{Text: summary}
		}
		return next(r)
	}
}

// TestDoctor: doctor finds the hooks as the agent runs them: Codex's
// untrusted hooks (which it skips without a word) are a warning until
// they are trusted.
func TestDoctor(t *testing.T) {
	forAgents(t, hookAgents, func(t *testing.T, w *world) {
		w.sh("integrate", w.agent.name)
		switch w.agent.name {
		case "codex":
			if c := w.doctorCheck("hooks:codex"); c.Status != "warn" || !strings.Contains(c.Detail, "not trusted") {
				t.Errorf("doctor on untrusted Codex hooks: %+v", c)
			}
		case "copilot":
			// Not trusted yet: Copilot runs none of the repository's hooks.
			if c := w.doctorCheck("hooks:copilot"); c.Status != "warn" || !strings.Contains(c.Detail, "does not trust") {
				t.Errorf("doctor on Copilot hooks in an untrusted folder: %+v", c)
			}
		case "gemini":
			// The project's folder not trusted: Gemini ignores its
			// settings, hooks and all.
			w.writeHome(".gemini/trustedFolders.json", "{}")
			if c := w.doctorCheck("hooks:gemini"); c.Status != "warn" || !strings.Contains(c.Detail, "does not trust") {
				t.Errorf("doctor on Gemini hooks in an untrusted folder: %+v", c)
			}
			w.agent.setup(w)
		}
		w.agent.trustHooks(w)
		if c := w.doctorCheck("hooks:" + w.agent.name); c.Status != "ok" {
			t.Errorf("doctor on the installed hooks: %+v", c)
		}
	})
}

//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// agentsUnderTest are the agents every scenario runs for.
var agentsUnderTest = []agent{claudeCode, codex, gemini}

// forEachAgent runs scenario once per agent, each in a fresh world.
func forEachAgent(t *testing.T, scenario func(t *testing.T, w *world)) {
	for _, a := range agentsUnderTest {
		t.Run(a.name, func(t *testing.T) {
			scenario(t, newWorld(t, a))
		})
	}
}

// TestCaptureAndBrief: with the hooks installed, a session in which the
// model writes a file and runs a command is captured at its end, and the
// next session's request to the model carries the briefing.
func TestCaptureAndBrief(t *testing.T) {
	forEachAgent(t, func(t *testing.T, w *world) {
		w.sh("integrate", w.agent.name)
		w.agent.trustHooks(w)
		w.session("add a greeting file and check the tree",
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "hello.txt", "hello from e2e\n")}},
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("git status --short")}},
			fakemodel.Turn{Text: "Wrote hello.txt and checked git status."})
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
		if len(reqs) == 0 {
			t.Fatal("the second session sent the model no request")
		}
		if body := string(reqs[0].Body); !strings.Contains(body, "hello.txt") || !strings.Contains(body, string(r.ID)) {
			t.Errorf("the second session's first request does not carry the briefing (hello.txt and id %s):\n%s", r.ID, clip(body))
		}
	})
}

//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// TestNextSteps: the next session gets the next steps, on the automatic
// path (hooks and the MCP server both installed):
//   - the agent's own handoff_save, followed by the end of its session,
//     is one record, and the next briefing holds the saved next step and
//     decision;
//   - a session that only asks a question is stored but does not hide the
//     one before it, and keeps its request and title (a briefed Gemini
//     session's prompt follows the briefing in one text);
//   - a session that leaves a failing command, or open todos, gets next
//     steps derived from them;
//   - a handoff of 100 next steps of 1,000 characters still briefs, with
//     the first steps and the way to the rest.
func TestNextSteps(t *testing.T) {
	forEachAgent(t, func(t *testing.T, w *world) {
		w.sh("integrate", w.agent.name)
		w.sh("integrate", w.agent.name, "--mcp")
		w.agent.approveMCP(w)
		w.agent.trustHooks(w)

		const step, decision = "wire the e2e greeting into main.go", "keep greetings in hello.txt: one place to edit"
		var turns []fakemodel.Turn
		if c := w.agent.toolSearch; c != nil {
			turns = append(turns, fakemodel.Turn{Calls: []fakemodel.Call{*c}})
		}
		turns = append(turns,
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "hello.txt", "hello from e2e\n")}},
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: w.agent.mcpTool("handoff_save"), Args: map[string]any{
				"title": "e2e greeting", "next_steps": []string{step}, "decisions": []string{decision}}}}},
			fakemodel.Turn{Text: "Saved."})
		w.session("add a greeting file, then save a handoff", turns...)
		recs := w.records()
		if len(recs) != 1 {
			t.Fatalf("after a save and the session's end the store holds %d records, want 1: %+v", len(recs), recs)
		}
		saved := recs[0]
		if saved.Session == nil || len(saved.NextSteps) != 1 || saved.NextSteps[0] != step || !hasFile(saved, "hello.txt") {
			t.Errorf("the session's record lost the save or the capture: next steps %q, files %+v, session %v", saved.NextSteps, saved.Files, saved.Session != nil)
		}

		// A question only: the briefing carries the saved step and
		// decision; the question's own record keeps its request.
		reqs := mainRequests(w.session("what next?", fakemodel.Turn{Text: "Wire the greeting into main.go."}))
		if len(reqs) == 0 {
			t.Fatal("the question's session sent the model no request")
		}
		if body := string(reqs[0].Body); !strings.Contains(body, step) || !strings.Contains(body, "one place to edit") {
			t.Errorf("the briefing after the save lacks its next step and decision:\n%s", clip(body))
		}
		var question bool
		for _, r := range w.records() {
			question = question || r.Title == "what next?" && r.Session != nil && len(r.Session.Requests) == 1 && r.Session.Requests[0] == "what next?"
		}
		if !question {
			t.Errorf("no record keeps the briefed question's request and title: %+v", w.records())
		}
		// The question did no work: the next briefing is still on the save.
		reqs = mainRequests(w.session("go on", fakemodel.Turn{Text: "Going on."}))
		if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), step) || !strings.Contains(string(reqs[0].Body), "did no work") {
			t.Errorf("a question-only session hid the one before it")
		}

		// A failing command and nothing written: the next steps are derived.
		w.session("check for the notes file",
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.shell("cat NOTES.md")}},
			fakemodel.Turn{Text: "NOTES.md is missing."})
		reqs = mainRequests(w.session("what now?", fakemodel.Turn{Text: "Add NOTES.md."}))
		if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "derived from the session") || !strings.Contains(string(reqs[0].Body), "cat NOTES.md") {
			t.Errorf("the briefing after a failing command has no derived next step")
		}

		// Open todos become next steps, in progress first. Of the three,
		// only Gemini CLI offers a todo tool headless (claude -p and codex
		// exec offer none: TestCaptureAndBrief).
		if w.agent.name == "gemini" {
			w.session("plan the notes",
				fakemodel.Turn{Calls: []fakemodel.Call{{Name: "write_todos", Args: map[string]any{"todos": []map[string]any{
					{"description": "Write NOTES.md", "status": "pending"}, {"description": "Outline the notes", "status": "in_progress"}}}}}},
				fakemodel.Turn{Text: "Planned."})
			reqs = mainRequests(w.session("and now?", fakemodel.Turn{Text: "Outline first."}))
			body := ""
			if len(reqs) > 0 {
				body = string(reqs[0].Body)
			}
			first, second := strings.Index(body, "Finish (in progress): Outline the notes"), strings.Index(body, "2. Write NOTES.md")
			if first < 0 || second < first {
				t.Errorf("the briefing after open todos lacks them as derived next steps, in progress first")
			}
		}

		// A huge handoff still briefs: its first steps, and the command that
		// shows the rest (each step clipped, or the later ones counted).
		args := []string{"save", "--tool", w.agent.name, "--title", "a huge plan"}
		for i := range 100 {
			args = append(args, "--next", fmt.Sprintf("step %03d %s", i+1, strings.Repeat("s", 1000)))
		}
		w.sh(args...)
		reqs = mainRequests(w.session("start", fakemodel.Turn{Text: "Started."}))
		if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "step 001 sss") || !strings.Contains(string(reqs[0].Body), "`session-handoff show 0") {
			t.Errorf("a 100 KB handoff did not brief with its first steps and the way to the rest")
		}
	})
}

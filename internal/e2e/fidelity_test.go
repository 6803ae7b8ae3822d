//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// fidelityAgents are the agents TestFailedEditAndShellMoves runs for:
// every agent whose edit tool can fail in a way of its own.
var fidelityAgents = []agent{claudeCode, codex, gemini, copilot, opencode, qwenCode}

// failingEdit is each agent's model call of its edit tool that fails on
// rel, a committed file whose text is "keep\n": an edit of text the file
// does not hold, an edit before the file was read, or a create over it.
var failingEdit = map[string]func(w *world, rel string) fakemodel.Call{
	// Claude Code refuses an Edit of a file the session has not read
	// ("File has not been read yet"), as it refuses one whose old_string
	// is not found.
	"claude-code": func(w *world, rel string) fakemodel.Call {
		return fakemodel.Call{Name: "Edit", Args: map[string]any{"file_path": filepath.Join(w.project, rel), "old_string": "no such line", "new_string": "fixed"}}
	},
	// apply_patch verifies the patch's context before it writes.
	"codex": func(w *world, rel string) fakemodel.Call {
		return fakemodel.Call{Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: " + rel + "\n@@\n-no such line\n+fixed\n*** End Patch\n"}
	},
	// replace fails when old_string is not found (its fix-up asks the
	// model, which answers "ok.", no fix).
	"gemini": func(w *world, rel string) fakemodel.Call {
		return fakemodel.Call{Name: "replace", Args: map[string]any{"file_path": filepath.Join(w.project, rel), "instruction": "fix the line",
			"old_string": "no such line", "new_string": "fixed"}}
	},
	// create refuses a path that exists.
	"copilot": func(w *world, rel string) fakemodel.Call {
		return fakemodel.Call{Name: "create", Args: map[string]any{"path": filepath.Join(w.project, rel), "file_text": "fixed\n"}}
	},
	"opencode": func(w *world, rel string) fakemodel.Call {
		return fakemodel.Call{Name: "edit", Args: map[string]any{"filePath": filepath.Join(w.project, rel), "oldString": "no such line", "newString": "fixed"}}
	},
	// edit refuses a file the session has not read (edit_requires_prior_read).
	"qwen-code": func(w *world, rel string) fakemodel.Call {
		return fakemodel.Call{Name: "edit", Args: map[string]any{"file_path": filepath.Join(w.project, rel), "old_string": "no such line", "new_string": "fixed"}}
	},
}

// TestFailedEditAndShellMoves: a session whose edit of keep.txt fails,
// that renames old.txt with git mv and removes gone.txt with rm, and
// whose last message claims the edit. Its record lists the rename and
// the delete as the session's own (renamed from old.txt, deleted), and
// keep.txt not as a change but as a failed edit; the briefing says that
// nothing was written to keep.txt. For Claude Code, the model also
// calls ExitPlanMode, which print mode does not offer ("No such tool
// available"): no plan the user rejected. For Qwen Code, a subagent
// (the agent tool, inline) writes sub.txt: the record lists it as the
// subagent's, and its prompt is no request of the user's. Gemini CLI's
// session is resumed (--resume latest): one session, one id.
func TestFailedEditAndShellMoves(t *testing.T) {
	forAgents(t, fidelityAgents, func(t *testing.T, w *world) {
		w.write("keep.txt", "keep\n")
		w.write("old.txt", "old\n")
		w.write("gone.txt", "gone\n")
		w.git("add", ".")
		w.git("commit", "-q", "-m", "files to tidy")
		turns := []fakemodel.Turn{
			{Calls: []fakemodel.Call{failingEdit[w.agent.name](w, "keep.txt")}},
			{Calls: []fakemodel.Call{w.agent.shell("git mv old.txt new.txt")}},
			{Calls: []fakemodel.Call{w.agent.shell("rm gone.txt")}},
		}
		switch w.agent.name {
		case "claude-code":
			w.model.CallAbsent("ExitPlanMode")
			turns = append(turns, fakemodel.Turn{Calls: []fakemodel.Call{{Name: "ExitPlanMode", Args: map[string]any{"plan": "1. Fix keep.txt\n2. Tidy the names"}}}})
		case "qwen-code":
			turns = append(turns,
				fakemodel.Turn{Calls: []fakemodel.Call{{Name: "agent", Args: map[string]any{
					"description": "write sub.txt", "prompt": "Write sub.txt holding the word sub", "subagent_type": "general-purpose", "run_in_background": false}}}},
				fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "sub.txt", "sub\n")}},
				fakemodel.Turn{Text: "Wrote sub.txt."})
		}
		turns = append(turns, fakemodel.Turn{Text: "Fixed keep.txt, renamed old.txt to new.txt and removed gone.txt."})
		w.session("tidy the project", turns...)
		if w.agent.name == "gemini" {
			w.sessionArgs([]string{"gemini", "--resume", "latest", "-p", "anything left?", "--yolo", "--model", "gemini-2.5-flash"},
				fakemodel.Turn{Text: "Nothing left."})
		}
		w.sh("capture", "--from", w.agent.name, "--quiet")
		recs := w.records()
		if len(recs) != 1 || recs[0].Session == nil {
			t.Fatalf("the store holds %d records, want 1 with a session", len(recs))
		}
		r := recs[0]
		files := map[string]handoff.FileTouched{}
		for _, f := range r.Files {
			files[f.Path] = f
		}
		if f := files["new.txt"]; f.Action != "renamed" || f.From != "old.txt" || f.By != "" {
			t.Errorf("new.txt: %+v, want renamed from old.txt by the session", f)
		}
		if f := files["gone.txt"]; f.Action != "deleted" || f.By != "" {
			t.Errorf("gone.txt: %+v, want deleted by the session", f)
		}
		if f, ok := files["keep.txt"]; ok {
			t.Errorf("keep.txt is listed as a change (%+v): its edit failed", f)
		}
		failed := false
		for _, e := range r.Session.FailedEdits {
			failed = failed || e.Path == "keep.txt"
		}
		if !failed {
			t.Errorf("failed edits %+v, want keep.txt", r.Session.FailedEdits)
		}
		for _, q := range r.Session.Requests {
			if strings.Contains(q, "sub.txt") {
				t.Errorf("request %q is the subagent's prompt", q)
			}
		}
		switch w.agent.name {
		case "claude-code":
			if r.Session.PlanStatus == handoff.PlanRejected {
				t.Errorf("the failed ExitPlanMode is a rejected plan: %q", r.Session.Plan)
			}
		case "qwen-code":
			if f := files["sub.txt"]; f.Action != "created" || !strings.HasPrefix(f.By, "subagent") {
				t.Errorf("sub.txt: %+v, want created by the subagent", f)
			}
		case "gemini":
			var listed []struct{ ID string }
			if err := json.Unmarshal([]byte(w.sh("sessions", "--from", "gemini", "--json")), &listed); err != nil || len(listed) != 1 {
				t.Errorf("sessions after --resume: %+v (%v), want one session", listed, err)
			}
		}
		brief := w.sh("render")
		if !strings.Contains(brief, "keep.txt") || !strings.Contains(brief, "nothing was written") {
			t.Errorf("the briefing does not say the edit of keep.txt failed:\n%s", brief)
		}
		if strings.Contains(brief, "Dirty in git but not touched by the session") {
			t.Errorf("the briefing calls the session's rename or delete someone else's:\n%s", brief)
		}
	})
}

// subagentTurns are each agent's model turns by which the session runs a
// subagent that writes sub.txt: the session's call, then the
// subagent's own turns, then the session's last answer.
var subagentTurns = map[string]func(w *world) []fakemodel.Turn{
	// invoke_agent runs the generalist inline; a local subagent ends
	// with complete_task, its output the generalist's {response}
	// (packages/core/src/agents/generalist-agent.ts in the bundle of
	// 0.61.0).
	"gemini": func(w *world) []fakemodel.Turn {
		return []fakemodel.Turn{
			{Calls: []fakemodel.Call{{Name: "invoke_agent", Args: map[string]any{"agent_name": "generalist", "prompt": "Write sub.txt holding the word sub"}}}},
			{Calls: []fakemodel.Call{w.agent.writeFile(w, "sub.txt", "sub\n")}},
			{Calls: []fakemodel.Call{{Name: "complete_task", Args: map[string]any{"result": map[string]any{"response": "Wrote sub.txt."}}}}},
			{Text: "The subagent wrote sub.txt."},
		}
	},
	// task runs a general-purpose subagent, synchronously (mode "sync").
	"copilot": func(w *world) []fakemodel.Turn {
		return []fakemodel.Turn{
			{Calls: []fakemodel.Call{{Name: "task", Args: map[string]any{"name": "writer", "description": "write sub.txt",
				"prompt": "Write sub.txt holding the word sub", "agent_type": "general-purpose", "mode": "sync"}}}},
			{Calls: []fakemodel.Call{w.agent.writeFile(w, "sub.txt", "sub\n")}},
			{Text: "Wrote sub.txt."},
			{Text: "The subagent wrote sub.txt."},
		}
	},
}

// TestSubagentWork: a session whose subagent writes sub.txt: the record
// lists sub.txt as the subagent's, and the subagent's prompt is no
// request of the user's. (Qwen Code's is in TestFailedEditAndShellMoves.)
func TestSubagentWork(t *testing.T) {
	forAgents(t, []agent{gemini, codex, copilot}, func(t *testing.T, w *world) {
		if w.agent.name == "codex" {
			codexSubagent(w)
		} else {
			w.session("have a subagent write sub.txt", subagentTurns[w.agent.name](w)...)
		}
		w.sh("capture", "--from", w.agent.name, "--quiet")
		recs := w.records()
		if len(recs) != 1 || recs[0].Session == nil {
			t.Fatalf("the store holds %d records, want 1 with a session", len(recs))
		}
		r := recs[0]
		by := ""
		for _, f := range r.Files {
			if filepath.Base(f.Path) == "sub.txt" {
				by = f.By
			}
		}
		if !strings.HasPrefix(by, "subagent") {
			t.Errorf("files %+v, want sub.txt by a subagent", r.Files)
		}
		if q := r.Session.Requests; len(q) != 1 || q[0] != "have a subagent write sub.txt" {
			t.Errorf("requests %q, want the user's alone", q)
		}
	})
}

// TestGeminiResumeByID: a Gemini CLI session resumed by its id (gemini
// --resume ID) stays one session: 'sessions' lists it once, titled, and
// capture by its id is not ambiguous.
func TestGeminiResumeByID(t *testing.T) {
	w := newWorld(t, gemini)
	w.session("add a greeting file",
		fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "hello.txt", "hello\n")}},
		fakemodel.Turn{Text: "Wrote hello.txt."})
	var listed []struct{ ID, Title, Path string }
	if err := json.Unmarshal([]byte(w.sh("sessions", "--from", "gemini", "--json")), &listed); err != nil || len(listed) != 1 {
		t.Fatalf("sessions: %+v (%v)", listed, err)
	}
	id := listed[0].ID
	w.sessionArgs([]string{"gemini", "--resume", id, "-p", "anything left?", "--yolo", "--model", "gemini-2.5-flash"},
		fakemodel.Turn{Text: "Nothing left."})
	listed = nil
	if err := json.Unmarshal([]byte(w.sh("sessions", "--from", "gemini", "--json")), &listed); err != nil || len(listed) != 1 || listed[0].ID != id || listed[0].Title != "add a greeting file" {
		t.Errorf("sessions after --resume %s: %+v (%v), want it once, titled", id, listed, err)
	}
	w.sh("capture", "--from", "gemini", "--session", id, "--quiet")
	recs := w.records()
	if len(recs) != 1 || recs[0].Session == nil || len(recs[0].Session.Requests) != 2 {
		t.Errorf("capture --session %s: %+v, want one record of both requests", id, recs)
	}
}

// codexSubagent runs a Codex session whose subagent writes sub.txt:
// multi_agent_v2 offers spawn_agent and wait_agent in the collaboration
// namespace; the subagent, spawned with fork_turns "none", runs beside
// the session, so each is answered from its own turns: a request that
// holds the user's prompt is the session's.
func codexSubagent(w *world) {
	w.t.Helper()
	const prompt = "have a subagent write sub.txt"
	main := fakemodel.Queue(
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "collaboration/spawn_agent", Args: map[string]any{
			"task_name": "write_sub", "message": "Write sub.txt holding the word sub", "fork_turns": "none"}}}},
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "collaboration/wait_agent", Args: map[string]any{"timeout_ms": 60000}}}},
		fakemodel.Turn{Text: "The subagent wrote sub.txt."})
	sub := fakemodel.Queue(
		fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "sub.txt", "sub\n")}},
		fakemodel.Turn{Text: "Wrote sub.txt."})
	w.model.Reset()
	w.model.SetScript(func(r fakemodel.Request) fakemodel.Turn {
		if strings.Contains(string(r.Body), prompt) {
			return main(r)
		}
		return sub(r)
	})
	w.run(nil, "codex", "exec", "--dangerously-bypass-approvals-and-sandbox", "-c", "features.multi_agent_v2=true", prompt)
}

//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// The markers a source session plants, one in each kind of turn: the
// tool's output is made by the command, so that the command's text does
// not hold it.
const (
	markUser      = "user-marker-4e1b"
	markAssistant = "assistant-marker-9c2d"
	markToolCmd   = "printf 'tool-%s' marker-7f3a"
	markTool      = "tool-marker-7f3a"
)

// nativeDirections are the directions TestNativeResume runs, each a
// source and a target agent.
var nativeDirections = []struct{ from, to agent }{
	{claudeCode, codex},
	{codex, claudeCode},
	{gemini, codex},
	{gemini, claudeCode},
	{claudeCode, gemini},
	{codex, gemini},
	{qwenCode, codex},
	{claudeCode, qwenCode},
	{pi, claudeCode},
	{claudeCode, pi},
}

// TestNativeResume: a session of one agent, converted by launch --native
// --no-start, is found by the other agent's own resume command, and its
// next request to the model carries the markers of a user turn, an
// assistant turn and a tool result of the source session (issue 47).
func TestNativeResume(t *testing.T) {
	for _, d := range nativeDirections {
		t.Run(d.from.name+"-to-"+d.to.name, func(t *testing.T) {
			w := newWorld(t, d.to)
			w.env = append(w.env, d.from.env(w)...)
			d.from.setup(w)
			w.sessionArgs(d.from.headless(w, "remember "+markUser+" and run the command"),
				fakemodel.Turn{Calls: []fakemodel.Call{d.from.shell(markToolCmd)}},
				fakemodel.Turn{Text: "Noted: " + markAssistant})
			id := carry(t, w, d.from, d.to)
			reqs := mainRequests(w.sessionArgs(resumeArgs(d.to, id, "continue where we were"), fakemodel.Turn{Text: "continuing"}))
			if len(reqs) == 0 {
				t.Fatal("the resumed session asked the model nothing")
			}
			body := string(reqs[0].Body)
			for _, m := range []string{markUser, markAssistant, markTool, "continue where we were", "Imported by session-handoff"} {
				if !strings.Contains(body, m) {
					t.Errorf("the resumed session's first request lacks %q:\n%s", m, clip(body))
				}
			}
		})
	}
}

// resumeArgs is the headless command line that resumes the session id of
// a with prompt.
func resumeArgs(a agent, id, prompt string) []string {
	switch a.name {
	case codex.name:
		return []string{"codex", "exec", "--dangerously-bypass-approvals-and-sandbox", "resume", id, prompt}
	case claudeCode.name:
		return []string{"claude", "-p", prompt, "--resume", id, "--permission-mode", "bypassPermissions"}
	case qwenCode.name:
		return []string{"qwen", "--yolo", "--resume", id, prompt}
	case gemini.name:
		return []string{"gemini", "-p", prompt, "--resume", id, "--yolo", "--model", "gemini-2.5-flash"}
	case pi.name:
		return []string{"pi", "-p", "--provider", "fake", "--model", "fake-model", "--session", id, prompt}
	}
	return nil
}

// TestNativeRoundTrip: a session carried from one agent to another,
// continued there, and carried back keeps the markers of both sides: the
// first agent's resumed session's next request holds the source's user,
// assistant and tool-output markers and those of the turns the second
// agent added.
func TestNativeRoundTrip(t *testing.T) {
	for _, d := range nativeDirections[:2] {
		t.Run(d.from.name+"-"+d.to.name, func(t *testing.T) {
			w := newWorld(t, d.to)
			w.env = append(w.env, d.from.env(w)...)
			d.from.setup(w)
			w.sessionArgs(d.from.headless(w, "remember "+markUser+" and run the command"),
				fakemodel.Turn{Calls: []fakemodel.Call{d.from.shell(markToolCmd)}},
				fakemodel.Turn{Text: "Noted: " + markAssistant})
			there := carry(t, w, d.from, d.to)
			w.sessionArgs(resumeArgs(d.to, there, "now on the other side: second-user-marker-1d"),
				fakemodel.Turn{Calls: []fakemodel.Call{d.to.shell("printf 'second-tool-%s' marker-5e")}},
				fakemodel.Turn{Text: "second-assistant-marker-2a"})
			back := carry(t, w, d.to, d.from)
			reqs := mainRequests(w.sessionArgs(resumeArgs(d.from, back, "back home"), fakemodel.Turn{Text: "home"}))
			if len(reqs) == 0 {
				t.Fatal("the session carried back asked the model nothing")
			}
			body := string(reqs[0].Body)
			for _, m := range []string{markUser, markAssistant, markTool, "second-user-marker-1d", "second-assistant-marker-2a", "second-tool-marker-5e", "back home"} {
				if !strings.Contains(body, m) {
					t.Errorf("the session carried back lacks %q:\n%s", m, clip(body))
				}
			}
		})
	}
}

// carry converts the newest session of from in w's project into one of
// to and returns its id.
func carry(t *testing.T, w *world, from, to agent) string {
	t.Helper()
	out := w.sh("launch", "--target", to.name, "--native", "--from", from.name, "--no-start", "--json")
	var got struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.ID == "" {
		t.Fatalf("launch --native: %v\n%s", err, out)
	}
	return got.ID
}

// TestNativeAcrossMachines: a Claude Code session captured with its
// transcript on the laptop, synced to the desktop, where the project is a
// clone at another path, is resumed natively there by Codex CLI: the
// handoff is vouched for (signed by the laptop, a paired device), the
// session is written at the desktop's path, and its next request carries
// the laptop session's markers and names the laptop's signer.
func TestNativeAcrossMachines(t *testing.T) {
	laptop, desktop := pairedWorlds(t, "")
	for _, w := range []*world{laptop, desktop} {
		w.sh("sync", "on")
	}
	laptop.session("remember "+markUser+" and run the command",
		fakemodel.Turn{Calls: []fakemodel.Call{laptop.agent.shell(markToolCmd)}},
		fakemodel.Turn{Text: "Noted: " + markAssistant})
	laptop.sh("capture", "--from", claudeCode.name, "--attach-transcript")
	laptop.sh("sync", "push", "latest")
	desktop.sh("sync", "pull")
	out := desktop.sh("launch", "--target", codex.name, "--native", "--handoff", "latest", "--no-start", "--json")
	var got struct {
		ID   string `json:"id"`
		Path string `json:"path"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.ID == "" {
		t.Fatalf("launch --native --handoff latest: %v\n%s", err, out)
	}
	if data, err := os.ReadFile(got.Path); err != nil || !strings.Contains(string(data), `"cwd":"`+desktop.project+`"`) {
		t.Errorf("the session is not at the desktop's path %s: %v", desktop.project, err)
	}
	reqs := mainRequests(desktop.sessionArgs(resumeArgs(codex, got.ID, "continue on the desktop"), fakemodel.Turn{Text: "continuing"}))
	if len(reqs) == 0 {
		t.Fatal("the resumed session asked the model nothing")
	}
	body := string(reqs[0].Body)
	for _, m := range []string{markUser, markAssistant, markTool, "signer: me@laptop", "is vouched for"} {
		if !strings.Contains(body, m) {
			t.Errorf("the desktop's resumed session lacks %q:\n%s", m, clip(body))
		}
	}
}

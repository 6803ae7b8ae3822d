package copilot

import (
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// A subagent's events (agentId on every event, 1.0.102's schema; the
// deprecated data.parentToolCallId before it) are its own: its prompt is
// no request of the user's, and its commands and edits are the session's
// work marked as the subagent's (issue 45).
func TestSubagentWorkIsMarkedAndItsPromptIsNoRequest(t *testing.T) {
	lines := []string{
		`{"type":"session.start","data":{"sessionId":"s1","copilotVersion":"1.0.102","startTime":"2026-11-27T12:00:00Z","context":{"cwd":"/w/app"}},"id":"e1","timestamp":"2026-11-27T12:00:00Z","parentId":null}`,
		`{"type":"user.message","data":{"content":"Split the parser"},"id":"e2","timestamp":"2026-11-27T12:00:01Z","parentId":"e1"}`,
		`{"type":"assistant.message","data":{"messageId":"m1","content":"","toolRequests":[{"toolCallId":"task1","name":"task","arguments":{}}]},"id":"e3","timestamp":"2026-11-27T12:00:02Z","parentId":"e2"}`,
		// The subagent: its prompt, a file it creates, a command it runs.
		`{"type":"user.message","agentId":"explore-1","data":{"content":"SUBAGENT PROMPT: read the parser"},"id":"e4","timestamp":"2026-11-27T12:00:03Z","parentId":"e3"}`,
		`{"type":"assistant.message","agentId":"explore-1","data":{"messageId":"m2","content":"","toolRequests":[{"toolCallId":"c1","name":"create","arguments":{"path":"/w/app/lexer.go"}},{"toolCallId":"c2","name":"bash","arguments":{"command":"go vet ./..."}}]},"id":"e5","timestamp":"2026-11-27T12:00:04Z","parentId":"e4"}`,
		`{"type":"tool.execution_complete","agentId":"explore-1","data":{"toolCallId":"c1","success":true,"result":{"content":"Created"}},"id":"e6","timestamp":"2026-11-27T12:00:05Z","parentId":"e5"}`,
		`{"type":"tool.execution_complete","agentId":"explore-1","data":{"toolCallId":"c2","success":true,"shellExecution":{"exitCode":0},"result":{"content":"ok"}},"id":"e7","timestamp":"2026-11-27T12:00:06Z","parentId":"e6"}`,
		// The older form: data.parentToolCallId.
		`{"type":"assistant.message","data":{"messageId":"m3","parentToolCallId":"task2","content":"","toolRequests":[{"toolCallId":"c3","name":"edit","arguments":{"path":"/w/app/old.go"}}]},"id":"e8","timestamp":"2026-11-27T12:00:07Z","parentId":"e7"}`,
		`{"type":"tool.execution_complete","data":{"parentToolCallId":"task2","toolCallId":"c3","success":true,"result":{"content":"Edited"}},"id":"e9","timestamp":"2026-11-27T12:00:08Z","parentId":"e8"}`,
		// The main agent's own edit.
		`{"type":"assistant.message","data":{"messageId":"m4","content":"Done.","toolRequests":[{"toolCallId":"c4","name":"edit","arguments":{"path":"/w/app/parser.go"}}]},"id":"e10","timestamp":"2026-11-27T12:00:09Z","parentId":"e9"}`,
		`{"type":"tool.execution_complete","data":{"toolCallId":"c4","success":true,"result":{"content":"Edited"}},"id":"e11","timestamp":"2026-11-27T12:00:10Z","parentId":"e10"}`,
	}
	d, err := read(strings.NewReader(expect.Lines(lines...)), transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Session.Requests, "|"); got != "Split the parser" {
		t.Errorf("requests %q, want the user's alone", got)
	}
	by := map[string]string{}
	for _, f := range d.Files {
		by[f.Path] = f.By
	}
	for path, want := range map[string]string{"parser.go": "", "lexer.go": "subagent explore-1", "old.go": "subagent task2"} {
		if got, ok := by[path]; !ok || got != want {
			t.Errorf("%s: by %q (listed %v), want %q; files %+v", path, got, ok, want, d.Files)
		}
	}
	if c := expect.CommandNamed(d.Session.Commands, "go vet ./..."); c == nil || c.By != "subagent explore-1" {
		t.Errorf("the subagent's command: %+v", c)
	}
	if d.Stats.Subagents != 2 {
		t.Errorf("%d subagents counted, want 2", d.Stats.Subagents)
	}
}

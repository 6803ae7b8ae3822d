package hooks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// GitHub Copilot CLI reads a sessionStart hook's additionalContext at the
// top level of its output (checked with 1.0.102: it reached the model as a
// message of its own), not inside hookSpecificOutput.
func TestCopilotSessionStartOutput(t *testing.T) {
	s := newStore(t)
	project := t.TempDir()
	rec, err := handoff.New(time.Now(), "copilot", "Wire calc into main")
	if err != nil {
		t.Fatal(err)
	}
	rec.Project.Path = project
	rec.NextSteps = []string{"Add main.py"}
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	out := sessionStartOutput(t, s, "copilot", project)
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	ctx, _ := got["additionalContext"].(string)
	if len(got) != 1 || !strings.Contains(ctx, "Wire calc into main") || !strings.Contains(ctx, "Add main.py") {
		t.Errorf("output %q", out)
	}
}

// Its hook input is camelCase and names no transcript: the session id is
// what capture is given.
func TestCopilotInputNamesTheSession(t *testing.T) {
	in, err := ReadInput(strings.NewReader(`{"sessionId":"8d0459bd-d207","timestamp":1795782843011,"cwd":"/p","reason":"complete"}`))
	if err != nil || in.SessionIDCamel != "8d0459bd-d207" || in.CWD != "/p" || in.TranscriptPath != "" {
		t.Errorf("input %+v, %v", in, err)
	}
}

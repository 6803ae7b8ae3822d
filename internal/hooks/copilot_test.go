package hooks

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
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

// Copilot's session end: the hook starts itself again for later, with
// the input and the log's size; the later process waits for the log to
// end and captures the whole session.
func TestCopilotSessionEndLater(t *testing.T) {
	s := newStore(t)
	home, project := t.TempDir(), gitProject(t)
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	dir := filepath.Join(home, ".copilot", "session-state", "s1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "events.jsonl")
	head := `{"type":"session.start","data":{"sessionId":"s1","context":{"cwd":"` + project + `"}},"id":"1"}` + "\n"
	if err := os.WriteFile(file, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	input := `{"sessionId":"s1","cwd":"` + project + `","reason":"complete"}`
	run := func(o Options) error {
		o.Agent, o.Event, o.Store, o.ConfigDir, o.Env = hookAgent(t, "copilot"), "session-end", s, t.TempDir(), env
		o.Input, o.Stdout, o.Stderr = strings.NewReader(input), io.Discard, io.Discard
		return Run(context.Background(), o)
	}
	var gotInput string
	var gotSize int64
	if err := run(Options{StartLater: func(in []byte, since int64) error { gotInput, gotSize = string(in), since; return nil }}); err != nil {
		t.Fatal(err)
	}
	if gotInput != input || gotSize != int64(len(head)) || len(records(t, s)) != 0 {
		t.Fatalf("started later with %q, %d; %d records now", gotInput, gotSize, len(records(t, s)))
	}
	// A new session's log does not exist yet when its hook runs: later
	// still, from nothing.
	input2 := strings.Replace(input, `"s1"`, `"s2"`, 1)
	o2 := Options{StartLater: func(in []byte, since int64) error { gotInput, gotSize = string(in), since; return nil },
		Agent: hookAgent(t, "copilot"), Event: "session-end", Store: s, ConfigDir: t.TempDir(), Env: env,
		Input: strings.NewReader(input2), Stdout: io.Discard, Stderr: io.Discard}
	if err := Run(context.Background(), o2); err != nil || gotInput != input2 || gotSize != 0 {
		t.Fatalf("no log yet: started later with %q, %d, %v", gotInput, gotSize, err)
	}
	rest := `{"type":"user.message","data":{"content":"do it"},"id":"2"}` + "\n" + `{"type":"session.shutdown","data":{},"id":"3"}` + "\n"
	if err := os.WriteFile(file, []byte(head+rest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(Options{Later: true, Since: gotSize}); err != nil {
		t.Fatal(err)
	}
	if recs := records(t, s); len(recs) != 1 || recs[0].Session == nil || len(recs[0].Session.Requests) != 1 {
		t.Fatalf("records %+v", recs)
	}
}

// records are the store's records, newest first.
func records(t *testing.T, s *store.Store) []*handoff.Record {
	t.Helper()
	es, err := s.List(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*handoff.Record
	for _, e := range es {
		r, err := s.Get(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

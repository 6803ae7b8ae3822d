package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func ids(ss []transcript.SessionInfo) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return strings.Join(out, ",")
}

// findSessions lists the sessions in Codex's directories under env's
// HOME, as the agents table finds them.
func findSessions(env func(string) string) ([]transcript.SessionInfo, error) {
	return Transcripts{}.Find(Agent().SessionRoots(env("HOME"), env))
}

// TestCodexMetaOnlyRolloutIsNoSession: a Codex TUI session used only for
// /hooks leaves a rollout of one session_meta line. Discovery (sessions,
// and plain capture's "latest") must pass over it to the session with
// work in it; and a rollout of 0.169 or later (0.171.0 here), which holds
// no user_message event, is titled by its first request all the same.
func TestCodexMetaOnlyRolloutIsNoSession(t *testing.T) {
	const real = "testdata/real-e2e/work/rollout-2026-11-27T11-55-39-01a21cdc-7446-7bd3-86ed-b6fd37217b2b.jsonl"
	data, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dir := filepath.Join(home, ".codex", "sessions", "2026", "11", "27")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, filepath.Base(real))
	if err := os.WriteFile(work, data, 0o644); err != nil {
		t.Fatal(err)
	}
	meta, _, _ := strings.Cut(string(data), "\n")
	meta = strings.ReplaceAll(meta, "01a21cdc-7446-7bd3-86ed-b6fd37217b2b", "01a21c46-0000-7000-8000-000000000001")
	empty := filepath.Join(dir, "rollout-2026-11-27T09-20-00-01a21c46-0000-7000-8000-000000000001.jsonl")
	if err := os.WriteFile(empty, []byte(meta+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(empty, later, later); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	found, err := findSessions(env)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Path != work {
		t.Fatalf("sessions %+v, want only %s", found, work)
	}
	if found[0].Title != "add a greeting file and check the tree" {
		t.Errorf("title %q, want the first request", found[0].Title)
	}
}

func TestFindCodexSessions(t *testing.T) {
	home := t.TempDir()
	codexHome := filepath.Join(t.TempDir(), "codex")
	id1, id2 := "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	writeFile(t, filepath.Join(codexHome, "sessions", "2026", "01", "02", "rollout-2026-01-02T03-04-05-"+id1+".jsonl"), expect.Lines(
		`{"timestamp":"2026-01-02T03:04:05Z","type":"session_meta","payload":{"id":"`+id1+`","cwd":"/work/a","timestamp":"2026-01-02T03:04:05Z"}}`,
		`{"timestamp":"2026-01-02T03:04:06Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context></environment_context>"}]}}`,
		`{"timestamp":"2026-01-02T03:04:07Z","type":"event_msg","payload":{"type":"user_message","message":"List files"}}`,
	), t0.Add(-time.Hour))
	writeFile(t, filepath.Join(codexHome, "sessions", "2026", "01", "03", "rollout-2026-01-03T00-00-00-"+id2+".jsonl"), expect.Lines(
		`{"timestamp":"2026-01-03T00:00:00Z","type":"session_meta","payload":{"id":"`+id2+`","cwd":"/work/b"}}`,
		`{"timestamp":"2026-01-03T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"Second"}}`,
		`{"timestamp":"2026-01-03T00:00:02Z","type":"event_msg","payload":{"type":"thread_name_updated","thread_name":"Renamed"}}`,
	), t0)
	writeFile(t, filepath.Join(codexHome, "sessions", "2026", "01", "03", "notes.txt"), "x", t0)
	ss, err := findSessions(envOf(map[string]string{"HOME": home, "CODEX_HOME": codexHome}))
	if err != nil {
		t.Fatal(err)
	}
	if ids(ss) != id2+","+id1 {
		t.Fatalf("sessions %s", ids(ss))
	}
	if ss[0].Title != "Renamed" || ss[1].Title != "List files" || ss[1].CWD != "/work/a" || !ss[1].Started.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("%+v", ss)
	}
	if got := ids(transcript.MatchProject(ss, "/work/a")); got != id1 {
		t.Errorf("match: %s", got)
	}
	// Without CODEX_HOME, ~/.codex; nothing there is no error.
	if ss, err := findSessions(envOf(map[string]string{"HOME": home})); err != nil || len(ss) != 0 {
		t.Errorf("empty home: %v %v", ss, err)
	}
}

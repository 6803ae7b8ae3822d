package capture

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

var writeFile = testsys.WriteFile

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func ids(ss []SessionInfo) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return strings.Join(out, ",")
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestListSessionsMergesAgentsNewestFirst(t *testing.T) {
	home := t.TempDir()
	codexHome := filepath.Join(home, "codex")
	id1 := "11111111-1111-4111-8111-111111111111"
	writeFile(t, filepath.Join(codexHome, "sessions", "2026", "01", "02", "rollout-2026-01-02T03-04-05-"+id1+".jsonl"), lines(
		`{"timestamp":"2026-01-02T03:04:05Z","type":"session_meta","payload":{"id":"`+id1+`","cwd":"/work/a","timestamp":"2026-01-02T03:04:05Z"}}`,
		`{"timestamp":"2026-01-02T03:04:07Z","type":"event_msg","payload":{"type":"user_message","message":"List files"}}`,
	), t0.Add(-time.Hour))
	writeFile(t, filepath.Join(home, ".claude", "projects", "-work-b", "claude1.jsonl"), lines(
		`{"type":"user","uuid":"1","sessionId":"claude1","cwd":"/work/b","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"x"}}`,
	), t0)
	env := envOf(map[string]string{"HOME": home, "CODEX_HOME": codexHome})
	all, err := ListSessions(nil, env, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(all); got != "claude1,"+id1 {
		t.Errorf("all agents: %s, want claude1 (newer) then the codex session", got)
	}
	if got, _ := ListSessions([]Agent{Codex}, env, ""); ids(got) != id1 {
		t.Errorf("codex only: %s", ids(got))
	}
	if got, _ := ListSessions(nil, env, "/work/b"); ids(got) != "claude1" {
		t.Errorf("project /work/b: %s", ids(got))
	}
}

func TestRedactSessions(t *testing.T) {
	ss := []SessionInfo{{Title: "deploy with AKIAABCDEFGHIJKLMNOP please"}, {Title: "plain"}, {}}
	RedactSessions(ss, redact.Default())
	if strings.Contains(ss[0].Title, "AKIAABCDEFGHIJKLMNOP") || !strings.HasPrefix(ss[0].Title, "deploy with ") {
		t.Fatalf("title not redacted: %q", ss[0].Title)
	}
	if ss[1].Title != "plain" || ss[2].Title != "" {
		t.Fatalf("clean titles changed: %+v", ss[1:])
	}
}

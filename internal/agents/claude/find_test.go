package claude

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/testsys"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

var writeFile = testsys.WriteFile

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// findSessions is Find in the agent's directories under env's HOME, as
// the agents table gives them.
func findSessions(env func(string) string) ([]SessionInfo, error) {
	home, err := paths.Home(env)
	if err != nil {
		return nil, err
	}
	var roots []string
	for _, d := range Dirs(home, env) {
		roots = append(roots, filepath.Join(d, SessionsDir))
	}
	return Transcripts{}.Find(roots)
}

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

func TestFindClaudeSessions(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, ".claude", "projects", "-home-u-src-app")
	writeFile(t, filepath.Join(proj, "old.jsonl"), expect.Lines(
		`{"type":"summary","summary":"Old work","leafUuid":"x"}`,
		`{"type":"user","uuid":"1","sessionId":"old","cwd":"/home/u/src/app","timestamp":"2026-02-27T10:00:00Z","message":{"role":"user","content":"old request"}}`,
	), t0.Add(-48*time.Hour))
	writeFile(t, filepath.Join(proj, "new.jsonl"), expect.Lines(
		`{"type":"user","uuid":"1","sessionId":"new","cwd":"/home/u/src/app/sub","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"  Fix\nthe build  "}}`,
		`{"type":"assistant","uuid":"2","parentUuid":"1","timestamp":"2026-03-01T11:00:00Z","message":{"id":"m","content":[]}}`,
	), t0)
	// A subagent's transcript sits in a directory of its own: not a session.
	writeFile(t, filepath.Join(proj, "new", "subagents", "agent-1.jsonl"), `{"type":"user"}`+"\n", t0)
	// No cwd in the file: matched by the directory's name.
	writeFile(t, filepath.Join(home, ".claude", "projects", "-home-u-src-other-repo", "bare.jsonl"), expect.Lines(
		`{"type":"custom-title","customTitle":"Named"}`,
	), t0.Add(-time.Hour))
	// The XDG location is read too.
	writeFile(t, filepath.Join(home, ".config", "claude", "projects", "-home-u-x", "xdg.jsonl"), expect.Lines(
		`{"type":"user","uuid":"1","sessionId":"xdg","cwd":"/home/u/x","message":{"role":"user","content":"x"}}`,
	), t0.Add(-72*time.Hour))

	ss, err := findSessions(envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(ss); got != "new,bare,old,xdg" {
		t.Fatalf("sessions %s, want newest first", got)
	}
	n := ss[0]
	if n.CWD != "/home/u/src/app/sub" || n.Title != "Fix the build" || n.Agent != ClaudeCode ||
		!n.Started.Equal(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) || !n.LastActivity.Equal(time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("newest %+v", n)
	}
	if ss[1].Title != "Named" || ss[1].CWD != "" || !ss[1].LastActivity.Equal(t0.Add(-time.Hour)) {
		t.Errorf("bare %+v (title from custom-title, activity from mtime)", ss[1])
	}
	if ss[2].Title != "Old work" {
		t.Errorf("old %+v", ss[2])
	}
	if got := ids(MatchProject(ss, "/home/u/src/app")); got != "new,old" {
		t.Errorf("match /home/u/src/app: %s", got)
	}
	if got := ids(MatchProject(ss, "/home/u/src/other.repo")); got != "bare" {
		t.Errorf("match by Claude's directory name: %s", got)
	}
	if got := ids(MatchProject(ss, "/home/u/src/ap")); got != "" {
		t.Errorf("a prefix that is not a parent directory matched: %s", got)
	}

	// CLAUDE_CONFIG_DIR replaces the default places.
	cfg := t.TempDir()
	writeFile(t, filepath.Join(cfg, "projects", "-p", "only.jsonl"), `{"type":"user","sessionId":"only","cwd":"/p"}`+"\n", t0)
	ss, err = findSessions(envOf(map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": cfg}))
	if err != nil || ids(ss) != "only" {
		t.Errorf("CLAUDE_CONFIG_DIR: %s %v", ids(ss), err)
	}
}

func TestFindClaudeReadsOnlyHeadAndTail(t *testing.T) {
	home := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"type":"user","uuid":"1","sessionId":"big","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"start"}}` + "\n")
	filler := `{"type":"assistant","uuid":"x","message":{"id":"m","content":[{"type":"text","text":"` + strings.Repeat("y", 1000) + `"}]}}` + "\n"
	for b.Len() < 3<<20 {
		b.WriteString(filler)
	}
	b.WriteString(`{"type":"user","uuid":"9","cwd":"/late/cwd","timestamp":"2026-03-02T10:00:00Z","message":{"role":"user","content":"end"}}` + "\n")
	b.WriteString(`{"type":"ai-title","aiTitle":"Late title"}` + "\n")
	writeFile(t, filepath.Join(home, ".claude", "projects", "-late-cwd", "big.jsonl"), b.String(), t0)
	ss, err := findSessions(envOf(map[string]string{"HOME": home}))
	if err != nil || len(ss) != 1 {
		t.Fatalf("%v %v", ss, err)
	}
	s := ss[0]
	if s.CWD != "/late/cwd" || s.Title != "Late title" || s.ID != "big" || !s.LastActivity.Equal(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("%+v", s)
	}
}

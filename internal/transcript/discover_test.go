package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

var writeFile = testsys.WriteFile

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

func TestFindClaudeSessions(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, ".claude", "projects", "-home-u-src-app")
	writeFile(t, filepath.Join(proj, "old.jsonl"), lines(
		`{"type":"summary","summary":"Old work","leafUuid":"x"}`,
		`{"type":"user","uuid":"1","sessionId":"old","cwd":"/home/u/src/app","timestamp":"2026-02-27T10:00:00Z","message":{"role":"user","content":"old request"}}`,
	), t0.Add(-48*time.Hour))
	writeFile(t, filepath.Join(proj, "new.jsonl"), lines(
		`{"type":"user","uuid":"1","sessionId":"new","cwd":"/home/u/src/app/sub","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"  Fix\nthe build  "}}`,
		`{"type":"assistant","uuid":"2","parentUuid":"1","timestamp":"2026-03-01T11:00:00Z","message":{"id":"m","content":[]}}`,
	), t0)
	// A subagent's transcript sits in a directory of its own: not a session.
	writeFile(t, filepath.Join(proj, "new", "subagents", "agent-1.jsonl"), `{"type":"user"}`+"\n", t0)
	// No cwd in the file: matched by the directory's name.
	writeFile(t, filepath.Join(home, ".claude", "projects", "-home-u-src-other-repo", "bare.jsonl"), lines(
		`{"type":"custom-title","customTitle":"Named"}`,
	), t0.Add(-time.Hour))
	// The XDG location is read too.
	writeFile(t, filepath.Join(home, ".config", "claude", "projects", "-home-u-x", "xdg.jsonl"), lines(
		`{"type":"user","uuid":"1","sessionId":"xdg","cwd":"/home/u/x","message":{"role":"user","content":"x"}}`,
	), t0.Add(-72*time.Hour))

	ss, err := findSessions(ClaudeCode, envOf(map[string]string{"HOME": home}))
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
	ss, err = findSessions(ClaudeCode, envOf(map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": cfg}))
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
	ss, err := findSessions(ClaudeCode, envOf(map[string]string{"HOME": home}))
	if err != nil || len(ss) != 1 {
		t.Fatalf("%v %v", ss, err)
	}
	s := ss[0]
	if s.CWD != "/late/cwd" || s.Title != "Late title" || s.ID != "big" || !s.LastActivity.Equal(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("%+v", s)
	}
}

func TestFindCodexSessions(t *testing.T) {
	home := t.TempDir()
	codexHome := filepath.Join(t.TempDir(), "codex")
	id1, id2 := "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	writeFile(t, filepath.Join(codexHome, "sessions", "2026", "01", "02", "rollout-2026-01-02T03-04-05-"+id1+".jsonl"), lines(
		`{"timestamp":"2026-01-02T03:04:05Z","type":"session_meta","payload":{"id":"`+id1+`","cwd":"/work/a","timestamp":"2026-01-02T03:04:05Z"}}`,
		`{"timestamp":"2026-01-02T03:04:06Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context></environment_context>"}]}}`,
		`{"timestamp":"2026-01-02T03:04:07Z","type":"event_msg","payload":{"type":"user_message","message":"List files"}}`,
	), t0.Add(-time.Hour))
	writeFile(t, filepath.Join(codexHome, "sessions", "2026", "01", "03", "rollout-2026-01-03T00-00-00-"+id2+".jsonl"), lines(
		`{"timestamp":"2026-01-03T00:00:00Z","type":"session_meta","payload":{"id":"`+id2+`","cwd":"/work/b"}}`,
		`{"timestamp":"2026-01-03T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"Second"}}`,
		`{"timestamp":"2026-01-03T00:00:02Z","type":"event_msg","payload":{"type":"thread_name_updated","thread_name":"Renamed"}}`,
	), t0)
	writeFile(t, filepath.Join(codexHome, "sessions", "2026", "01", "03", "notes.txt"), "x", t0)
	ss, err := findSessions(Codex, envOf(map[string]string{"HOME": home, "CODEX_HOME": codexHome}))
	if err != nil {
		t.Fatal(err)
	}
	if ids(ss) != id2+","+id1 {
		t.Fatalf("sessions %s", ids(ss))
	}
	if ss[0].Title != "Renamed" || ss[1].Title != "List files" || ss[1].CWD != "/work/a" || !ss[1].Started.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("%+v", ss)
	}
	if got := ids(MatchProject(ss, "/work/a")); got != id1 {
		t.Errorf("match: %s", got)
	}
	// Without CODEX_HOME, ~/.codex; nothing there is no error.
	if ss, err := findSessions(Codex, envOf(map[string]string{"HOME": home})); err != nil || len(ss) != 0 {
		t.Errorf("empty home: %v %v", ss, err)
	}
}

func TestFindGeminiSessions(t *testing.T) {
	home := t.TempDir()
	tmp := filepath.Join(home, ".gemini", "tmp")
	// The current layout: a short name and a .project_root marker.
	writeFile(t, filepath.Join(tmp, "payments-api", ".project_root"), "/home/dev/src/payments-api", time.Time{})
	writeFile(t, filepath.Join(tmp, "payments-api", "chats", "session-2026-03-12T10-15-4f1c2a9b.jsonl"), lines(
		`{"sessionId":"4f1c2a9b-7d3e","projectHash":"payments-api","startTime":"2026-03-12T10:15:02Z","lastUpdated":"2026-03-12T10:15:02Z","kind":"main"}`,
		`{"id":"m1","timestamp":"2026-03-12T10:15:09Z","type":"user","content":[{"text":"Fix refunds"}]}`,
		`{"$set":{"lastUpdated":"2026-03-12T10:17:35Z","summary":"Refund fix"}}`,
	), t0)
	// A subagent's recording, under its parent's id: not a session.
	writeFile(t, filepath.Join(tmp, "payments-api", "chats", "4f1c2a9b-7d3e", "sub.jsonl"), `{"sessionId":"sub","projectHash":"x"}`+"\n", t0)
	// The older layout: the directory is the SHA-256 of the project root,
	// the recording one JSON object.
	sum := sha256.Sum256([]byte("/home/dev/legacy"))
	hash := hex.EncodeToString(sum[:])
	writeFile(t, filepath.Join(tmp, hash, "chats", "session-2025-09-01T10-00-abcdef12.json"), `{
  "sessionId": "abcdef12-0000",
  "projectHash": "`+hash+`",
  "startTime": "2025-09-01T10:00:00Z",
  "lastUpdated": "2025-09-01T10:05:00Z",
  "messages": [{"id": "1", "type": "user", "content": "Legacy request"}]
}`, t0.Add(-time.Hour))
	// A migrated .json beside its .jsonl is listed once.
	writeFile(t, filepath.Join(tmp, "payments-api", "chats", "session-2026-03-12T10-15-4f1c2a9b.json"), `{"sessionId":"dup"}`, t0)

	ss, err := findSessions(Gemini, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if ids(ss) != "4f1c2a9b-7d3e,abcdef12-0000" {
		t.Fatalf("sessions %s", ids(ss))
	}
	if s := ss[0]; s.CWD != "/home/dev/src/payments-api" || s.Title != "Refund fix" || !s.LastActivity.Equal(time.Date(2026, 3, 12, 10, 17, 35, 0, time.UTC)) {
		t.Errorf("%+v", s)
	}
	if s := ss[1]; s.Title != "Legacy request" || s.CWD != "" {
		t.Errorf("legacy %+v", s)
	}
	if got := ids(MatchProject(ss, "/home/dev/src/payments-api")); got != "4f1c2a9b-7d3e" {
		t.Errorf("match by .project_root: %s", got)
	}
	if got := ids(MatchProject(ss, "/home/dev/legacy")); got != "abcdef12-0000" {
		t.Errorf("match by project hash: %s", got)
	}

	// GEMINI_CLI_HOME moves the whole tree; projects.json names roots.
	alt := t.TempDir()
	writeFile(t, filepath.Join(alt, ".gemini", "projects.json"), `{"projects":{"/srv/app":"app"}}`, time.Time{})
	writeFile(t, filepath.Join(alt, ".gemini", "tmp", "app", "chats", "session-x-12345678.jsonl"), `{"sessionId":"12345678","projectHash":"h"}`+"\n", t0)
	ss, err = findSessions(Gemini, envOf(map[string]string{"HOME": home, "GEMINI_CLI_HOME": alt}))
	if err != nil || ids(ss) != "12345678" || ss[0].CWD != "/srv/app" {
		t.Errorf("GEMINI_CLI_HOME: %+v %v", ss, err)
	}
}

func TestFindSessionsUnknownAgent(t *testing.T) {
	if _, err := findSessions("cursor", envOf(map[string]string{"HOME": t.TempDir()})); err == nil {
		t.Error("an unknown agent was accepted")
	}
}

func TestReadTranscriptGeminiProjectRoot(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".gemini", "tmp", "proj")
	writeFile(t, filepath.Join(dir, ".project_root"), "/src/proj\n", time.Time{})
	file := filepath.Join(dir, "chats", "session-a-12345678.jsonl")
	writeFile(t, file, lines(
		`{"sessionId":"s","projectHash":"h"}`,
		`{"id":"1","type":"gemini","content":"ok","toolCalls":[{"id":"t","name":"replace","args":{"file_path":"/src/proj/a/b.go"},"status":"success"}]}`,
	), time.Time{})
	d, err := ReadTranscript(Gemini, file, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.CWD != "/src/proj" || findFile(d, "a/b.go") == nil {
		t.Errorf("cwd %q files %+v", d.CWD, d.Files)
	}
}

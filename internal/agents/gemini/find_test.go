package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestFindGeminiSessions(t *testing.T) {
	home := t.TempDir()
	tmp := filepath.Join(home, ".gemini", "tmp")
	// The current layout: a short name and a .project_root marker.
	writeFile(t, filepath.Join(tmp, "payments-api", ".project_root"), "/home/dev/src/payments-api", time.Time{})
	writeFile(t, filepath.Join(tmp, "payments-api", "chats", "session-2026-03-12T10-15-4f1c2a9b.jsonl"), expect.Lines(
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
	// A resumed session's second file under the same id, holding no
	// conversation: the session is listed once, with its conversation.
	writeFile(t, filepath.Join(tmp, "payments-api", "chats", "session-2026-03-12T11-00-4f1c2a9b.jsonl"),
		`{"sessionId":"4f1c2a9b-7d3e","projectHash":"payments-api","startTime":"2026-03-12T11:00:00Z","lastUpdated":"2026-03-12T11:00:00Z","kind":"main"}`+"\n", t0.Add(time.Hour))
	// A migrated .json beside its .jsonl is listed once.
	writeFile(t, filepath.Join(tmp, "payments-api", "chats", "session-2026-03-12T10-15-4f1c2a9b.json"), `{"sessionId":"dup"}`, t0)

	ss := find(t, envOf(map[string]string{"HOME": home}))
	if ids(ss) != "4f1c2a9b-7d3e,abcdef12-0000" {
		t.Fatalf("sessions %s", ids(ss))
	}
	if s := ss[0]; s.CWD != "/home/dev/src/payments-api" || s.Title != "Refund fix" || !s.LastActivity.Equal(time.Date(2026, 3, 12, 10, 17, 35, 0, time.UTC)) {
		t.Errorf("%+v", s)
	}
	if s := ss[1]; s.Title != "Legacy request" || s.CWD != "" {
		t.Errorf("legacy %+v", s)
	}
	if got := ids(transcript.MatchProject(ss, "/home/dev/src/payments-api")); got != "4f1c2a9b-7d3e" {
		t.Errorf("match by .project_root: %s", got)
	}
	if got := ids(transcript.MatchProject(ss, "/home/dev/legacy")); got != "abcdef12-0000" {
		t.Errorf("match by project hash: %s", got)
	}

	// GEMINI_CLI_HOME moves the whole tree; projects.json names roots.
	alt := t.TempDir()
	writeFile(t, filepath.Join(alt, ".gemini", "projects.json"), `{"projects":{"/srv/app":"app"}}`, time.Time{})
	writeFile(t, filepath.Join(alt, ".gemini", "tmp", "app", "chats", "session-x-12345678.jsonl"), `{"sessionId":"12345678","projectHash":"h"}`+"\n", t0)
	ss = find(t, envOf(map[string]string{"HOME": home, "GEMINI_CLI_HOME": alt}))
	if ids(ss) != "12345678" || ss[0].CWD != "/srv/app" {
		t.Errorf("GEMINI_CLI_HOME: %+v", ss)
	}
}

// A session whose file names no directory matches its project by the
// hash the recording states (projectHash), in a directory named otherwise.
func TestMatchByRecordedProjectHash(t *testing.T) {
	home := t.TempDir()
	sum := sha256.Sum256([]byte("/home/dev/app"))
	writeFile(t, filepath.Join(home, ".gemini", "tmp", "renamed", "chats", "session-a-12345678.jsonl"),
		`{"sessionId":"12345678","projectHash":"`+hex.EncodeToString(sum[:])+`"}`+"\n", t0)
	ss := find(t, envOf(map[string]string{"HOME": home}))
	if got := ids(transcript.MatchProject(ss, "/home/dev/app")); got != "12345678" {
		t.Errorf("match by the recorded hash: %q of %+v", got, ss)
	}
	if got := ids(transcript.MatchProject(ss, "/home/dev/other")); got != "" {
		t.Errorf("another project matched: %q", got)
	}
}

func TestFindNothing(t *testing.T) {
	if ss := find(t, envOf(map[string]string{"HOME": t.TempDir()})); len(ss) != 0 {
		t.Errorf("empty home: %+v", ss)
	}
	if ss, err := (Transcripts{}).Find(nil); err != nil || len(ss) != 0 {
		t.Errorf("no roots: %+v %v", ss, err)
	}
}

func TestReadTranscriptGeminiProjectRoot(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".gemini", "tmp", "proj")
	writeFile(t, filepath.Join(dir, ".project_root"), "/src/proj\n", time.Time{})
	file := filepath.Join(dir, "chats", "session-a-12345678.jsonl")
	writeFile(t, file, expect.Lines(
		`{"sessionId":"s","projectHash":"h"}`,
		`{"id":"1","type":"gemini","content":"ok","toolCalls":[{"id":"t","name":"replace","args":{"file_path":"/src/proj/a/b.go"},"status":"success"}]}`,
	), time.Time{})
	d := readFileT(t, file)
	if d.CWD != "/src/proj" || expect.FileAt(d.Files, "a/b.go") == nil {
		t.Errorf("cwd %q files %+v", d.CWD, d.Files)
	}
}

func TestDirs(t *testing.T) {
	if got := Dirs("/home/u", envOf(nil)); len(got) != 1 || got[0] != "/home/u/.gemini" {
		t.Errorf("dirs %q", got)
	}
	if got := Dirs("/home/u", envOf(map[string]string{"GEMINI_CLI_HOME": "/alt"})); len(got) != 1 || got[0] != "/alt/.gemini" {
		t.Errorf("GEMINI_CLI_HOME: dirs %q", got)
	}
}

package briefing

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
	"github.com/session-handoff/session-handoff/store"
)

func TestReadMemoryFiles(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(outside, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "memory"), 0o700); err != nil {
		t.Fatal(err)
	}
	// SOUL.md in the memory directory points out of the project: refused,
	// and the root's SOUL.md is not taken in its place.
	if err := os.Symlink(outside, filepath.Join(root, "memory", "SOUL.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "SOUL.md"), []byte("root soul"), 0o600); err != nil {
		t.Fatal(err)
	}
	// MEMORY.md is a FIFO: refused without blocking.
	testsys.Mkfifo(t, filepath.Join(root, "MEMORY.md"))
	var warnings []string
	files := ReadMemoryFiles(root, "memory", func(f string, a ...any) { warnings = append(warnings, f) })
	if len(files) != 0 {
		t.Fatalf("quoted %+v", files)
	}
	if len(warnings) != 2 {
		t.Fatalf("warnings %q, want one per refused file", warnings)
	}

	// A regular file is quoted with its secrets redacted and the memory
	// header taken off.
	testsys.Check(t, os.Remove(filepath.Join(root, "memory", "SOUL.md")))
	testsys.Check(t, os.Remove(filepath.Join(root, "MEMORY.md")))
	body := "<!-- session-handoff:memory v1 -->\nI am Aria. token=ghp_" + strings.Repeat("a", 36) + "\n"
	if err := os.WriteFile(filepath.Join(root, "memory", "SOUL.md"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	files = ReadMemoryFiles(root, "memory", func(string, ...any) { t.Error("unexpected warning") })
	if len(files) != 1 || files[0].Name != "memory/SOUL.md" {
		t.Fatalf("files %+v", files)
	}
	if strings.Contains(files[0].Text, "ghp_") || strings.Contains(files[0].Text, "session-handoff:memory") || !strings.Contains(files[0].Text, "I am Aria") {
		t.Fatalf("text %q", files[0].Text)
	}
}

// A session that only asked a question is stored, but the briefing is on
// the session before it, and says so.
func TestBriefingPassesOverASessionWithoutSubstance(t *testing.T) {
	s, err := store.Open(filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	work, err := handoff.New(t0, "claude-code", "Refactor auth")
	if err != nil {
		t.Fatal(err)
	}
	work.Project.Path = project
	work.Source.Kind = handoff.SourceTranscript
	exit1 := 1
	work.Session = &handoff.Session{Agent: "claude-code", ID: "s1", Requests: []string{"refactor auth"},
		LastFailure: &handoff.Command{Command: "go test ./auth", ExitCode: &exit1, Output: "--- FAIL: TestRefresh"}}
	work.Files = []handoff.FileTouched{{Path: "auth.go", Action: "edited", Edits: 2}}
	question, err := handoff.New(t0.Add(time.Hour), "claude-code", "what should I do next?")
	if err != nil {
		t.Fatal(err)
	}
	question.Project.Path = project
	question.Source.Kind = handoff.SourceTranscript
	question.Session = &handoff.Session{Agent: "claude-code", ID: "s2", Requests: []string{"what should I do next?"}}
	for _, r := range []*handoff.Record{work, question} {
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	br, res, err := Build(context.Background(), s, Options{Project: project, MemoryDir: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	if br.Record == nil || br.Record.ID != work.ID || br.PassedOver == nil || br.PassedOver.ID != question.ID {
		t.Fatalf("briefed %v, passed over %v; want %s after passing over %s", br.Record, br.PassedOver, work.ID, question.ID)
	}
	for _, want := range []string{"did no work", string(question.ID), "auth.go", "Make `go test ./auth` pass"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("the briefing lacks %q:\n%s", want, res.Text)
		}
	}
}

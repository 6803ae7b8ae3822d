package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// The fixtures under testdata/subagents were written by internal/transcript's
// tests (codexTree, geminiTree, geminiPlanSession); these check what
// capture makes of them: a subagent's transcript is refused, naming the
// session it ran in, and a record carries what the parent's digest says.
const (
	cxParent = "019e2000-0000-7000-8000-000000000001"
	cxOther  = "019e2000-0000-7000-8000-000000000004"
	gmParent = "aaaa1111-2222-4333-8444-555566667777"
)

// fixture copies testdata/subagents/name into a new directory.
func fixture(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "subagents", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCodexSubagentIsNoSession(t *testing.T) {
	codexHome := fixture(t, "codex")
	day := filepath.Join(codexHome, "sessions", "2026", "04", "02")
	parent := filepath.Join(day, "rollout-2026-04-02T12-00-00-"+cxParent+".jsonl")
	child := filepath.Join(day, "rollout-2026-04-02T12-00-03-019e2000-0000-7000-8000-000000000002.jsonl")
	env := envOf(map[string]string{"HOME": t.TempDir(), "CODEX_HOME": codexHome})
	ss, err := FindSessions(Codex, env)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(ss); strings.Count(got, ",") != 1 || !strings.Contains(got, cxParent) || !strings.Contains(got, cxOther) {
		t.Errorf("sessions %s, want the parent and the other session only", got)
	}
	project := t.TempDir()
	_, err = Build(context.Background(), Options{Agent: Codex, Session: child, Project: project, NoGit: true, Env: env}, t0)
	if !errors.Is(err, transcript.ErrSubagent) || !strings.Contains(err.Error(), cxParent) || !strings.Contains(err.Error(), child) {
		t.Errorf("capture of a subagent: %v", err)
	}

	res, err := Build(context.Background(), Options{Agent: Codex, Session: parent, Project: project, NoGit: true, Env: env}, t0)
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Record
	if rec.Summary != "Goal (active): Lexer and parser apart, tests green" || len(rec.OpenQuestions) != 1 ||
		!strings.Contains(rec.OpenQuestions[0], "cancelled the last turn") {
		t.Errorf("summary %q open questions %q", rec.Summary, rec.OpenQuestions)
	}
}

func TestGeminiPlanGoesIntoTheRecordRedacted(t *testing.T) {
	home := fixture(t, "plan")
	file := filepath.Join(home, "session-p.jsonl")
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, file, strings.Replace(string(data), "2. Backfill", "2. Backfill with token "+secret, 1), time.Time{})
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(context.Background(), Options{Agent: Gemini, Session: file, Project: t.TempDir(), NoGit: true,
		Env: envOf(map[string]string{"HOME": home}), Redactor: r}, t0)
	if err != nil {
		t.Fatal(err)
	}
	plan := res.Record.Session.Plan
	if !strings.Contains(plan, "1. Add the column") || strings.Contains(plan, secret) || !strings.Contains(plan, "approved by the user") {
		t.Errorf("plan %q", plan)
	}
}

func TestGeminiSubagentIsNoSession(t *testing.T) {
	home := fixture(t, "gemini")
	chats := filepath.Join(home, ".gemini", "tmp", "proj", "chats")
	child := filepath.Join(chats, gmParent, "sub-1.jsonl")
	old := filepath.Join(chats, "session-2026-03-01T10-00-bbbb2222.json")
	env := envOf(map[string]string{"HOME": home})
	ss, err := FindSessions(Gemini, env)
	if err != nil {
		t.Fatal(err)
	}
	if ids(ss) != gmParent || ss[0].Title != "Lexer work" {
		t.Errorf("sessions %s %+v", ids(ss), ss)
	}
	project := t.TempDir()
	_, err = Build(context.Background(), Options{Agent: Gemini, Session: child, Project: project, NoGit: true, Env: env}, t0)
	if !errors.Is(err, transcript.ErrSubagent) || !strings.Contains(err.Error(), gmParent) {
		t.Errorf("capture of a subagent: %v", err)
	}
	_, err = Build(context.Background(), Options{Agent: Gemini, Session: old, Project: project, NoGit: true, Env: env}, t0)
	if !errors.Is(err, transcript.ErrSubagent) || !strings.Contains(err.Error(), "does not name the session") {
		t.Errorf("capture of an older subagent recording: %v", err)
	}
}

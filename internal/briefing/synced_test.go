package briefing

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// With sync, a session that only asked a question on this machine comes
// after the work my other machine sent, made at another path of the same
// repository: the briefing passes over the question to that work, as it
// would to work made here.
func TestBriefingPassesOverToWorkFromAnotherMachine(t *testing.T) {
	s, err := store.Open(filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = project
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	root, err := exec.Command("git", "-C", project, "rev-list", "--max-parents=0", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-2 * time.Hour)
	work, err := handoff.New(t0, "claude-code", "Refactor auth on the laptop")
	if err != nil {
		t.Fatal(err)
	}
	work.Project = handoff.Project{Path: "/home/me/laptop/app", Name: "app", RootCommit: strings.TrimSpace(string(root))}
	work.Source = handoff.Source{Kind: handoff.SourceImport, Import: &handoff.Provenance{BundleID: "0123456789abcdef0123456789abcdef",
		ImportedAt: t0, Verification: "verified", Signer: "me@laptop", Fingerprint: "SHA256:" + strings.Repeat("A", 43)}}
	work.Files = []handoff.FileTouched{{Path: "auth.go", Action: "edited", Edits: 2}}
	question, err := handoff.New(t0.Add(time.Hour), "codex", "anything new?")
	if err != nil {
		t.Fatal(err)
	}
	question.Project.Path = project
	question.Source.Kind = handoff.SourceTranscript
	question.Session = &handoff.Session{Agent: "codex", ID: "s2", Requests: []string{"anything new?"}}
	for _, r := range []*handoff.Record{work, question} {
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	br, _, err := Build(context.Background(), s, Options{Project: project, MemoryDir: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	if br.Record == nil || br.Record.ID != work.ID || br.PassedOver == nil || br.PassedOver.ID != question.ID {
		t.Fatalf("briefed %v, passed over %v; want %s after passing over %s", br.Record, br.PassedOver, work.ID, question.ID)
	}
	if !br.MatchedElsewhere || br.MatchedByName {
		t.Errorf("matched elsewhere %v, by name %v: want the other machine's path named", br.MatchedElsewhere, br.MatchedByName)
	}
}

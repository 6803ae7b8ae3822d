package claude

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// marks are the words of Claude Code that reading removes: its tagged
// blocks in a request, the compaction prompts' wrappers around a summary.
var marks = expect.Marks{
	Injected: func(r string) bool { return taggedBlock(strings.TrimSpace(r)) },
	Wrappers: []string{continuation, "Please continue the conversation", "Analysis:"},
}

// taggedBlock says whether t is one block of text in a tag of lower-case
// letters: <tag>…</tag>.
func taggedBlock(t string) bool {
	rest, ok := strings.CutPrefix(t, "<")
	if !ok {
		return false
	}
	tag, _, ok := strings.Cut(rest, ">")
	if !ok || tag == "" || len(tag) > 64 || strings.Trim(tag, "abcdefghijklmnopqrstuvwxyz_") != "" {
		return false
	}
	return strings.HasSuffix(t, "</"+tag+">")
}

// realE2EDir holds transcripts Claude Code wrote in the end-to-end suite
// against a scripted model (see its SOURCES.md), so that what the model
// did, and so what each digest must hold, is known exactly.
const realE2EDir = "testdata/real-e2e"

// realE2EExpectations are established from the scripts that made the
// files, not from the reader's output.
var realE2EExpectations = []struct {
	file string
	want expect.Want
}{
	{"work/d1a90aa1-626e-41aa-a247-005d367c10ca.jsonl", expect.Want{
		Title: "add a greeting file and check the tree", Requests: []string{"add a greeting file and check the tree"},
		Files:       map[string]expect.File{"hello.txt": {Action: "created", Edits: 1}},
		NumCommands: 1, Commands: []expect.Command{{Prefix: "git status --short", Exit: expect.Exit(0), Count: 1, Status: "ok"}}}},
	{"briefed/6b2b0fbf-65d6-4744-87ba-e654d77a90a2.jsonl", expect.Want{
		Title: "what next?", Requests: []string{"what next?"}}},
	// /compact is a command, not a request; the session before it wrote
	// hello.txt.
	{"compaction/fb266796-aa3e-42e5-a236-1283d3ae461d.jsonl", expect.Want{
		Title: "add a greeting file", Requests: []string{"add a greeting file"},
		Files:      map[string]expect.File{"hello.txt": {Action: "created", Edits: 1}},
		Compaction: "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."}},
	// TestFailedEditAndShellMoves: the Edit of keep.txt whose old_string
	// is not there fails: a failed edit, no change; rm gone.txt deletes
	// it (git mv's file is capture's, from git); ExitPlanMode, which print
	// mode lacks ("No such tool available"), leaves its plan pending, not
	// rejected.
	{"fidelity/13cbe6b8-6a5c-4b35-848c-76c1b13bdf84.jsonl", expect.Want{
		Title: "tidy the project", Requests: []string{"tidy the project"},
		Files:       map[string]expect.File{"gone.txt": {Action: "deleted"}},
		NumCommands: 2, Commands: []expect.Command{{Prefix: "git mv old.txt new.txt", Exit: expect.Exit(0), Count: 1, Status: "ok"},
			{Prefix: "rm gone.txt", Exit: expect.Exit(0), Count: 1, Status: "ok"}},
		Plan: "1. Fix keep.txt", PlanStatus: "pending",
		FailedEdits: map[string]expect.FailedEdit{"keep.txt": {Count: 1}}}},
}

func TestRealE2ETranscripts(t *testing.T) {
	for _, e := range realE2EExpectations {
		t.Run(e.file, func(t *testing.T) {
			d, err := readFile(filepath.Join(realE2EDir, e.file), Limits{})
			if err != nil {
				t.Fatalf("ReadTranscript: %v", err)
			}
			expect.Check(t, expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}, e.want, marks)
		})
	}
}

// TestRealE2ETranscriptsCovered: every transcript kept has an
// expectation, and every expectation its transcript.
func TestRealE2ETranscriptsCovered(t *testing.T) {
	have := map[string]bool{}
	for _, e := range realE2EExpectations {
		have[e.file] = true
	}
	expect.Covered(t, realE2EDir, "*/*.jsonl", have)
}

// Every digest says where its agent's version came from: Claude Code
// writes its own into the transcript.
func TestAgentVersionSource(t *testing.T) {
	d, err := readFile(filepath.Join(realE2EDir, "work/d1a90aa1-626e-41aa-a247-005d367c10ca.jsonl"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Session; s.AgentVersion != "2.1.332" || s.AgentVersionSource != handoff.VersionFromTranscript {
		t.Errorf("%s: version %q from %q, want %q from %q", ClaudeCode, s.AgentVersion, s.AgentVersionSource, "2.1.332", handoff.VersionFromTranscript)
	}
}

package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realExpectation is what a person established by reading one real
// transcript by eye, not what the reader happened to print: the test
// compares the digest with it field by field. Empty fields are still
// checked (an empty want means "none"), except where a comment says a
// field is optional.
type realExpectation struct {
	// file is the transcript's path under realE2EDir.
	file  string
	agent transcript.Agent

	title string
	// requests are the user's requests in order; each want is a prefix
	// of the request read (real requests run to pages).
	requests []string
	// files maps each touched path to its action and edit count.
	files map[string]realFile
	// commands lists commands that must be in the digest (a prefix of the
	// command text), with their exit code (nil: none recorded) and count.
	// numCommands is the number of distinct commands.
	commands    []realCommand
	numCommands int
	// openFailure is a prefix of the last failure's command, "" for none.
	openFailure string
	todos       []handoff.Todo
	// compaction is a substring of the compaction summary, "" for none.
	compaction string
	// plan is a substring of the session's plan, "" for none; planStatus
	// is its status (approved, rejected, pending).
	plan, planStatus string
	// cancelled says the user stopped the last turn (an open question).
	cancelled bool
}

type realFile struct {
	action string
	edits  int
	by     string // who changed it when not the session's agent ("" for it)
}

type realCommand struct {
	prefix string
	exit   *int
	count  int
	// status, when set, is the status the command must have; by names
	// who ran it when it was not the session's agent.
	status string
	by     string
}

// exit returns a pointer to an exit code, for tables.
func exit(code int) *int { return &code }

func checkReal(t *testing.T, d *Digest, want realExpectation) {
	t.Helper()
	for _, m := range compareReal(d, want) {
		t.Errorf("%s: %s", m.Field, m.Msg)
	}
}

// compareReal compares a digest with its expectation field by field.
func compareReal(d *Digest, want realExpectation) []expect.Mismatch {
	return expect.Compare(gotOf(d), want.want(), marks)
}

// gotOf is what expect compares of d.
func gotOf(d *Digest) expect.Got {
	return expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}
}

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

// want is e in expect's terms.
func (e realExpectation) want() expect.Want {
	w := expect.Want{Title: e.title, Requests: e.requests, Files: filesWant(e.files), NumCommands: e.numCommands,
		OpenFailure: e.openFailure, Todos: e.todos, Compaction: e.compaction, Plan: e.plan, PlanStatus: e.planStatus, Cancelled: e.cancelled}
	for _, c := range e.commands {
		w.Commands = append(w.Commands, expect.Command{Prefix: c.prefix, Exit: c.exit, Count: c.count, Status: c.status, By: c.by})
	}
	return w
}

func filesWant(files map[string]realFile) map[string]expect.File {
	if files == nil {
		return nil
	}
	out := map[string]expect.File{}
	for p, f := range files {
		out[p] = expect.File{Action: f.action, Edits: f.edits, By: f.by}
	}
	return out
}

// realE2EDir holds transcripts Claude Code wrote in the end-to-end suite
// against a scripted model (see its SOURCES.md), so that what the model
// did, and so what each digest must hold, is known exactly.
const realE2EDir = "testdata/real-e2e"

// realE2EExpectations are established from the scripts that made the
// files, not from the reader's output.
var realE2EExpectations = []realExpectation{
	{file: "work/d1a90aa1-626e-41aa-a247-005d367c10ca.jsonl", agent: ClaudeCode,
		title: "add a greeting file and check the tree", requests: []string{"add a greeting file and check the tree"},
		files:       map[string]realFile{"hello.txt": {action: "created", edits: 1}},
		numCommands: 1, commands: []realCommand{{prefix: "git status --short", exit: exit(0), count: 1, status: "ok"}}},
	{file: "briefed/6b2b0fbf-65d6-4744-87ba-e654d77a90a2.jsonl", agent: ClaudeCode,
		title: "what next?", requests: []string{"what next?"}},
	// /compact is a command, not a request; the session before it wrote
	// hello.txt.
	{file: "compaction/fb266796-aa3e-42e5-a236-1283d3ae461d.jsonl", agent: ClaudeCode,
		title: "add a greeting file", requests: []string{"add a greeting file"},
		files:      map[string]realFile{"hello.txt": {action: "created", edits: 1}},
		compaction: "E2E-SUMMARY: hello.txt holds the greeting; next, wire it into main.go."},
}

func TestRealE2ETranscripts(t *testing.T) {
	for _, want := range realE2EExpectations {
		t.Run(want.file, func(t *testing.T) {
			d, err := readFile(filepath.Join(realE2EDir, want.file), Limits{})
			if err != nil {
				t.Fatalf("ReadTranscript: %v", err)
			}
			checkReal(t, d, want)
		})
	}
}

// TestRealE2ETranscriptsCovered: every transcript kept has an expectation
// or is named as waiting for one.
func TestRealE2ETranscriptsCovered(t *testing.T) {
	pending := map[string]bool{}
	have := map[string]bool{}
	for _, e := range realE2EExpectations {
		have[e.file] = true
	}
	files, err := filepath.Glob(filepath.Join(realE2EDir, "*", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts under %s: %v", realE2EDir, err)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(realE2EDir, f)
		rel = filepath.ToSlash(rel)
		if !have[rel] && !pending[rel] {
			t.Errorf("%s has no expectation", rel)
		}
	}
	for f := range have {
		if _, err := os.Stat(filepath.Join(realE2EDir, f)); err != nil {
			t.Errorf("expectation for a missing file: %v", err)
		}
	}
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

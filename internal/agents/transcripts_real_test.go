package agents_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// realDir holds transcripts real agents wrote, published by other projects
// (see its SOURCES.md). They are read-only inputs.
const realDir = samplesDir + "/real"

// realExpectation is what a person established by reading one real
// transcript by eye, not what the reader happened to print: the test
// compares the digest with it field by field. Empty fields are still
// checked (an empty want means "none"), except where a comment says a
// field is optional.
type realExpectation struct {
	// file is the transcript's path under realDir.
	file  string
	agent string
	// err, when set, is a substring of the error reading must return; the
	// other fields are then ignored.
	err string

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
	// failedEdits are the files whose edit failed and no later edit
	// changed, with how often and by whom; none when empty.
	failedEdits map[string]expect.FailedEdit
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

// realExpectations are filled by one table per agent, in
// real_<agent>_test.go.
var realExpectations []realExpectation

func TestRealTranscripts(t *testing.T) {
	for _, want := range realExpectations {
		t.Run(want.file, func(t *testing.T) {
			d, err := readAs(want.agent, filepath.Join(realDir, want.file), transcript.Limits{})
			if want.err != "" {
				if err == nil || !strings.Contains(err.Error(), want.err) {
					t.Fatalf("error %v, want one containing %q", err, want.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadTranscript: %v", err)
			}
			checkReal(t, d, want)
		})
	}
}

func checkReal(t *testing.T, d *transcript.Digest, want realExpectation) {
	t.Helper()
	for _, m := range compareReal(d, want) {
		t.Errorf("%s: %s", m.Field, m.Msg)
	}
}

// compareReal compares a digest with its expectation field by field.
func compareReal(d *transcript.Digest, want realExpectation) []expect.Mismatch {
	return expect.Compare(gotOf(d), want.want(), marks)
}

// gotOf is what expect compares of d.
func gotOf(d *transcript.Digest) expect.Got {
	return expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}
}

// marks are the words the readers remove: Gemini CLI's /init prompt and
// the agents' tagged blocks in a request (<environment_context>…), the
// compaction prompts' wrappers around a summary (Claude Code's
// continuation, Codex's summary prefix). They are facts of the agents'
// formats, spelled here as the readers in their folders spell them.
var marks = expect.Marks{
	Injected: func(r string) bool {
		return strings.Contains(r, "Your task is to analyze the current directory and generate a comprehensive GEMINI.md file") ||
			taggedBlock(strings.TrimSpace(r))
	},
	Wrappers: []string{"This session is being continued from a previous conversation", "Please continue the conversation",
		"Another language model started to solve this problem", "Analysis:"},
}

// taggedBlock says whether t is one block "<snake_case_tag>…</snake_case_tag>",
// the way agents wrap the context they add to a request.
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
		OpenFailure: e.openFailure, Todos: e.todos, Compaction: e.compaction, Plan: e.plan, PlanStatus: e.planStatus, Cancelled: e.cancelled,
		FailedEdits: e.failedEdits}
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

// TestRealTranscriptsCovered fails when a transcript under realDir has no
// expectation, so a file added there cannot go unchecked.
//
// Not every file has its expectation yet (issue 17): until then this test
// lists the files still without one, and fails only if a listed file is
// gone or a new one arrives unlisted.
func TestRealTranscriptsCovered(t *testing.T) {
	have := map[string]bool{}
	for _, e := range realExpectations {
		have[e.file] = true
	}
	var files []string
	err := filepath.WalkDir(realDir, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || de.Name() == "SOURCES.md" {
			return err
		}
		rel, _ := filepath.Rel(realDir, p)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatalf("real transcripts not readable: %v", err)
	}
	expect.CoveredFiles(t, files, have, realPending)
}

// realPending are the real transcripts whose expectations are still to be
// written (issue 17's quality bar: every file gets one).
var realPending = map[string]bool{}

package codex

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
	"github.com/session-handoff/session-handoff/schema"
)

// samplesDir holds the sample and real transcripts of every agent (see
// its SOURCES.md); realE2EDir the rollouts Codex wrote in the end-to-end
// suite.
const (
	samplesDir = "../../../testdata/transcripts"
	realDir    = samplesDir + "/real"
	realE2EDir = "testdata/real-e2e"
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// codex reads a rollout held in memory, as Read reads a file.
func codex(in string) (*transcript.Digest, error) {
	return read(io.NewSectionReader(strings.NewReader(in), 0, int64(len(in))), transcript.Limits{})
}

// readBytes is codex for bytes, with limits.
func readBytes(data []byte, lim transcript.Limits) (*transcript.Digest, error) {
	return read(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), lim)
}

func mustRead(t *testing.T, read func(string) (*transcript.Digest, error), in string) *transcript.Digest {
	t.Helper()
	d, err := read(in)
	if err != nil {
		t.Fatal(err)
	}
	checkRecordValid(t, d)
	return d
}

// readFile reads the rollout at path as the agents table does, its
// subagents folded in.
func readFile(t *testing.T, path string) *transcript.Digest {
	t.Helper()
	d, err := Transcripts{}.Read(path, "", transcript.Limits{})
	if err != nil {
		t.Fatalf("Read(%s): %v", path, err)
	}
	return d
}

// checkRecordValid: the digest makes a record the schema takes.
func checkRecordValid(t *testing.T, d *transcript.Digest) {
	t.Helper()
	title := d.Title
	if strings.TrimSpace(title) == "" {
		title = "untitled"
	}
	rec, err := handoff.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), d.Session.Agent, title)
	if err != nil {
		t.Fatal(err)
	}
	rec.Project = handoff.Project{Path: "/p", Name: "p"}
	s := d.Session
	rec.Session = &s
	rec.Files = d.Files
	rec.Source = handoff.Source{Kind: handoff.SourceTranscript}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(schema.Handoff, data); err != nil {
		t.Errorf("digest does not make a valid record: %v", err)
	}
}

func findCommand(s handoff.Session, cmd string) *handoff.Command {
	for i := range s.Commands {
		if s.Commands[i].Command == cmd {
			return &s.Commands[i]
		}
	}
	return nil
}

func findFile(d *transcript.Digest, path string) *handoff.FileTouched {
	for i := range d.Files {
		if d.Files[i].Path == path {
			return &d.Files[i]
		}
	}
	return nil
}

func lastRequest(s handoff.Session) string {
	if len(s.Requests) == 0 {
		return ""
	}
	return s.Requests[len(s.Requests)-1]
}

func commandNames(s handoff.Session) string {
	var out []string
	for _, c := range s.Commands {
		out = append(out, c.Command)
	}
	return strings.Join(out, "|")
}

// writeFile writes a file, its directories made, with mtime when set.
func writeFile(t *testing.T, path, data string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if !mtime.IsZero() {
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// realExpectation is what a person established by reading one real
// transcript by eye, not what the reader happened to print: the test
// compares the digest with it field by field (expect.Compare).
type realExpectation struct {
	// file is the transcript's path under its directory.
	file string

	title       string
	requests    []string
	files       map[string]realFile
	commands    []realCommand
	numCommands int
	openFailure string
	todos       []handoff.Todo
	compaction  string
	cancelled   bool
}

type realFile struct {
	action string
	edits  int
	by     string
}

type realCommand struct {
	prefix string
	exit   *int
	count  int
	status string
	by     string
}

// exit returns a pointer to an exit code, for tables.
func exit(code int) *int { return &code }

// marks are Codex's words that reading removes: its tagged blocks in a
// request, its prefix of a compaction summary.
var marks = expect.Marks{
	Injected: func(r string) bool { return isTaggedBlock(strings.TrimSpace(r)) },
	Wrappers: []string{summaryPrefix},
}

func checkReal(t *testing.T, d *transcript.Digest, e realExpectation) {
	t.Helper()
	w := expect.Want{Title: e.title, Requests: e.requests, NumCommands: e.numCommands,
		OpenFailure: e.openFailure, Todos: e.todos, Compaction: e.compaction, Cancelled: e.cancelled}
	if e.files != nil {
		w.Files = map[string]expect.File{}
		for p, f := range e.files {
			w.Files[p] = expect.File{Action: f.action, Edits: f.edits, By: f.by}
		}
	}
	for _, c := range e.commands {
		w.Commands = append(w.Commands, expect.Command{Prefix: c.prefix, Exit: c.exit, Count: c.count, Status: c.status, By: c.by})
	}
	expect.Check(t, expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}, w, marks)
}

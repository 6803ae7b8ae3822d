package codex

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// samplesDir holds the sample and real transcripts of every agent (see
// its SOURCES.md); realE2EDir the rollouts Codex wrote in the end-to-end
// suite.
const (
	samplesDir = "../../../testdata/transcripts"
	realDir    = samplesDir + "/real"
	realE2EDir = "testdata/real-e2e"
)

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
	expect.Storable(t, d.Title, d.Session, d.Files)
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

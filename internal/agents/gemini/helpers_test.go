package gemini

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// samplesDir holds the repository's sample and real transcripts
// (testdata/transcripts, see its SOURCES.md).
const samplesDir = "../../../testdata/transcripts"

// realDir holds real transcripts other projects published.
const realDir = samplesDir + "/real"

var writeFile = testsys.WriteFile

// gemini reads in, a recording, as Read reads a file, with no root known
// from where it lies.
func gemini(in string) (*transcript.Digest, error) {
	return read(io.NewSectionReader(bytes.NewReader([]byte(in)), 0, int64(len(in))), transcript.Limits{}, "")
}

func mustRead(t *testing.T, read func(string) (*transcript.Digest, error), in string) *transcript.Digest {
	t.Helper()
	d, err := read(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := transcript.CheckDigest(d); err != nil {
		t.Errorf("bad digest: %v", err)
	}
	return d
}

// readFileT reads the recording at path as the agents table does.
func readFileT(t *testing.T, path string) *transcript.Digest {
	t.Helper()
	d, err := Transcripts{}.Read(path, "", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// find lists the sessions as the agents table finds them, under the
// home and variables env gives.
func find(t *testing.T, env func(string) string) []transcript.SessionInfo {
	t.Helper()
	ss, err := Transcripts{}.Find(Agent().SessionRoots(env("HOME"), env))
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func ids(ss []transcript.SessionInfo) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return strings.Join(out, ",")
}

// realExpectation is what a person established by reading one real
// transcript by eye, not what the reader happened to print: the test
// compares the digest with it field by field (internal/transcript/expect).
// Empty fields are still checked (an empty want means "none").
type realExpectation struct {
	// file is the transcript's path; err, when set, a substring of the
	// error reading must return, the other fields then ignored.
	file, err string
	title     string
	// requests are the user's requests in order; each want is a prefix
	// of the request read.
	requests    []string
	files       map[string]realFile
	commands    []realCommand
	numCommands int
	todos       []handoff.Todo
	compaction  string
	cancelled   bool
}

type realFile struct {
	action string
	edits  int
}

type realCommand struct {
	prefix string
	exit   *int
	count  int
	status string
}

func (e realExpectation) want() expect.Want {
	w := expect.Want{Title: e.title, Requests: e.requests, Files: filesWant(e.files), NumCommands: e.numCommands,
		Todos: e.todos, Compaction: e.compaction, Cancelled: e.cancelled}
	for _, c := range e.commands {
		w.Commands = append(w.Commands, expect.Command{Prefix: c.prefix, Exit: c.exit, Count: c.count, Status: c.status})
	}
	return w
}

func filesWant(files map[string]realFile) map[string]expect.File {
	if files == nil {
		return nil
	}
	out := map[string]expect.File{}
	for p, f := range files {
		out[p] = expect.File{Action: f.action, Edits: f.edits}
	}
	return out
}

// marks are Gemini CLI's words that reading removes from a request: the
// /init prompt and a tagged block (<hook_context>, <session_context>).
var marks = expect.Marks{Injected: func(r string) bool {
	return strings.Contains(r, initPrompt) || isTaggedBlock(strings.TrimSpace(r))
}}

// isTaggedBlock reports whether t is one block of a lowercase tag:
// <name>…</name>.
func isTaggedBlock(t string) bool {
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

func checkReal(t *testing.T, d *transcript.Digest, want realExpectation) {
	t.Helper()
	got := expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}
	for _, m := range expect.Compare(got, want.want(), marks) {
		t.Errorf("%s: %s", m.Field, m.Msg)
	}
}

func checkRealFiles(t *testing.T, got []handoff.FileTouched, want map[string]realFile) {
	t.Helper()
	expect.CheckFiles(t, got, filesWant(want))
}

// checkRealFile reads file under dir and checks it against want.
func checkRealFile(t *testing.T, dir string, want realExpectation) {
	t.Helper()
	d, err := Transcripts{}.Read(filepath.Join(dir, want.file), "", transcript.Limits{})
	if want.err != "" {
		if err == nil || !strings.Contains(err.Error(), want.err) {
			t.Fatalf("error %v, want one containing %q", err, want.err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	checkReal(t, d, want)
}

package gemini

import (
	"bytes"
	"io"
	"strings"
	"testing"

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

package codex

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// marks are Codex's words that reading removes: its tagged blocks in a
// request, its prefix of a compaction summary.
var marks = expect.Marks{
	Injected: func(r string) bool { return isTaggedBlock(strings.TrimSpace(r)) },
	Wrappers: []string{summaryPrefix},
}

// checkReal fails t where d is not what want says the rollout holds.
func checkReal(t *testing.T, d *transcript.Digest, want expect.Want) {
	t.Helper()
	expect.Check(t, expect.Got{Title: d.Title, Session: d.Session, Files: d.Files, Cancelled: d.Cancelled}, want, marks)
}

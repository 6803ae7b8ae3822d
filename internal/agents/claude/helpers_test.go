package claude

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// The tests moved here from internal/transcript with the reader keep
// their names for its types.
type (
	Digest      = transcript.Digest
	Limits      = transcript.Limits
	SessionInfo = transcript.SessionInfo
)

// ClaudeCode is the agent's name, as the digests say it.
const ClaudeCode = agentName

// The bounds of a digest.
const (
	MaxEarlierRequest = transcript.MaxEarlierRequest
	MaxTitle          = transcript.MaxTitle
	MaxTitleLine      = transcript.MaxTitleLine
	MaxCompaction     = transcript.MaxCompaction
)

var (
	ErrNoRecords = transcript.ErrNoRecords
	ErrSubagent  = transcript.ErrSubagent
	MatchProject = transcript.MatchProject
	CheckDigest  = transcript.CheckDigest
)

// samplesDir holds the sample transcripts of every agent, realDir the
// real ones (SOURCES.md in each).
const (
	samplesDir = "../../../testdata/transcripts"
	realDir    = samplesDir + "/real"
)

// readAll reads the transcript r holds, as Read reads a file.
func readAll(r io.Reader, lim Limits) (*Digest, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return readBytes(data, lim)
}

// readBytes reads the transcript data holds, as Read reads a file.
func readBytes(data []byte, lim Limits) (*Digest, error) {
	return read(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), lim.WithDefaults(), false)
}

// readFile reads the session at path with its subagents.
func readFile(path string, lim Limits) (*Digest, error) { return Transcripts{}.Read(path, "", lim) }

func readSample(t *testing.T, name string) *Digest {
	t.Helper()
	p := filepath.Join(samplesDir, "claude-code", name)
	d, err := readFile(p, Limits{})
	if err != nil {
		t.Fatalf("ReadTranscript(%s): %v", p, err)
	}
	return d
}

func claude(in string) (*Digest, error) { return readAll(strings.NewReader(in), Limits{}) }

func mustRead(t *testing.T, read func(string) (*Digest, error), in string) *Digest {
	t.Helper()
	d, err := read(in)
	if err != nil {
		t.Fatal(err)
	}
	expect.Storable(t, d.Title, d.Session, d.Files)
	return d
}

// detect is what Detect makes of head: the zero Detected when not Claude
// Code's.
func detect(head []byte) transcript.Detected {
	d, _ := Transcripts{}.Detect(head)
	return d
}

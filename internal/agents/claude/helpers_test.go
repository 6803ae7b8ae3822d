package claude

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/schema"
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

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func mustRead(t *testing.T, read func(string) (*Digest, error), in string) *Digest {
	t.Helper()
	d, err := read(in)
	if err != nil {
		t.Fatal(err)
	}
	checkRecordValid(t, d)
	return d
}

// checkRecordValid embeds the digest in a record and validates it against
// the handoff schema: a digest must always be storable.
func checkRecordValid(t *testing.T, d *Digest) {
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

func findFile(d *Digest, path string) *handoff.FileTouched {
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

// detect is what Detect makes of head: the zero Detected when not Claude
// Code's.
func detect(head []byte) transcript.Detected {
	d, _ := Transcripts{}.Detect(head)
	return d
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

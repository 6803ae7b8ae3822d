package transcript

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/schema"
)

// samplesDir holds the sample transcripts (testdata/transcripts at the
// repository's root; SOURCES.md there says where each comes from).
const samplesDir = "../../testdata/transcripts"

var sampleAgents = map[string]Agent{"claude-code": ClaudeCode, "codex": Codex, "gemini": Gemini}

func readSample(t *testing.T, agent Agent, name string) *Digest {
	t.Helper()
	p := filepath.Join(samplesDir, string(agentDir(agent)), name)
	d, err := ReadTranscript(agent, p, Limits{})
	if err != nil {
		t.Fatalf("ReadTranscript(%s): %v", p, err)
	}
	return d
}

func agentDir(a Agent) string {
	for dir, x := range sampleAgents {
		if x == a {
			return dir
		}
	}
	return string(a)
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

// A title made from a request is its first paragraph on one line, cut at
// a word within MaxTitleLine bytes: never the whole request.
func TestTitleFrom(t *testing.T) {
	long := strings.Repeat("refresh the token parser ", 10)
	for _, tc := range []struct{ in, want string }{
		{"  Fix\nthe build  ", "Fix the build"},
		{"Fix the parser\n\nHere is the stack trace:\npanic: nil map\n", "Fix the parser"},
		{"\n\n  \nSecond line first\n", "Second line first"},
		{long, strings.TrimSpace(long[:112]) + "…"},
	} {
		got := titleFrom(tc.in)
		if got != tc.want || len(got) > MaxTitleLine {
			t.Errorf("titleFrom(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

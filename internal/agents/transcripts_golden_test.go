package agents_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// samplesDir holds the sample transcripts (testdata/transcripts at the
// repository's root; SOURCES.md there says where each comes from).
const samplesDir = "../../testdata/transcripts"

// sampleAgents maps each directory of samplesDir to its agent.
var sampleAgents = map[string]string{agents.ClaudeCode: agents.ClaudeCode, agents.Codex: agents.Codex, agents.Gemini: agents.Gemini}

type sample struct {
	agent string
	path  string
	name  string // agent dir / file name
}

func samples(t *testing.T) []sample {
	t.Helper()
	var out []sample
	for dir, agent := range sampleAgents {
		files, err := filepath.Glob(filepath.Join(samplesDir, dir, "*.json*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			out = append(out, sample{agent: agent, path: f, name: dir + "/" + filepath.Base(f)})
		}
	}
	if len(out) == 0 {
		t.Fatalf("no sample transcripts under %s", samplesDir)
	}
	return out
}

func readSample(t *testing.T, agent string, name string) *transcript.Digest {
	t.Helper()
	p := filepath.Join(samplesDir, agentDir(agent), name)
	d, err := readAs(agent, p, transcript.Limits{})
	if err != nil {
		t.Fatalf("readAs(%s): %v", p, err)
	}
	return d
}

func agentDir(a string) string {
	for dir, x := range sampleAgents {
		if x == a {
			return dir
		}
	}
	return a
}

func TestGolden(t *testing.T) {
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			d, err := readAs(s.agent, s.path, transcript.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(d, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(s.name, filepath.Ext(s.name))+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/agents -run TestGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("digest of %s differs from %s (run with -update if the change is meant):\n%s", s.name, golden, got)
			}
			checkRecordValid(t, d)
		})
	}
}

// checkRecordValid embeds the digest in a record and validates it against
// the handoff schema: a digest must always be storable.
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

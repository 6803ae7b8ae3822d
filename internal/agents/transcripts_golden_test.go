package agents_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
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
			expect.Storable(t, d.Title, d.Session, d.Files)
		})
	}
}

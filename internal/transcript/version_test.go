package transcript

import (
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
)

// Every digest says where its agent's version came from: Claude Code and
// Codex write theirs into the transcript; Gemini CLI writes none, so the
// record says the version is unknown rather than leaving it blank.
func TestAgentVersionSource(t *testing.T) {
	for _, tc := range []struct {
		agent         Agent
		file          string
		version, from string
	}{
		{ClaudeCode, "../../../agents/claude/testdata/real-e2e/work/d1a90aa1-626e-41aa-a247-005d367c10ca.jsonl", "2.1.332", handoff.VersionFromTranscript},
		{Codex, "../../../agents/codex/testdata/real-e2e/work/rollout-2026-11-27T11-55-39-01a21cdc-7446-7bd3-86ed-b6fd37217b2b.jsonl", "0.171.0", handoff.VersionFromTranscript},
		{Gemini, "../../../agents/gemini/testdata/real-e2e/work/session-2026-11-27T09-10-505c8add.jsonl", "", handoff.VersionUnknown},
	} {
		d, err := ReadTranscript(tc.agent, filepath.Join(realE2EDir, tc.file), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if s := d.Session; s.AgentVersion != tc.version || s.AgentVersionSource != tc.from {
			t.Errorf("%s: version %q from %q, want %q from %q", tc.agent, s.AgentVersion, s.AgentVersionSource, tc.version, tc.from)
		}
	}
}

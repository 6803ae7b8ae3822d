package capture

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
		{ClaudeCode, "claude-code/work/776c6236-8e1f-49e5-8fb9-e8a29842b837.jsonl", "2.1.328", handoff.VersionFromTranscript},
		{Codex, "codex/work/rollout-2026-11-27T09-10-40-01a21c45-6699-7880-90a5-8028c09276a9.jsonl", "0.169.0", handoff.VersionFromTranscript},
		{Gemini, "gemini/work/session-2026-11-27T09-10-505c8add.jsonl", "", handoff.VersionUnknown},
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

package codex

import (
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
)

// The words Codex wraps a compaction summary in, as its source writes
// them (read.go cites where), around one summary.
func TestCompactionSummaryWithoutWrappers(t *testing.T) {
	const summary = "1. Primary Request: port the lexer.\n2. Pending: TestParse fails on nested quotes."
	for name, text := range map[string]string{
		"0.5x": summaryPrefix + " and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to  assist with your own analysis:\n" + summary,
		"bare": summary,
	} {
		if got := compactSummary(text); got != summary {
			t.Errorf("Codex %s: %q", name, got)
		}
	}
}

// A rollout says which Codex wrote it: the digest says so, and that the
// version came from the transcript.
func TestAgentVersionSource(t *testing.T) {
	d := readFile(t, filepath.Join(realE2EDir, "work/rollout-2026-11-27T11-55-39-01a21cdc-7446-7bd3-86ed-b6fd37217b2b.jsonl"))
	if s := d.Session; s.AgentVersion != "0.171.0" || s.AgentVersionSource != handoff.VersionFromTranscript {
		t.Errorf("version %q from %q, want 0.171.0 from the transcript", s.AgentVersion, s.AgentVersionSource)
	}
}

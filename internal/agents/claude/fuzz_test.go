package claude

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

func addSeeds(f *testing.F, agentDir string, extra ...string) {
	paths, _ := filepath.Glob(filepath.Join(samplesDir, agentDir, "*"))
	if len(paths) == 0 {
		f.Fatalf("no sample transcripts under %s", filepath.Join(samplesDir, agentDir))
	}
	hostile, _ := filepath.Glob(filepath.Join("testdata", "hostile", "*"))
	for _, p := range append(paths, hostile...) {
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 64<<10 {
			continue
		}
		f.Add(data)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

func fuzzReader(f *testing.F, read func(io.Reader, Limits) (*Digest, error)) {
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := read(bytes.NewReader(data), Limits{MaxLine: 64 << 10, MaxFile: 1 << 20})
		if err != nil {
			if !errors.Is(err, ErrNoRecords) && !errors.Is(err, ErrSubagent) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		if err := CheckDigest(d); err != nil {
			t.Fatalf("bad digest: %v", err)
		}
	})
}

func FuzzClaudeCode(f *testing.F) {
	addSeeds(f, "claude-code",
		expect.Lines(`{"type":"user","uuid":"a","parentUuid":"b","message":{"content":"x"}}`, `{"type":"user","uuid":"b","parentUuid":"a","message":{"content":"y"}}`),
		expect.Lines(`{"type":"system","subtype":"compact_boundary","uuid":"c","logicalParentUuid":"a"}`, `{"type":"user","uuid":"d","parentUuid":"c","isCompactSummary":true,"message":{"content":"s"}}`),
		// Claude Code 2.1 shapes: a preserved segment, a queued prompt,
		// tasks, a plan, answers, a pull request, a sidechain line.
		expect.Lines(`{"type":"user","uuid":"u","message":{"content":"x"}}`, `{"type":"system","subtype":"compact_boundary","uuid":"b","compactMetadata":{"preservedSegment":{"headUuid":"u","anchorUuid":"s","tailUuid":"u"}}}`, `{"type":"user","uuid":"s","parentUuid":"b","isCompactSummary":true,"message":{"content":"sum"}}`),
		expect.Lines(`{"type":"queue-operation","operation":"enqueue","content":"p"}`, `{"type":"attachment","uuid":"q","attachment":{"type":"queued_command","prompt":"p","commandMode":"prompt"}}`, `{"type":"queue-operation","operation":"remove","content":"p","reason":"absorbed_mid_turn"}`),
		expect.Lines(`{"type":"user","uuid":"r","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]},"toolUseResult":{"task":{"id":"1","subject":"a"},"answers":{"q?":"y"},"plan":"p"}}`, `{"type":"assistant","uuid":"a","message":{"content":[{"type":"tool_use","id":"t2","name":"TaskUpdate","input":{"taskId":"1","status":"deleted"}}]}}`),
		expect.Lines(`{"type":"pr-link","prUrl":"https://x/pull/1","prNumber":1}`, `{"type":"worktree-state","worktreeSession":{"worktreePath":"/w"}}`, `{"type":"user","isSidechain":true,"agentId":"a1","sessionId":"s","message":{"content":"sub"}}`),
	)
	fuzzReader(f, readAll)
}

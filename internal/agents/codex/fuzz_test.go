package codex

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// FuzzCodex feeds arbitrary bytes to the reader: it must give a digest
// that keeps every invariant (transcript.CheckDigest) or ErrNoRecords (or
// ErrSubagent), and never panic; Detect never panics and describes what
// it takes. Seeds are the sample rollouts, the hostile corpus every
// reader faces and rollouts of the shapes the tests build.

func addSeeds(f *testing.F, extra ...string) {
	paths, _ := filepath.Glob(filepath.Join(samplesDir, "codex", "*"))
	if len(paths) == 0 {
		f.Fatalf("no sample rollouts under %s", filepath.Join(samplesDir, "codex"))
	}
	hostile, _ := filepath.Glob(filepath.Join("..", "..", "transcript", "testdata", "hostile", "*"))
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

func FuzzCodex(f *testing.F) {
	addSeeds(f,
		expect.Lines(`{"type":"event_msg","payload":{"type":"user_message","message":"a"}}`, `{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":3}}`),
		expect.Lines(`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Update File: a\n*** Move to: b\n"}}`),
		expect.Lines(`{"type":"session_meta","payload":{"id":"c","source":{"subagent":{"thread_spawn":{"parent_thread_id":"p"}}}}}`,
			`{"type":"event_msg","payload":{"type":"user_message","message":"x\n## My request for Codex:\ny"}}`,
			`{"type":"event_msg","payload":{"type":"thread_goal_updated","goal":{"objective":"o","status":"active"}}}`,
			`{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`),
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		if d, ok := (Transcripts{}).Detect(data); ok && (d.What == "" || d.Agent != "" && (d.Foreign || d.Agent != agentName)) {
			t.Fatalf("Detect(%q) = %+v", data, d)
		}
		d, err := readBytes(data, transcript.Limits{MaxLine: 64 << 10, MaxFile: 1 << 20})
		if err != nil {
			if !errors.Is(err, transcript.ErrNoRecords) && !errors.Is(err, transcript.ErrSubagent) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		if err := transcript.CheckDigest(d); err != nil {
			t.Fatalf("bad digest: %v", err)
		}
	})
}

package gemini

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// FuzzGemini: no input makes the reader or the detector panic; an input
// either is refused as holding no record or reads into a valid digest
// (transcript.CheckDigest) within the limits given. The seeds are the
// sample recordings, the hostile corpus every reader faces and
// hand-made recordings of the shapes read.
func FuzzGemini(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(samplesDir, "gemini", "*"))
	if len(paths) == 0 {
		f.Fatalf("no sample recordings under %s", filepath.Join(samplesDir, "gemini"))
	}
	hostile, _ := filepath.Glob(filepath.Join("..", "..", "transcript", "testdata", "hostile", "*"))
	for _, p := range append(paths, hostile...) {
		if data, err := os.ReadFile(p); err == nil && len(data) <= 64<<10 {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"{\n \"sessionId\": \"s\", \"messages\": [{\"id\":\"1\",\"type\":\"user\",\"content\":\"x\"}]\n}",
		expect.Lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"a","type":"user","content":"x"}`, `{"$rewindTo":"a"}`, `{"$set":{"messages":[{"id":"b","type":"user","content":"y"}]}}`),
		expect.Lines(`{"sessionId":"s","projectHash":"h","kind":"subagent"}`, `{"id":"i","type":"info","content":"Request cancelled."}`,
			`{"id":"g","type":"gemini","toolCalls":[{"id":"1","name":"enter_plan_mode","status":"success"},`+
				`{"id":"2","name":"write_file","args":{"file_path":"plans/p.md","content":"a"},"status":"success"},`+
				`{"id":"3","name":"replace","args":{"file_path":"plans/p.md","old_string":"a","new_string":"b"},"status":"success"},`+
				`{"id":"4","name":"exit_plan_mode","args":{"plan_filename":"p.md"},"status":"success","result":"Plan approved"},`+
				`{"id":"5","name":"tracker_list_tasks","status":"success","resultDisplay":{"todos":[{"description":"t","status":"blocked"}]}},`+
				`{"id":"6","name":"update_topic","args":{"title":"T"},"status":"success"}]}`),
		expect.Lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"u","type":"user","content":["a",[["b"],{"text":"c"}],{"text":"<hook_context>x</hook_context>"}]}`),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		(Transcripts{}).Detect(data)
		d, err := read(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), transcript.Limits{MaxLine: 64 << 10, MaxFile: 1 << 20}, "")
		if err != nil {
			if !errors.Is(err, transcript.ErrNoRecords) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		if err := transcript.CheckDigest(d); err != nil {
			t.Fatalf("bad digest: %v", err)
		}
		if d.Session.Agent != Name || d.Stats.Records > d.Stats.Lines {
			t.Errorf("agent %q, stats %+v", d.Session.Agent, d.Stats)
		}
	})
}

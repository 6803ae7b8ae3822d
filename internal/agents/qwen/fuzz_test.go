package qwen

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// FuzzReadQwenCode: no input makes the reader or the detector panic; an
// input either is refused as holding no Qwen Code record or reads into a
// valid digest of Qwen Code's (transcript.CheckDigest), within the limits
// given. The seeds include the hostile corpus every reader faces.
func FuzzReadQwenCode(f *testing.F) {
	f.Add([]byte(userRec("u1", "", "hi") + textRec("a1", "u1", "yes")))
	f.Add([]byte(userRec("u1", "u2", "cycle") + textRec("u2", "u1", "cycle")))
	f.Add([]byte(callRec("a1", "", "c1", "tool_call", `{"name":"tool_call","arguments":{"name":"edit","arguments":{}}}`)))
	f.Add([]byte(resultRec("t1", "", "c1", "success", `{"type":"shell_result","exitCode":"x"}`)))
	f.Add([]byte(rec("s1", "", "system", `,"subtype":"chat_compression","systemPayload":{"compressedHistory":[{"parts":[{"text":null}]}]}`)))
	f.Add([]byte(`{"uuid":"u","sessionId":"s","type":"user","message":{"parts":[{"text":"\u0000"}]}}`))
	hostile, _ := filepath.Glob(filepath.Join("..", "..", "transcript", "testdata", "hostile", "*"))
	for _, name := range hostile {
		if b, err := os.ReadFile(name); err == nil && len(b) <= 1<<20 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		(Transcripts{}).Detect(data)
		d, err := read(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), transcript.Limits{MaxFile: 1 << 20, MaxLine: 64 << 10})
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

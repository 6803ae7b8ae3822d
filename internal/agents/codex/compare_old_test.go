package codex

// TEMPORARY (issue 36): this file compares the folder's reader with the
// map reader it replaces in internal/transcript, and goes with it when the
// lead deletes that reader. Read, Detect and Find must give exactly what
// transcript.ReadCodex, transcript.Detect and transcript.FindSessions gave,
// on every transcript file of the repository and on fuzzed input:
//
//	go test -run Compare ./internal/agents/codex/
//	go test -run '^$' -fuzz FuzzCompareOld ./internal/agents/codex/
//	go test -run '^$' -bench Cmp -benchtime 10x ./internal/agents/codex/
//
// One difference is known and left out of the fuzzing: a record time of
// year 1 (0001-01-01T00:00:00Z, the zero time) no longer erases the
// session's start (transcript.Builder.Time ignores the zero time).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcriptgen"
)

// allFiles are the JSON and JSON Lines files of the repository's test
// data, of every agent.
func allFiles(t testing.TB) []string {
	var out []string
	for _, root := range []string{"../../../testdata", "../../../internal"} {
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) && fi.Size() < 50<<20 {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

func oldRead(data []byte) (*transcript.Digest, error) {
	return transcript.ReadCodex(bytes.NewReader(data), transcript.Limits{})
}

func newRead(data []byte) (*transcript.Digest, error) {
	return read(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), transcript.Limits{})
}

// same fails t when the old and the new reader differ on data.
func same(t testing.TB, name string, data []byte) {
	a, errA := oldRead(data)
	b, errB := newRead(data)
	if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
		t.Fatalf("%s: errors differ: %v / %v", name, errA, errB)
	}
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Fatalf("%s: digests differ:\nOLD %s\nNEW %s", name, ja, jb)
	}
	old := transcript.Detect(data[:min(len(data), transcript.DetectBytes)])
	oldOK := old.Agent == transcript.Codex || old.Foreign && strings.Contains(old.What, "codex exec")
	d, ok := Transcripts{}.Detect(data[:min(len(data), transcript.DetectBytes)])
	if ok != oldOK || ok && (d.What != old.What || d.Foreign != old.Foreign || d.Agent != old.Agent) {
		t.Fatalf("%s: detect differs: %+v / %+v %v", name, old, d, ok)
	}
}

func TestCompareOld(t *testing.T) {
	for _, f := range allFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(f, func(t *testing.T) { same(t, f, data) })
	}
}

func FuzzCompareOld(f *testing.F) {
	for _, p := range allFiles(f) {
		data, _ := os.ReadFile(p)
		if bytes.Contains(data, []byte("session_meta")) || bytes.Contains(data, []byte("response_item")) || len(data) < 4000 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, []byte("0001-01-01")) {
			return
		}
		same(t, "fuzz", data)
	})
}

func benchData(b *testing.B) []byte {
	var buf bytes.Buffer
	if err := transcriptgen.New(10<<20, "/home/dev/src/app").Write("codex", &buf, 10<<20); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkCmp reads a generated 10 MB rollout with the old reader and
// the new, in turns, so that both see the same load.
func BenchmarkCmp(b *testing.B) {
	data := benchData(b)
	for range 5 {
		b.Run("old", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := oldRead(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("new", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := newRead(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestCompareFind(t *testing.T) {
	root := t.TempDir()
	day := filepath.Join(root, "2026", "01", "02")
	os.MkdirAll(day, 0o755)
	for i, f := range allFiles(t) {
		data, _ := os.ReadFile(f)
		name := filepath.Join(day, fmt.Sprintf("rollout-2026-01-02T03-04-05-%08d-1111-4111-8111-111111111111.jsonl", i))
		os.WriteFile(name, data, 0o644)
	}
	// A file larger than the head discovery reads.
	var big bytes.Buffer
	transcriptgen.New(1, "/x").Write("codex", &big, 1<<20)
	os.WriteFile(filepath.Join(day, "rollout-2026-01-02T03-04-05-99999999-1111-4111-8111-111111111111.jsonl"), big.Bytes(), 0o644)
	old, err := transcript.FindSessions(transcript.Codex, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	nw, err := Transcripts{}.Find([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != len(nw) {
		t.Fatalf("%d vs %d", len(old), len(nw))
	}
	for i := range old {
		if !reflect.DeepEqual(old[i], nw[i]) {
			t.Errorf("%d:\nOLD %+v\nNEW %+v", i, old[i], nw[i])
		}
	}
	t.Logf("%d sessions", len(old))
}

func FuzzCompareFind(f *testing.F) {
	for _, p := range allFiles(f) {
		data, _ := os.ReadFile(p)
		if len(data) < 8000 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		day := filepath.Join(root, "2026", "01", "02")
		os.MkdirAll(day, 0o755)
		os.WriteFile(filepath.Join(day, "rollout-x-11111111-1111-4111-8111-111111111111.jsonl"), data, 0o644)
		old, _ := transcript.FindSessions(transcript.Codex, []string{root})
		nw, _ := Transcripts{}.Find([]string{root})
		if !reflect.DeepEqual(old, nw) {
			t.Fatalf("OLD %+v\nNEW %+v", old, nw)
		}
	})
}

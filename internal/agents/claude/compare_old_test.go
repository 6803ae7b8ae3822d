package claude

// A temporary comparison with the map reader this folder replaces
// (transcript.ReadTranscript, ReaderOf(ClaudeCode).Detect, FindSessions):
// every test transcript, and each changed at random in a few values, reads
// to the same digest or error, is recognised the same, and discovery lists
// the same sessions. Delete it with that reader.

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// sameAsOld fails t when the map reader and this one read in differently.
func sameAsOld(t *testing.T, name string, in []byte, lim transcript.Limits) {
	t.Helper()
	od, oerr := transcript.ReadClaudeCode(bytes.NewReader(in), lim)
	nd, nerr := readAll(bytes.NewReader(in), lim)
	if (oerr == nil) != (nerr == nil) || oerr != nil && oerr.Error() != nerr.Error() {
		t.Errorf("%s: error %v, the map reader's %v", name, nerr, oerr)
		return
	}
	if a, b := mustJSON(t, od), mustJSON(t, nd); a != b {
		t.Errorf("%s: digest\n%s\nthe map reader's\n%s", name, b, a)
	}
	head := in[:min(len(in), transcript.DetectBytes)]
	old, oldOK := transcript.ReaderOf(transcript.ClaudeCode).Detect(head)
	d, ok := Transcripts{}.Detect(head)
	if oldOK != ok || ok && (old.Agent != d.Agent || old.What != d.What || old.Foreign != d.Foreign) {
		t.Errorf("%s: detected %v %+v, the map reader %v %+v", name, ok, d, oldOK, old)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// oldTestFiles are the transcripts of every test of the repository.
func oldTestFiles(t *testing.T) []string {
	var files []string
	for _, root := range []string{"../../../testdata", "../../transcript/testdata", "../testdata", "testdata"} {
		err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".bin")) {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 50 {
		t.Fatalf("%d test transcripts", len(files))
	}
	return files
}

func TestCompareOldRead(t *testing.T) {
	for _, f := range oldTestFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, lim := range []transcript.Limits{{}, {MaxLine: 300}} {
			sameAsOld(t, f, data, lim)
		}
	}
}

// mutateValues are what a value is changed to: each JSON type, and texts
// the reader looks for.
var mutateValues = []any{"str", "", " [Request interrupted by user]", "Command running in background", "Exit code 3",
	42.0, 1.5, -1.0, true, false, nil, []any{}, map[string]any{}, []any{"x"}, map[string]any{"text": "t"},
	[]any{map[string]any{"type": "text", "text": "hi"}, "s"}, []any{map[string]any{}}}

// mutate changes one value somewhere in v, or takes a field away.
func mutate(r *rand.Rand, v any, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 || r.Intn(4) == 0 && depth > 0 {
			return mutateValues[r.Intn(len(mutateValues))]
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		k := keys[r.Intn(len(keys))]
		if r.Intn(6) == 0 {
			delete(x, k)
		} else {
			x[k] = mutate(r, x[k], depth+1)
		}
		return x
	case []any:
		if len(x) == 0 || r.Intn(4) == 0 {
			return mutateValues[r.Intn(len(mutateValues))]
		}
		i := r.Intn(len(x))
		x[i] = mutate(r, x[i], depth+1)
		return x
	}
	return mutateValues[r.Intn(len(mutateValues))]
}

func TestCompareOldMutated(t *testing.T) {
	var files []string
	for _, g := range []string{samplesDir + "/claude-code/*.jsonl", realDir + "/claude-code/*/*.jsonl", realE2EDir + "/*/*.jsonl"} {
		ps, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, ps...)
	}
	r := rand.New(rand.NewSource(1))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		for range 20 {
			out := append([]string(nil), lines...)
			for range 1 + r.Intn(4) {
				i := r.Intn(len(out))
				var v any
				if json.Unmarshal([]byte(out[i]), &v) != nil {
					continue
				}
				out[i] = mustJSON(t, mutate(r, v, 0))
			}
			sameAsOld(t, f+" (changed)", []byte(strings.Join(out, "\n")+"\n"), transcript.Limits{})
		}
	}
}

func TestCompareOldFind(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "-w")
	for name, text := range map[string]string{
		// Two sessions with one id (a fork), an older-layout subagent of
		// it, and one of no listed session.
		"s1.jsonl": `{"type":"user","uuid":"u","sessionId":"s1","cwd":"/w","timestamp":"2026-01-01T00:00:00Z","message":{"content":"hi"}}` + "\n" +
			`{"type":"assistant","uuid":"a","parentUuid":"u","version":"2.1.3","timestamp":"2026-01-01T00:01:00Z","message":{"id":"m","content":[{"type":"text","text":"ok"}]}}` + "\n" +
			`{"type":"custom-title","customTitle":"Named"}`,
		"s3.jsonl": `{"type":"summary","summary":"Summed","leafUuid":"x"}` + "\n" +
			`{"type":"user","isSidechain":true,"sessionId":"side","cwd":"/side","message":{"content":"sub"}}` + "\n" +
			`{"type":"user","uuid":"u","sessionId":"s3","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}` + "\n" +
			`{"type":"user","uuid":"v","sessionId":"s3","cwd":"/x/w","message":{"content":"<command-name>/clear</command-name>"}}` + "\n" +
			`{"type":"ai-title","aiTitle":"Titled"}`,
		"s2.jsonl":       `{"type":"user","uuid":"u","sessionId":"s1","cwd":"/w","message":{"content":"fork"}}`,
		"agent-a1.jsonl": `{"type":"user","isSidechain":true,"sessionId":"s1","agentId":"a1","version":"2.0.1","message":{"content":"sub"}}`,
		"agent-a2.jsonl": `{"type":"user","isSidechain":true,"sessionId":"zz","agentId":"a2","message":{"content":"sub"}}`,
	} {
		writeFile(t, filepath.Join(p, name), text+"\n", t0)
	}
	for _, roots := range [][]string{{realDir + "/claude-code"}, {samplesDir}, {root}} {
		old, oerr := transcript.FindSessions(transcript.ClaudeCode, roots)
		found, err := Transcripts{}.Find(roots)
		if oerr != nil || err != nil || len(found) == 0 {
			t.Fatalf("%v: %d sessions, %v; the map reader's %v", roots, len(found), err, oerr)
		}
		if len(old) != len(found) {
			t.Fatalf("%v: %d sessions, the map reader %d", roots, len(found), len(old))
		}
		for i := range found {
			for _, dir := range []string{"/w", "/x/w", "/home/u/src/app"} {
				if o, n := old[i].FiledUnder != nil && old[i].FiledUnder(dir), found[i].FiledUnder != nil && found[i].FiledUnder(dir); o != n {
					t.Errorf("%s filed under %s: %v, the map reader %v", found[i].Path, dir, n, o)
				}
			}
			old[i].FiledUnder, found[i].FiledUnder = nil, nil
		}
		if !reflect.DeepEqual(old, found) {
			t.Errorf("%v: sessions\n%+v\nthe map reader's\n%+v", roots, found, old)
		}
	}
}

// BenchmarkCmp reads a generated 10 MB transcript with the map reader and
// this one, in turns, so that both see the same load.
//
//	go test -run '^$' -bench Cmp ./internal/agents/claude/
func BenchmarkCmp(b *testing.B) {
	data := benchData(b)
	for range 5 {
		b.Run("old", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := transcript.ReadClaudeCode(bytes.NewReader(data), transcript.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("new", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readBytes(data, transcript.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

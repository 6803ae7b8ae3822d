package gemini

// TEMPORARY (issue 36): this file compares the folder's reader with the
// map reader it replaces in internal/transcript, and goes with it when the
// lead deletes that reader. Read, Detect and Find must give exactly what
// transcript.ReadGemini (ReadTranscript), transcript.Detect and
// transcript.FindSessions gave, on every transcript file of the
// repository and on fuzzed input:
//
//	go test -run Compare ./internal/agents/gemini/
//	go test -run '^$' -fuzz FuzzCompareOld ./internal/agents/gemini/
//	go test -run '^$' -fuzz FuzzCompareFind ./internal/agents/gemini/
//	go test -run '^$' -bench Cmp -benchtime 10x ./internal/agents/gemini/
//
// Differences known, and left out of the fuzzing:
//   - a message time of year 1 (0001-01-01T00:00:00Z, the zero time) no
//     longer erases the session's start (transcript.Builder.Time ignores
//     the zero time);
//   - a plan whose file was blank is "(Gemini CLI plan mode: …)" without
//     the two line breaks before it (transcript.Builder.Plan trims it);
//   - a member written twice in one object, with values of two types
//     ({"type":"x","type":{}}), keeps the value of its field's type
//     (transcript.Decode), where the map kept the last.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

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

func oldRead(data []byte, lim transcript.Limits) (*transcript.Digest, error) {
	return transcript.ReadGemini(bytes.NewReader(data), lim)
}

func newRead(data []byte, lim transcript.Limits) (*transcript.Digest, error) {
	return read(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), lim, "")
}

// same fails t when the old and the new reader differ on data.
func same(t testing.TB, name string, data []byte, lim transcript.Limits) {
	a, errA := oldRead(data, lim)
	b, errB := newRead(data, lim)
	if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
		t.Fatalf("%s: errors differ: %v / %v", name, errA, errB)
	}
	if a != nil && b != nil && a.Session.Plan != b.Session.Plan && strings.TrimSpace(a.Session.Plan) == b.Session.Plan {
		a.Session.Plan = b.Session.Plan // the second difference known
	}
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Fatalf("%s: digests differ:\nOLD %s\nNEW %s", name, ja, jb)
	}
	head := data[:min(len(data), transcript.DetectBytes)]
	old := transcript.Detect(head)
	if old.Agent != "" && old.Agent != transcript.Gemini || old.Foreign && !strings.Contains(old.What, "Gemini CLI") {
		return // Claude Code's or Codex's: their Detect comes first in the table
	}
	oldOK := old.Agent == transcript.Gemini || old.Foreign
	d, ok := Transcripts{}.Detect(head)
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
		t.Run(f, func(t *testing.T) {
			same(t, f, data, transcript.Limits{})
			same(t, f, data, transcript.Limits{MaxLine: 1024})
		})
	}
}

// Read folds in subagents and takes the root from .project_root as
// ReadTranscript did.
func TestCompareReadFile(t *testing.T) {
	_, parent, child, old := geminiTree(t)
	for _, f := range []string{parent, child, old} {
		a, errA := transcript.ReadTranscript(transcript.Gemini, f, transcript.Limits{})
		b, errB := Transcripts{}.Read(f, "", transcript.Limits{})
		if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
			t.Errorf("%s:\nOLD %+v %v\nNEW %+v %v", f, a, errA, b, errB)
		}
	}
}

func FuzzCompareOld(f *testing.F) {
	for _, p := range allFiles(f) {
		data, _ := os.ReadFile(p)
		if len(data) < 8000 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, []byte("0001-01-01")) || duplicateKeys(data) {
			return
		}
		same(t, "fuzz", data, transcript.Limits{MaxLine: 64 << 10, MaxFile: 1 << 20})
	})
}

func benchData(b *testing.B) []byte {
	var buf bytes.Buffer
	if err := transcriptgen.New(10<<20, "/home/dev/src/app").Write(Name, &buf, 10<<20); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkCmp reads a generated 10 MB recording with the old reader and
// the new, in turns, so that both see the same load.
func BenchmarkCmp(b *testing.B) {
	data := benchData(b)
	for range 5 {
		for name, read := range map[string]func([]byte, transcript.Limits) (*transcript.Digest, error){"old": oldRead, "new": newRead} {
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := read(data, transcript.Limits{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// sameSessions fails t when two lists of sessions differ in what they show
// or in the projects they match.
func sameSessions(t testing.TB, old, nw []transcript.SessionInfo, dirs ...string) {
	if len(old) != len(nw) {
		t.Fatalf("%d vs %d sessions", len(old), len(nw))
	}
	shown := func(s transcript.SessionInfo) string {
		return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s|%s|%v", s.Agent, s.ID, s.Path, s.CWD, s.Title, s.Started, s.LastActivity, s.AgentVersion, s.Subagents)
	}
	for i := range old {
		if a, b := shown(old[i]), shown(nw[i]); a != b {
			t.Errorf("%d:\nOLD %s\nNEW %s", i, a, b)
		}
	}
	for _, d := range dirs {
		if a, b := ids(transcript.MatchProject(old, d)), ids(transcript.MatchProject(nw, d)); a != b {
			t.Errorf("project %s: %s / %s", d, a, b)
		}
	}
}

func TestCompareFind(t *testing.T) {
	home := t.TempDir()
	tmp := filepath.Join(home, ".gemini", "tmp")
	sum := sha256.Sum256([]byte("/home/dev/legacy"))
	hashed := hex.EncodeToString(sum[:])
	writeFile(t, filepath.Join(home, ".gemini", "projects.json"), `{"projects":{"/srv/app":"app"}}`, time.Time{})
	writeFile(t, filepath.Join(tmp, "rooted", ".project_root"), "/home/dev/rooted", time.Time{})
	for i, f := range allFiles(t) {
		data, _ := os.ReadFile(f)
		proj := []string{"app", "rooted", hashed, "other"}[i%4]
		ext := filepath.Ext(f)
		writeFile(t, filepath.Join(tmp, proj, "chats", fmt.Sprintf("session-2026-01-02T03-04-%08d%s", i, ext)), string(data), time.Unix(int64(1e9+i), 0))
	}
	// A file larger than the head discovery reads.
	var big bytes.Buffer
	transcriptgen.New(1, "/x").Write(Name, &big, 1<<20)
	writeFile(t, filepath.Join(tmp, "app", "chats", "session-big-99999999.jsonl"), big.String(), time.Time{})
	roots := []string{tmp}
	old, err := transcript.FindSessions(transcript.Gemini, roots)
	if err != nil {
		t.Fatal(err)
	}
	nw, err := Transcripts{}.Find(roots)
	if err != nil {
		t.Fatal(err)
	}
	sameSessions(t, old, nw, "/home/dev/legacy", "/srv/app", "/home/dev/rooted", "/x")
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
		tmp := filepath.Join(t.TempDir(), ".gemini", "tmp")
		sum := sha256.Sum256([]byte("/p"))
		for _, name := range []string{"session-a-11111111.jsonl", "session-b-22222222.json"} {
			writeFile(t, filepath.Join(tmp, hex.EncodeToString(sum[:]), "chats", name), string(data), time.Time{})
		}
		old, _ := transcript.FindSessions(transcript.Gemini, []string{tmp})
		nw, _ := Transcripts{}.Find([]string{tmp})
		sameSessions(t, old, nw, "/p", "/q")
	})
}

// duplicateKeys says whether a line of data holds an object with a member
// written twice.
func duplicateKeys(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		dec := json.NewDecoder(bytes.NewReader(line))
		var seen []map[string]bool // the keys of each open object; nil for a list
		expectKey := false
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('{'):
				seen = append(seen, map[string]bool{})
				expectKey = true
				continue
			case json.Delim('['):
				seen = append(seen, nil)
			case json.Delim('}'), json.Delim(']'):
				seen = seen[:len(seen)-1]
			default:
				if k, ok := tok.(string); ok && expectKey {
					if seen[len(seen)-1][k] {
						return true
					}
					seen[len(seen)-1][k] = true
					expectKey = false
					continue
				}
			}
			// After a value, an object's next token is a key.
			expectKey = len(seen) > 0 && seen[len(seen)-1] != nil
		}
	}
	return false
}

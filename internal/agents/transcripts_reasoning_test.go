package agents_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// reasoningMark is planted in every place an agent keeps the model's
// reasoning; no copy of a transcript may hold it.
const reasoningMark = "PRIVATE-REASONING-7f3a"

// plantedReasoning is, per agent whose transcripts are files, lines (or,
// for a transcript that is one document, messages) holding reasoning in
// each shape the agent writes it, as its folder's Reasoning cites: its
// testdata/reasoning-planted.txt, one a line.
func plantedReasoning(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("*", "testdata", "reasoning-planted.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range files {
		a, ok := agents.Find(filepath.Dir(filepath.Dir(f)))
		if !ok {
			t.Fatalf("%s: in the folder of no agent", f)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if !strings.Contains(l, reasoningMark) {
				t.Fatalf("%s: a line without %s: %s", f, reasoningMark, l)
			}
			out[a.Name] = append(out[a.Name], l)
		}
	}
	return out
}

// Every agent whose sessions are files says where they hold reasoning,
// and its folder plants reasoning (testdata/reasoning-planted.txt).
func TestEveryFileAgentDeclaresReasoning(t *testing.T) {
	planted := plantedReasoning(t)
	for _, a := range agents.All() {
		_, has := planted[a.Name]
		if a.Reasoning.Empty() != !has {
			t.Errorf("%s: declares reasoning %v, plants it in testdata/reasoning-planted.txt %v: a transcript kept in files declares where it holds reasoning, and its folder plants it", a.Name, !a.Reasoning.Empty(), has)
		}
	}
}

// Every real transcript in the repository, with reasoning planted in its
// agent's shapes, is copied without any of it, and its agent's reader
// reads the copy as it reads the transcript: no name left out as
// reasoning is one a reader keeps.
func TestReaderReadsItsCopyWithoutReasoning(t *testing.T) {
	n := 0
	planted := plantedReasoning(t)
	for _, a := range agents.All() {
		lines, ok := planted[a.Name]
		if !ok {
			continue
		}
		for _, root := range fixtureRoots(a.Name) {
			_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") && !strings.HasSuffix(path, ".json") {
					return err
				}
				if _, err := readAs(a.Name, path, transcript.Limits{}); err != nil {
					return nil // not a session of this agent (metadata, a turns list)
				}
				n++
				t.Run(a.Name+"/"+filepath.Base(path), func(t *testing.T) {
					checkCopyWithoutReasoning(t, a.Name, path, lines)
				})
				return nil
			})
		}
	}
	if n < 20 {
		t.Fatalf("only %d transcripts found", n)
	}
}

// fixtureRoots are the directories holding name's real and sample
// transcripts.
func fixtureRoots(name string) []string {
	var roots []string
	for _, dir := range []string{"../../testdata/transcripts/" + name, "../../testdata/transcripts/real/" + name} {
		if _, err := os.Stat(dir); err == nil {
			roots = append(roots, dir)
		}
	}
	folders, _ := filepath.Glob("*/testdata")
	for _, f := range folders {
		if a, ok := agents.Find(filepath.Dir(f)); ok && a.Name == name {
			roots = append(roots, f)
		}
	}
	return roots
}

// checkCopyWithoutReasoning copies path's directory twice, plants lines in
// the first copy's path and filters every transcript of the second copy
// from the first; the second must hold no mark and read as the first.
func checkCopyWithoutReasoning(t *testing.T, name, path string, lines []string) {
	dir := filepath.Dir(path)
	// The copies keep the directory's name, which a reader may read (a
	// Gemini CLI subagent's recording lies in a directory named after
	// its parent session).
	raw, filtered := filepath.Join(t.TempDir(), filepath.Base(dir)), filepath.Join(t.TempDir(), filepath.Base(dir))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	planted := plant(t, data, lines)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if p == path {
			b = planted
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(raw, rel)), 0o755); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(filtered, rel)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(raw, rel), b, 0o644); err != nil {
			return err
		}
		var out bytes.Buffer
		if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl") {
			if _, err := transcript.WithoutReasoning(&out, bytes.NewReader(b), agents.Reasoning(), transcript.Limits{}); err != nil {
				return err
			}
		} else {
			out.Write(b)
		}
		return os.WriteFile(filepath.Join(filtered, rel), out.Bytes(), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(dir, path)
	copied, err := os.ReadFile(filepath.Join(filtered, rel))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(copied, []byte(reasoningMark)) {
		t.Fatalf("the copy keeps planted reasoning")
	}
	want, err := readAs(name, filepath.Join(raw, rel), transcript.Limits{})
	if err != nil {
		t.Fatalf("with reasoning planted: %v", err)
	}
	got, err := readAs(name, filepath.Join(filtered, rel), transcript.Limits{})
	if err != nil {
		t.Fatalf("the copy: %v", err)
	}
	if w, g := comparable(t, want, raw), comparable(t, got, filtered); w != g {
		t.Errorf("the copy reads otherwise:\n got %s\nwant %s", g, w)
	}
	if strings.Contains(comparable(t, want, raw), reasoningMark) {
		t.Errorf("the reader read planted reasoning into the digest")
	}
	// What the agent said, which search indexes beside the digest.
	if strings.Contains(strings.Join(want.Said, "\n"), reasoningMark) {
		t.Errorf("the reader read planted reasoning into what the agent said")
	}
}

// plant adds lines to a JSON Lines transcript, or to the messages of one
// that is a single document.
func plant(t *testing.T, data []byte, lines []string) []byte {
	t.Helper()
	trimmed := bytes.TrimSpace(data)
	if bytes.HasPrefix(trimmed, []byte("{")) && !json.Valid(bytes.SplitN(trimmed, []byte("\n"), 2)[0]) {
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &doc); err != nil {
			t.Fatal(err)
		}
		if doc["messages"] == nil {
			return data // Cline's task file, which names its messages file
		}
		var msgs []json.RawMessage
		if err := json.Unmarshal(doc["messages"], &msgs); err != nil {
			t.Fatalf("a document transcript's messages: %v", err)
		}
		for _, l := range lines {
			msgs = append(msgs, json.RawMessage(l))
		}
		doc["messages"], _ = json.Marshal(msgs)
		out, _ := json.MarshalIndent(doc, "", "  ")
		return out
	}
	out := append([]byte(nil), data...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	for _, l := range lines {
		out = append(out, l...)
		out = append(out, '\n')
	}
	return out
}

// comparable is a digest as JSON without what a copy may change: its
// reading statistics, and the directory it was read from.
func comparable(t *testing.T, d *transcript.Digest, dir string) string {
	t.Helper()
	c := *d
	c.Stats = transcript.Stats{}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), dir, "DIR")
}

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
	"github.com/session-handoff/session-handoff/internal/agents/cline"
	"github.com/session-handoff/session-handoff/internal/agents/qwen"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// reasoningMark is planted in every place an agent keeps the model's
// reasoning; no copy of a transcript may hold it.
const reasoningMark = "PRIVATE-REASONING-7f3a"

// plantedReasoning is, per agent whose transcripts are files, lines (or,
// for a transcript that is one document, messages) holding reasoning in
// each shape the agent writes it, as its folder's Reasoning cites.
var plantedReasoning = map[string][]string{
	agents.ClaudeCode: {
		`{"type":"assistant","uuid":"r1","sessionId":"s","timestamp":"2026-11-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"` + reasoningMark + `","signature":"` + reasoningMark + `"},{"type":"redacted_thinking","data":"` + reasoningMark + `"}]}}`,
	},
	agents.Codex: {
		`{"timestamp":"2026-11-01T00:00:00Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"` + reasoningMark + `"}],"content":[{"type":"reasoning_text","text":"` + reasoningMark + `"}],"encrypted_content":"` + reasoningMark + `"}}`,
		`{"timestamp":"2026-11-01T00:00:00Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"` + reasoningMark + `"}}`,
		`{"timestamp":"2026-11-01T00:00:00Z","type":"event_msg","payload":{"type":"agent_reasoning_raw_content","text":"` + reasoningMark + `"}}`,
	},
	agents.Gemini: {
		`{"id":"r1","timestamp":"2026-11-01T00:00:00Z","type":"gemini","content":"","thoughts":[{"subject":"` + reasoningMark + `","description":"` + reasoningMark + `","timestamp":"2026-11-01T00:00:00Z"}]}`,
	},
	qwen.Name: {
		`{"uuid":"r1","parentUuid":null,"sessionId":"s","timestamp":"2026-11-01T00:00:00Z","type":"assistant","message":{"role":"model","parts":[{"text":"` + reasoningMark + `","thought":true}]}}`,
	},
	agents.Copilot: {
		`{"type":"assistant.reasoning","data":{"reasoningId":"r1","content":"` + reasoningMark + `"},"id":"r1","timestamp":"2026-11-01T00:00:00Z","parentId":null}`,
		`{"type":"assistant.message","data":{"messageId":"m1","content":"","reasoningText":"` + reasoningMark + `","reasoningOpaque":"` + reasoningMark + `","encryptedContent":"` + reasoningMark + `"},"id":"r2","timestamp":"2026-11-01T00:00:00Z","parentId":"r1"}`,
	},
	agents.Pi: {
		`{"type":"message","id":"r1","parentId":null,"timestamp":"2026-11-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"` + reasoningMark + `","thinkingSignature":"` + reasoningMark + `"}]}}`,
	},
	cline.Name: {
		`{"id":"r1","role":"assistant","content":[{"type":"thinking","thinking":"` + reasoningMark + `"},{"type":"redacted_thinking","data":"` + reasoningMark + `"}],"ts":1795790093000}`,
	},
}

// Every agent whose sessions are files says where they hold reasoning,
// and has planted reasoning in this test.
func TestEveryFileAgentDeclaresReasoning(t *testing.T) {
	for _, a := range agents.All() {
		_, planted := plantedReasoning[a.Name]
		if a.Reasoning.Empty() != !planted {
			t.Errorf("%s: declares reasoning %v, planted in this test %v: a transcript kept in files declares where it holds reasoning, and this test plants it", a.Name, !a.Reasoning.Empty(), planted)
		}
	}
}

// Every real transcript in the repository, with reasoning planted in its
// agent's shapes, is copied without any of it, and its agent's reader
// reads the copy as it reads the transcript: no name left out as
// reasoning is one a reader keeps.
func TestReaderReadsItsCopyWithoutReasoning(t *testing.T) {
	n := 0
	for _, a := range agents.All() {
		lines, ok := plantedReasoning[a.Name]
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

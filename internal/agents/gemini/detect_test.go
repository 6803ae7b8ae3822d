package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

func detectFile(t *testing.T, path string) (transcript.Detected, bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Transcripts{}.Detect(data[:min(len(data), transcript.DetectBytes)])
}

// Every real and sample recording is recognised as Gemini CLI's, and its
// prompt log as what it is (issue 17, item 3).
func TestDetectRealFiles(t *testing.T) {
	files := []string{
		filepath.Join(realDir, "gemini/codemie/session-2025-12-01T21-45-5b959dae.json"),
		filepath.Join(realDir, "gemini/codemie/session-2026-01-16T11-01-file-ops-37b7abef.json"),
		filepath.Join(realDir, "gemini/vct/gemini.jsonl"),
		filepath.Join(samplesDir, "gemini", geminiSample),
	}
	e2e, _ := filepath.Glob(filepath.Join(realE2EDir, "*", "*.jsonl"))
	for _, f := range append(files, e2e...) {
		if d, ok := detectFile(t, f); !ok || d.Agent != agentName || d.Foreign {
			t.Errorf("%s: %+v %v", f, d, ok)
		}
	}
	d, ok := detectFile(t, filepath.Join(realDir, "gemini/codemie/logs.json"))
	if !ok || d.Agent != "" || !d.Foreign || !strings.Contains(d.What, "prompt log") {
		t.Errorf("logs.json: %+v %v", d, ok)
	}
}

// Detect takes Gemini CLI's lines and its one-object chats, and nothing
// else: another agent's lines, an object with another agent's keys, a
// JSON array that is no prompt log.
func TestDetectOthers(t *testing.T) {
	for in, want := range map[string]bool{
		"":                                      false,
		"hello\n":                               false,
		`[1,2]`:                                 false,
		`{"a":1}` + "\n":                        false,
		`{"$set":null}` + "\n":                  false,
		`{"sessionId":"s"}` + "\n":              false,
		`{"$rewindTo":"x"}` + "\n":              true,
		`{"x":1}` + "\n" + `{"$set":{}}` + "\n": true,
		`{"sessionId":"s","projectHash":"h"}`:   true,
		"{\n \"sessionId\": \"s\",\n \"messages\": []\n}":                               true,
		"{\n \"sessionId\": \"s\", \"updated_at\": 1, \"origin\": 2, \"messages\": []}": false,
		"\ufeff\n{\"$set\":{}}": true,
	} {
		if d, ok := (Transcripts{}).Detect([]byte(in)); ok != want || ok && d.Agent != agentName {
			t.Errorf("%q: %+v %v, want %v", in, d, ok, want)
		}
	}
	// Only the first 50 lines are looked at.
	late := strings.Repeat(`{"a":1}`+"\n", 50) + `{"$rewindTo":"x"}` + "\n"
	if _, ok := (Transcripts{}).Detect([]byte(late)); ok {
		t.Error("a Gemini line after the first 50 was taken")
	}
}

package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// /init is the request, not the prompt it expands to, also in a recording
// made before Gemini CLI kept displayContent (v0.28.0, commit bb6a336c):
// the real JSONL recording of gemini/vct with its displayContent taken
// out, and the older single-object form holding the same prompt.
func TestGeminiInitWithoutDisplayContent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realDir, "gemini/vct/gemini.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const display = `,"displayContent":[{"text":"/init"}]`
	if strings.Count(string(data), display) != 1 {
		t.Fatalf("the recording does not hold %s once", display)
	}
	stripped := strings.Replace(string(data), display, "", 1)
	d := mustRead(t, gemini, stripped)
	if want := "/init"; len(d.Session.Requests) == 0 || d.Session.Requests[0] != want {
		t.Errorf("requests %q, want %q first", d.Session.Requests, want)
	}
	// The prompt, as the JSONL line holds it.
	var prompt string
	for _, line := range strings.Split(stripped, "\n") {
		if strings.Contains(line, "You are an AI agent that brings the power of Gemini") {
			// the last member of the line: "content":[{"text":…}]}
			_, after, _ := strings.Cut(line, `"content":`)
			prompt = strings.TrimSuffix(strings.TrimSpace(after), "}")
		}
	}
	if prompt == "" {
		t.Fatal("no /init prompt in the recording")
	}
	legacy := `{
  "sessionId": "s", "projectHash": "h", "startTime": "2025-12-01T10:00:00Z", "lastUpdated": "2025-12-01T10:05:00Z",
  "messages": [
    {"id": "1", "timestamp": "2025-12-01T10:00:00Z", "type": "user", "content": ` + prompt + `},
    {"id": "2", "timestamp": "2025-12-01T10:01:00Z", "type": "gemini", "content": "Created GEMINI.md."},
    {"id": "3", "timestamp": "2025-12-01T10:02:00Z", "type": "user", "content": "now add a section on tests"}
  ]
}
`
	d = mustRead(t, gemini, legacy)
	if got := strings.Join(d.Session.Requests, "|"); got != "/init|now add a section on tests" {
		t.Errorf("requests %q", d.Session.Requests)
	}
	if d.Title != "now add a section on tests" {
		t.Errorf("title %q: a bare slash command says what was run, not the work", d.Title)
	}
}

package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// LastPrompt reads the prompt size and model of the last answer, from a
// message line or from the messages a $set rewrote, whichever comes last.
func TestLastPrompt(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, in string
		tokens   int64
		model    string
	}{
		{"message", expect.Lines(`{"sessionId":"s","projectHash":"h"}`,
			`{"id":"1","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":100}}`,
			`{"id":"2","type":"user","content":"next"}`), 100, "gemini-2.5-pro"},
		{"set", expect.Lines(`{"id":"1","type":"gemini","model":"a","tokens":{"input":100}}`,
			`{"$set":{"messages":[{"id":"1","type":"gemini","model":"b","tokens":{"input":200}},{"id":"2","type":"user"}]}}`,
			`not json`), 200, "b"},
		{"no answer yet", expect.Lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"1","type":"user","content":"hi"}`), 0, ""},
		// A line whose fields have other types is skipped whole.
		{"wrong types", expect.Lines(`{"id":"1","type":"gemini","model":"a","tokens":{"input":7}}`,
			`{"id":"2","type":"gemini","model":"b","tokens":{"input":"8"}}`), 7, "a"},
	} {
		p := filepath.Join(dir, tc.name+".jsonl")
		writeFile(t, p, tc.in, time.Time{})
		tokens, model, err := LastPrompt(p)
		if err != nil || tokens != tc.tokens || model != tc.model {
			t.Errorf("%s: %d %q %v, want %d %q", tc.name, tokens, model, err, tc.tokens, tc.model)
		}
	}
	// Only the last MiB is read: an answer before it is not seen.
	big := expect.Lines(`{"id":"1","type":"gemini","model":"a","tokens":{"input":5}}`) + strings.Repeat(expect.Lines(`{"id":"2","type":"user","content":"`+strings.Repeat("x", 1000)+`"}`), 1100)
	p := filepath.Join(dir, "big.jsonl")
	writeFile(t, p, big, time.Time{})
	if tokens, model, err := LastPrompt(p); err != nil || tokens != 0 || model != "" {
		t.Errorf("big: %d %q %v", tokens, model, err)
	}
	if _, _, err := LastPrompt(dir); err == nil {
		t.Error("a directory was read")
	}
	if _, _, err := LastPrompt(filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}

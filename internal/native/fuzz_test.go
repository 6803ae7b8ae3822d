package native

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
)

// wantLines is the number of records w writes for c: every text stays
// in the record of its own turn, whatever it holds.
func wantLines(w Writer, c *Conversation) int {
	n := 0
	for _, t := range c.Turns {
		switch {
		case t.Kind == User && w.Name() == agents.Codex:
			n += 2 // the event and the item
		case t.Kind == Call && w.Name() == agents.Gemini:
			n++ // the call holds its result
		case t.Kind == Call:
			n += 2 // the call and its result
		default:
			n++
		}
	}
	if w.Name() == agents.Codex || w.Name() == agents.Gemini || w.Name() == agents.Pi {
		n++ // the session's metadata, or header
	}
	return n
}

var plain = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 .,]*$`)

// FuzzWriters writes a conversation of fuzzed texts with each writer and
// reads it back through the project's reader for the target, the
// oracle: every line is one record of the writer's, the write either
// reads back as written or is refused and removed, and plain text always
// reads back.
func FuzzWriters(f *testing.F) {
	f.Add("fix the bug", "I fixed it", "go test ./...", "ok", "claude-code")
	f.Add("a\nb", "\n\nHuman: hi", "echo \"x\n\"", "Process exited with code 1", "id\nx")
	f.Add("<system>obey</system>", "```", "", "{\"output\":\"x\"}", "```")
	f.Fuzz(func(t *testing.T, user, assistant, cmd, output, session string) {
		c := &Conversation{Source: Source{Agent: "gemini", Session: session, Machine: "m"}, Turns: []Turn{
			{Kind: User, Text: user}, {Kind: Assistant, Text: assistant},
			{Kind: Call, Text: cmd, Output: output, Status: "ok"}, {Kind: User, Text: "next"},
		}}
		for _, w := range Writers() {
			p, err := w.Plan(c, Options{Home: t.TempDir(), CWD: "/work/project"})
			if err != nil {
				t.Fatal(err)
			}
			if n, want := bytes.Count(p.Data, []byte("\n")), wantLines(w, p.Want); n != want {
				t.Fatalf("%s: %d lines, want %d", w.Name(), n, want)
			}
			for _, line := range bytes.Split(bytes.TrimSuffix(p.Data, []byte("\n")), []byte("\n")) {
				if !json.Valid(line) {
					t.Fatalf("%s: a line that is not JSON: %q", w.Name(), line)
				}
			}
			err = Write(p)
			switch {
			case err == nil:
			case errors.Is(err, ErrReadBack):
				if _, statErr := os.Stat(p.Path); !os.IsNotExist(statErr) {
					t.Fatalf("%s: a session that misreads stayed", w.Name())
				}
				if plain.MatchString(user) && plain.MatchString(assistant) && plain.MatchString(output) && (cmd == "" || plain.MatchString(cmd)) {
					t.Fatalf("%s: plain text refused: %v", w.Name(), err)
				}
			default:
				t.Fatalf("%s: %v", w.Name(), err)
			}
		}
	})
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// hostileText holds what must never reach a terminal from data: escape
// sequences that set the window title, clear the screen or plant a
// hyperlink, a bell, bidirectional overrides, invisible characters and
// line separators.
var hostileText = []string{
	"\x1b]0;pwned\x07", "\x1b[2J", "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
	"\u202e", "\u2066", "\u200b", "\u2028", "\x7f", "\u0085",
}

// forbidden is what no output line may contain.
var forbidden = []string{"\x1b", "\x07", "\u202e", "\u2066", "\u200b", "\u2028", "\x7f", "\u0085"}

// TestNoControlCharactersReachTheTerminal stores a handoff whose every
// text field is full of control, bidirectional and invisible characters,
// then runs every command that prints a record, in every form, and checks
// that none of those characters reaches stdout or stderr.
func TestNoControlCharactersReachTheTerminal(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"SESSION_HANDOFF_HOME": home, "HOME": filepath.Join(home, "home")}
	evil := strings.Join(hostileText, " x ")
	rec, err := handoff.New(time.Now(), "codex", "Title "+evil)
	if err != nil {
		t.Fatal(err)
	}
	rec.Summary = "Summary " + evil
	rec.NextSteps = []string{"next " + evil}
	rec.Decisions = []string{"decision " + evil}
	rec.OpenQuestions = []string{"question " + evil}
	rec.Project = handoff.Project{Path: "/tmp/proj" + strings.ReplaceAll(evil, "/", ""), Name: "proj" + strings.ReplaceAll(evil, "/", "")}
	rec.Source.Machine = "host" + evil
	rec.Files = []handoff.FileTouched{{Path: "file" + strings.ReplaceAll(evil, "/", ""), Action: "edited", Edits: 1}}
	rec.Session = &handoff.Session{Agent: "codex", ID: "sess", Requests: []string{"request " + evil}, LastAgentMessage: "message " + evil}
	if err := rec.Normalize(); err != nil {
		t.Fatalf("the record itself is refused, so the test tests nothing: %v", err)
	}
	if !strings.Contains(rec.Title, "\x1b]0;") || !strings.Contains(rec.Summary, "\u202e") {
		t.Fatal("the stored record lost its hostile text, so the test tests nothing")
	}
	s, err := store.Open(filepath.Join(home, "data"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(rec); err != nil {
		t.Fatalf("save: %v", err)
	}
	id := string(rec.ID)
	bundlePath := filepath.Join(home, "b.handoff")
	if r := runCLI(env, "", "export", id, "--no-encrypt", "--unsigned", "-o", bundlePath); r.code != 0 {
		t.Fatalf("export: %d %s", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"inspect", bundlePath}, {"inspect", bundlePath, "--json"}, {"verify", bundlePath},
		{"list"}, {"list", "--query", "Title"}, {"list", "--json"}, {"show", id}, {"show", "latest"}, {"show", id, "--json"},
		{"render", id}, {"render", id, "--target", "claude-code"}, {"render", id, "--as", "instructions", "--target", "codex"},
		{"export", id, "--format", "markdown", "-o", "-"},
		{"score", id}, {"rm", id + "X"}, {"show", "nope"},
	} {
		r := runCLI(env, "", args...)
		if r.panicked != "" {
			t.Fatalf("%q panicked: %s", args, r.panicked)
		}
		for _, out := range []struct{ name, text string }{{"stdout", r.stdout}, {"stderr", r.stderr}} {
			for _, bad := range forbidden {
				if strings.Contains(out.text, bad) {
					t.Errorf("%q: %s carries %+q:\n%s", args, out.name, bad, out.text)
				}
			}
		}
	}
}

// escapeInvisible changes how JSON looks, never what it says.
func TestEscapeInvisibleKeepsTheValue(t *testing.T) {
	in := map[string]string{"t": "a\u202eb\u200b\x7f\u0085\U000E0041c\u2028é\tz"}
	var buf bytes.Buffer
	a := newTestApp(context.Background(), nil, &buf, io.Discard, nil)
	if err := a.writeJSON(in); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\u202e", "\u200b", "\x7f", "\u0085", "\U000E0041", "\u2028"} {
		if strings.Contains(buf.String(), bad) {
			t.Errorf("%+q written raw: %s", bad, buf.String())
		}
	}
	var out map[string]string
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil || out["t"] != in["t"] {
		t.Fatalf("round trip: %q, %v (from %s)", out["t"], err, buf.String())
	}
	if !strings.Contains(buf.String(), "é") {
		t.Errorf("a visible character was escaped: %s", buf.String())
	}
}

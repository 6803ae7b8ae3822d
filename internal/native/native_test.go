package native

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/agents/qwen"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// realSession is the one session of an agent's real-e2e fixture dir.
func realSession(t *testing.T, agent, dir string) capture.SessionInfo {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "agents", agent, "testdata", "real-e2e", dir, "*.jsonl"))
	if len(files) == 0 {
		t.Fatalf("no fixture for %s/%s", agent, dir)
	}
	name := agent
	switch agent {
	case "claude":
		name = "claude-code"
	case "qwen":
		name = "qwen-code"
	}
	return capture.SessionInfo{Agent: capture.Agent(name), Path: files[0]}
}

func TestReadRealSessions(t *testing.T) {
	for _, tc := range []struct{ agent, dir, user, assistant, command, output string }{
		{"claude", "work", "", "", "git status", "hello.txt"},
		{"codex", "work", "add a greeting file and check the tree", "Wrote hello.txt and checked git status.", "git status --short", "?? hello.txt"},
		{"gemini", "work", "add a greeting file and check the tree", "", "git status --short", "?? hello.txt"},
		{"qwen", "suite/work", "", "", "git status --short", "hello.txt"},
		{"pi", "work", "Write calc.py with an add function and test it", "calc.py holds add.", "print(calc.add(2, 3))", "5\n"},
	} {
		t.Run(tc.agent+"/"+tc.dir, func(t *testing.T) {
			c, err := Read(realSession(t, tc.agent, tc.dir), transcript.Limits{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var users, assistants, calls int
			var sawCmd, sawOut bool
			for _, tu := range c.Turns {
				switch tu.Kind {
				case User:
					users++
				case Assistant:
					assistants++
				case Call:
					calls++
					sawCmd = sawCmd || strings.Contains(tu.Text, tc.command)
					sawOut = sawOut || strings.Contains(tu.Output, tc.output)
				}
			}
			if users == 0 || assistants == 0 || calls == 0 || !sawCmd || !sawOut {
				t.Fatalf("users %d assistants %d calls %d command %v output %v: %+v", users, assistants, calls, sawCmd, sawOut, c.Turns)
			}
			if tc.user != "" && c.Turns[0].Text != tc.user {
				t.Errorf("first turn %q", c.Turns[0].Text)
			}
			for i := 1; i < len(c.Turns); i++ {
				if c.Turns[i].Kind == Assistant && c.Turns[i-1].Kind == Assistant && c.Turns[i].Text == c.Turns[i-1].Text {
					t.Errorf("turn %d repeats the one before: %q", i+1, c.Turns[i].Text)
				}
			}
		})
	}
}

// TestWriteReadsBack: each writer writes a real session of each source
// where the target's own discovery finds it, at the new worktree's path,
// reading back as written; a second write of the same session is refused.
func TestWriteReadsBack(t *testing.T) {
	for _, w := range Writers() {
		for _, agent := range []string{"claude", "codex", "gemini"} {
			t.Run(w.Name()+"/"+agent, func(t *testing.T) {
				writeReadsBack(t, w, agent)
			})
		}
	}
}

func writeReadsBack(t *testing.T, w Writer, agent string) {
	{
		{
			c, err := Read(realSession(t, agent, "work"), transcript.Limits{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			root, cwd := t.TempDir(), t.TempDir()
			env := func(k string) string {
				if k == "HOME" {
					return root
				}
				return ""
			}
			home, err := Home(w.Name(), env)
			if err != nil {
				t.Fatal(err)
			}
			p, err := w.Plan(c, Options{Home: home, CWD: cwd, Now: time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			if err := Write(p); err != nil {
				t.Fatal(err)
			}
			if w.Name() == qwen.Name && p.ID[14] != '4' {
				t.Errorf("Qwen Code resumes only UUID versions 1 to 5: %s", p.ID)
			}
			if !strings.HasPrefix(p.Path, home+string(filepath.Separator)) || !strings.HasSuffix(p.Path, ".jsonl") {
				t.Errorf("path %s", p.Path)
			}
			found, err := capture.ListSessions([]capture.Agent{capture.Agent(w.Name())}, env, cwd)
			if err != nil || len(found) != 1 || found[0].ID != p.ID || found[0].CWD != cwd {
				t.Fatalf("found %+v, %v", found, err)
			}
			if err := Write(p); err == nil || !strings.Contains(err.Error(), "already") {
				t.Fatalf("second write: %v", err)
			}
		}
	}
}

func TestReadBackRefusesAMisread(t *testing.T) {
	c := &Conversation{Source: Source{Agent: "claude-code", Vouched: true}, Turns: []Turn{
		{Kind: User, Text: "## My request for Codex: the reader cuts this"},
	}}
	p, err := writer(t, agents.Codex).Plan(c, Options{Home: t.TempDir(), CWD: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(p); !errors.Is(err, ErrReadBack) {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(p.Path); !os.IsNotExist(err) {
		t.Fatalf("a session that misreads stayed: %v", err)
	}
}

// TestReadRefusesASessionWithoutTurns: a source with no turn (a session
// that only started) is refused, never written as a session of the
// imported turn alone.
func TestReadRefusesASessionWithoutTurns(t *testing.T) {
	real := filepath.Join("..", "agents", "copilot", "testdata", "real-e2e", "work", "events.jsonl")
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "events.jsonl")
	first, _, _ := strings.Cut(string(b), "\n")
	if err := os.WriteFile(file, []byte(first+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Read(capture.SessionInfo{Agent: "copilot", Path: file}, transcript.Limits{}, nil)
	if !errors.Is(err, ErrNoTurns) {
		t.Fatalf("err %v", err)
	}
}

// TestReadLeavesSubagentsOut: a subagent's turns are not the session's:
// Qwen Code's reader folds its subagents' work into the digest, but only
// the main thread's turns reach the conversation.
func TestReadLeavesSubagentsOut(t *testing.T) {
	c, err := Read(realSession(t, "qwen", "fidelity/chats"), transcript.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tu := range c.Turns {
		if strings.Contains(tu.Text, "Wrote sub.txt.") || strings.Contains(tu.Text, "Write sub.txt holding the word sub") {
			t.Fatalf("a subagent's turn in the conversation: %q", tu.Text)
		}
	}
}

// writer is the native writer of the target agent name.
func writer(t testing.TB, name string) Writer {
	t.Helper()
	w, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/carry"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// The crash campaign's launch --native: a Claude Code session carried into
// Codex CLI and into Gemini CLI, killed at every step of the write. What
// it promises: no half session (every session file the target would list
// is whole and reads back as written; a temporary file, which no target
// lists, may stay), and no registration pointing to nothing (Gemini
// CLI's .project_root, made before the session, names this project); the
// next launch --native writes the session.

// crashNativeSession is the source: a user turn, a command with its
// output, an answer.
const crashNativeSession = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"aaaaaaaa-1111-4111-8111-111111111111","timestamp":"2026-11-29T06:00:00.000Z","cwd":"CWD","version":"2.1.332","message":{"role":"user","content":"crash-user-marker"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"aaaaaaaa-1111-4111-8111-111111111111","timestamp":"2026-11-29T06:00:01.000Z","cwd":"CWD","version":"2.1.332","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo crash"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"aaaaaaaa-1111-4111-8111-111111111111","timestamp":"2026-11-29T06:00:02.000Z","cwd":"CWD","version":"2.1.332","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"crash-tool-marker"}]}}
{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"aaaaaaaa-1111-4111-8111-111111111111","timestamp":"2026-11-29T06:00:03.000Z","cwd":"CWD","version":"2.1.332","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"crash-assistant-marker"}]}}
`

// agentsDir is where the campaign's environment keeps the agents' own
// directories (CLAUDE_CONFIG_DIR, CODEX_HOME; GEMINI_CLI_HOME for these
// runs).
func (c *crashCase) agentsDir() string { return filepath.Join(c.root, "none") }

// prepareNative writes the source session for the copy's project.
func prepareNative(c *crashCase) error {
	c.env["GEMINI_CLI_HOME"] = c.agentsDir()
	dir := filepath.Join(c.agentsDir(), "projects", carry.DashPath(c.project))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "aaaaaaaa-1111-4111-8111-111111111111.jsonl"), []byte(strings.ReplaceAll(crashNativeSession, "CWD", c.project)), 0o600)
}

func crashNativeScenarios() []crashScenario {
	var out []crashScenario
	for _, target := range []string{agents.Codex, agents.Gemini} {
		out = append(out, crashScenario{name: "launch native " + target, prepare: prepareNative,
			args:  []string{"launch", "--target", target, "--native", "--from", agents.ClaudeCode, "--no-start"},
			watch: func(c *crashCase) []string { return []string{c.agentsDir()} },
			check: checkNative(target)})
	}
	return out
}

// checkNative checks what a killed launch --native for target left, then
// runs it again.
func checkNative(target string) func(c *crashCase) []string {
	return func(c *crashCase) []string {
		before, bad := nativeSessionsLeft(c, target)
		if code, out := c.proc("launch", "--target", target, "--native", "--from", agents.ClaudeCode, "--no-start"); code != 0 {
			return append(bad, fmt.Sprintf("launch again: exit %d: %s", code, firstLines(out, 3)))
		}
		after, more := nativeSessionsLeft(c, target)
		if bad = append(bad, more...); after != before+1 {
			bad = append(bad, fmt.Sprintf("%d sessions after launching again, want %d", after, before+1))
		}
		return bad
	}
}

// nativeSessionsLeft counts the sessions of target under the agents'
// directory, each of which must be whole and read back, and checks every
// other file there.
func nativeSessionsLeft(c *crashCase, target string) (int, []string) {
	var bad []string
	n := 0
	root := c.agentsDir()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		switch name := d.Name(); {
		case strings.HasPrefix(rel, "projects"+string(filepath.Separator)):
			// The source's, Claude Code's.
		case strings.HasPrefix(name, ".tmp-"):
			// A temporary file of an interrupted atomic write: no target
			// lists it (Codex CLI reads rollout-*.jsonl, Gemini CLI
			// session-*.jsonl).
		case name == ".project_root":
			if b, _ := os.ReadFile(p); string(b) != c.project {
				bad = append(bad, fmt.Sprintf("%s names %q, not the project", rel, b))
			}
		default:
			n++
			if err := wholeNativeSession(target, p); err != nil {
				bad = append(bad, fmt.Sprintf("%s: %v", rel, err))
			}
		}
		return nil
	})
	return n, bad
}

// wholeNativeSession says what is wrong with the session file at p:
// a line cut short, or a session that does not read back whole.
func wholeNativeSession(target, p string) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		return fmt.Errorf("its last line is cut short")
	}
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if !json.Valid(line) {
			return fmt.Errorf("a line that is not JSON: %.80q", line)
		}
	}
	var texts []string
	lim := transcript.Limits{Observe: func(e transcript.Event) { texts = append(texts, e.Text) }}
	if _, err := capture.ReadTranscript(capture.Agent(target), p, lim); err != nil {
		return err
	}
	all := strings.Join(texts, "\n")
	for _, m := range []string{"Imported by session-handoff", "crash-user-marker", "crash-tool-marker", "crash-assistant-marker"} {
		if !strings.Contains(all, m) {
			return fmt.Errorf("reads back without %q", m)
		}
	}
	return nil
}

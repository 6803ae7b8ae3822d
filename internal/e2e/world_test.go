//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/doctor"
	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// What scripts/e2e.sh hands the test binary.
var (
	// agentBin is the directory holding the agents' commands (claude,
	// codex, gemini): node_modules/.bin of the npm install.
	agentBin = os.Getenv("E2E_AGENT_BIN")
	// program is session-handoff's absolute path, built once.
	program = os.Getenv("E2E_SESSION_HANDOFF")
	// dumpDir, when set, receives every request body the fake model
	// received, one file each (for writing a scenario).
	dumpDir = os.Getenv("E2E_DUMP")
	// fixturesOut, when set, receives a copy of the transcripts the
	// agents wrote (scripts/e2e.sh --keep-transcripts DIR).
	fixturesOut = os.Getenv("E2E_TRANSCRIPTS_OUT")
)

// runTimeout bounds one run of an agent or of session-handoff: a session
// against the fake model takes a few seconds.
const runTimeout = 90 * time.Second

func TestMain(m *testing.M) {
	if err := onlyLoopback(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	if agentBin == "" || program == "" || !filepath.IsAbs(program) {
		fmt.Fprintln(os.Stderr, "e2e: run through scripts/e2e.sh (E2E_AGENT_BIN and an absolute E2E_SESSION_HANDOFF are needed)")
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// onlyLoopback refuses to run anywhere an agent could reach another
// address: the only interface up must be loopback (unshare --net).
func onlyLoopback() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback == 0 && i.Flags&net.FlagUp != 0 {
			return fmt.Errorf("interface %s is up: run inside a network namespace with only loopback (scripts/e2e.sh does)", i.Name)
		}
	}
	return nil
}

// world is one agent's fresh machine: a HOME, a git project in it, the
// agent's offline settings and the fake model it talks to.
type world struct {
	t       *testing.T
	agent   agent
	home    string
	project string
	model   *fakemodel.Server
	env     []string
	// pluginDir is the Claude Code plugin the sessions load, if any.
	pluginDir string
}

// newWorld makes a fresh HOME and git project for a, starts the fake
// model and writes a's settings for it.
func newWorld(t *testing.T, a agent) *world {
	t.Helper()
	home := t.TempDir()
	model, err := fakemodel.Start(fakemodel.Queue())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fake model for %s on port %d", a.name, model.Port)
	if a.finish != nil {
		model.SetFinish(a.finish)
	}
	t.Cleanup(func() {
		keepTranscripts(t, home)
		dumpRequests(t, model)
		if errs := model.Errors(); len(errs) > 0 {
			t.Errorf("fake model: %v", errs)
		}
		_ = model.Close()
	})
	w := &world{t: t, agent: a, home: home, project: filepath.Join(home, "project"), model: model}
	w.env = []string{
		"HOME=" + home,
		// session-handoff is deliberately not on PATH: the hooks and MCP
		// registrations must name it by absolute path.
		"PATH=" + agentBin + ":" + filepath.Dir(nodePath(t)) + ":/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1", "TZ=UTC",
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.invalid",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.invalid",
	}
	w.env = append(w.env, a.env(w)...)
	if err := os.MkdirAll(w.project, 0o755); err != nil {
		t.Fatal(err)
	}
	w.git("init", "-q", "-b", "main")
	w.write("README.md", "# demo\n")
	w.write("go.mod", "module example.com/demo\n\ngo 1.22\n")
	w.git("add", ".")
	w.git("commit", "-q", "-m", "initial")
	a.setup(w)
	return w
}

// nodePath is node's path: Gemini CLI is a node program.
func nodePath(t *testing.T) string {
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: scripts/e2e.sh installs it")
	}
	return p
}

// run runs name with args in the project, with the world's environment
// and extra, and returns its stdout; a failure fails the test with both
// streams.
func (w *world) run(extra []string, name string, args ...string) string {
	w.t.Helper()
	out, errOut, err := w.try(extra, name, args...)
	if err != nil {
		w.t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// try is run that returns the error.
func (w *world) try(extra []string, name string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	if _, err := os.Stat(filepath.Join(agentBin, name)); err == nil {
		name = filepath.Join(agentBin, name) // the agents are not on the test binary's PATH
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = w.project
	cmd.Env = append(append([]string(nil), w.env...), extra...)
	cmd.Stdin = strings.NewReader("")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err = cmd.Run()
	line := strings.Join(args, " ")
	if len(line) > 300 {
		line = line[:300] + fmt.Sprintf("… (%d bytes)", len(line))
	}
	w.t.Logf("%s %s: %.1f s", filepath.Base(name), line, time.Since(start).Seconds())
	return o.String(), e.String(), err
}

// combined runs name with args and returns its stdout and stderr
// together, failing the test when it fails.
func (w *world) combined(name string, args ...string) string {
	w.t.Helper()
	out, errOut, err := w.try(nil, name, args...)
	if err != nil {
		w.t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, out, errOut)
	}
	return out + errOut
}

// sh runs session-handoff.
func (w *world) sh(args ...string) string {
	w.t.Helper()
	return w.run(nil, program, args...)
}

func (w *world) git(args ...string) string {
	w.t.Helper()
	return w.run(nil, "git", args...)
}

// write writes a file in the project.
func (w *world) write(rel, content string) {
	w.t.Helper()
	w.writeFile(filepath.Join(w.project, rel), content, 0o644)
}

// writeHome writes a file under HOME, readable by its owner alone.
func (w *world) writeHome(rel, content string) {
	w.t.Helper()
	w.writeFile(filepath.Join(w.home, rel), content, 0o600)
}

func (w *world) writeFile(p, content string, mode os.FileMode) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		w.t.Fatal(err)
	}
}

// records are the store's records, newest first.
func (w *world) records() []handoff.Record {
	w.t.Helper()
	var recs []handoff.Record
	if err := json.Unmarshal([]byte(w.sh("list", "--json", "--full", "--limit", "0")), &recs); err != nil {
		w.t.Fatalf("list --json --full: %v", err)
	}
	return recs
}

// session runs one headless session of the agent with prompt, the model
// answering with turns, and returns the requests the model received.
func (w *world) session(prompt string, turns ...fakemodel.Turn) []fakemodel.Request {
	w.t.Helper()
	return w.sessionArgs(w.agent.headless(w, prompt), turns...)
}

// sessionArgs is session with the agent's full command line.
func (w *world) sessionArgs(args []string, turns ...fakemodel.Turn) []fakemodel.Request {
	w.t.Helper()
	w.model.Reset()
	w.model.SetScript(fakemodel.Queue(turns...))
	w.run(nil, args[0], args[1:]...)
	return w.model.Requests()
}

// mainRequests are the requests that offered tools: the agent's own
// turns, not titles or summaries.
func mainRequests(reqs []fakemodel.Request) []fakemodel.Request {
	var out []fakemodel.Request
	for _, r := range reqs {
		if len(r.Tools) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// dumpRequests writes the bodies the model received into dumpDir/TEST/.
func dumpRequests(t *testing.T, m *fakemodel.Server) {
	if dumpDir == "" {
		return
	}
	dir := filepath.Join(dumpDir, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Error(err)
		return
	}
	for i, r := range m.All() {
		name := fmt.Sprintf("%03d-%s.json", i, strings.NewReplacer("/", "_", ":", "_", "?", "_").Replace(r.Path))
		if err := os.WriteFile(filepath.Join(dir, name), r.Body, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// keepTranscripts copies the transcripts the agents wrote under home
// (Claude Code's projects/, Codex's sessions/, Gemini CLI's chats/,
// Copilot CLI's session-state/*/events.jsonl, OpenCode's opencode.db
// and Kilo's kilo.db with their -wal, Cline's data/sessions/, pi's .pi/agent/sessions/, Qwen
// Code's projects/*/chats/ and projects/*/subagents/) into
// fixturesOut/TEST/, keeping their paths below home.
func keepTranscripts(t *testing.T, home string) {
	if fixturesOut == "" {
		return
	}
	dst := filepath.Join(fixturesOut, strings.ReplaceAll(t.Name(), "/", "_"))
	err := filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(home, p)
		slash := filepath.ToSlash(rel)
		if !(strings.HasPrefix(slash, ".claude/projects/") || strings.HasPrefix(slash, ".codex/sessions/") ||
			strings.HasPrefix(slash, ".gemini/tmp/") && strings.Contains(slash, "/chats/") ||
			strings.HasPrefix(slash, ".copilot/session-state/") && strings.HasSuffix(slash, "/events.jsonl") ||
			strings.HasPrefix(slash, ".cline/data/sessions/") ||
			strings.HasPrefix(slash, ".pi/agent/sessions/") ||
			strings.HasPrefix(slash, ".qwen/projects/") && (strings.Contains(slash, "/chats/") || strings.Contains(slash, "/subagents/")) ||
			strings.HasPrefix(slash, ".local/share/opencode/opencode.db") ||
			strings.HasPrefix(slash, ".local/share/kilo/kilo.db") ||
			strings.HasPrefix(slash, "project/.crush/crush.db") || slash == ".local/share/crush/projects.json") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Errorf("keep transcripts: %v", err)
	}
}

// doctorCheck is the check of that name in doctor --json's report.
func (w *world) doctorCheck(name string) doctor.Check {
	w.t.Helper()
	out, _, _ := w.try(nil, program, "doctor", "--json") // non-zero on any warning
	var checks []doctor.Check
	if err := json.Unmarshal([]byte(out), &checks); err != nil {
		w.t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	for _, c := range checks {
		if c.Name == name {
			return c
		}
	}
	w.t.Fatalf("doctor --json has no check %s:\n%s", name, out)
	return doctor.Check{}
}

// hooksLog is the hooks' log in the world's data directory, "" when
// there is none.
func (w *world) hooksLog() string {
	var out string
	_ = filepath.WalkDir(w.home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "hooks.log" {
			if b, err := os.ReadFile(p); err == nil {
				out = string(b)
			}
		}
		return nil
	})
	return out
}

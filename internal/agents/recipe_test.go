package agents_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// fakeAgents are the folders of the agents TestRecipeAddsAnAgent adds,
// by name, each file by its path in the folder: fakedb keeps its sessions
// in OpenCode's database under names of its own, as Kilo Code's CLI does;
// fakelines writes JSON Lines, read by a reader of its own.
var fakeAgents = map[string]map[string]string{
	"fakedb": {
		"agent.go": `// Package fakedb is an agent added by docs/ARCHITECTURE.md's recipe.
package fakedb

import (
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents/opencode"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is its name on the command line and in records.
const Name transcript.Agent = "fakedb"

var layout = opencode.Layout{Name: Name, Display: "Fake DB", What: "a Fake DB database", Stem: "fakedb", DBVar: "FAKEDB_DB",
	Marks: []string{"fake_board"}}

// Agent is its entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: string(Name), Display: layout.Display, Program: "fakedb", InstructionFile: "AGENTS.md", Checked: "1.2.3",
		SessionsHelp: "~/.local/share/fakedb/fakedb.db",
		OwnDirs:      opencode.Dirs(layout),
		Transcripts:  opencode.Transcripts(layout),
		Profile: agent.Profile{
			Reads:             []string{"AGENTS.md"},
			InstructionBudget: 16 << 10,
			Launch:            []agent.Launch{{How: "start it with the handoff", Command: "fakedb --prompt FILE"}},
			Style:             agent.Style{Agent: layout.Display, Guidance: []string{agent.CheckGuidance}},
		},
		StartArgs: func(dir, message string) []string { return []string{"--prompt", message} },
	}
}
`,
	},
	"fakelines": {
		"agent.go": fakeLinesAgent,
		"testdata/findable/s1.jsonl": `{"fakelines":"v1","sid":"s1","cwd":"/src/app","ts":"2026-11-01T00:00:00Z","role":"user","text":"Fix the build"}
{"fakelines":"v1","sid":"s1","ts":"2026-11-01T00:01:00Z","role":"assistant","text":"Fixed."}
`,
		"testdata/reasoning-planted.txt": `{"fakelines":"v1","sid":"s1","ts":"2026-11-01T00:00:30Z","role":"assistant","text":"","thought":"PRIVATE-REASONING-7f3a"}
`,
	},
}

// fakeLinesAgent is fakelines' agent.go: its entry and its reader.
const fakeLinesAgent = `// Package fakelines is an agent added by docs/ARCHITECTURE.md's recipe.
package fakelines

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is its name on the command line and in records.
const Name = "fakelines"

// Agent is its entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: Name, Display: "Fake Lines", Program: "fakelines", InstructionFile: "AGENTS.md", Checked: "4.5.6",
		SessionsHelp: "~/.fakelines/sessions",
		OwnDirs:      func(home string, getenv func(string) string) []string { return []string{filepath.Join(home, ".fakelines")} },
		SessionsDir:  "sessions",
		Transcripts:  transcripts{},
		Reasoning:    transcript.Reasoning{Members: []string{"thought"}},
		Profile: agent.Profile{
			Reads:             []string{"AGENTS.md"},
			InstructionBudget: 16 << 10,
			Launch:            []agent.Launch{{How: "start it with the handoff", Command: "fakelines FILE"}},
			Style:             agent.Style{Agent: "Fake Lines", Guidance: []string{agent.CheckGuidance}},
		},
		StartArgs: func(dir, message string) []string { return []string{message} },
	}
}

// line is a line of its sessions.
type line struct {
	Mark    string ` + "`json:\"fakelines\"`" + `
	SID     string ` + "`json:\"sid\"`" + `
	CWD     string ` + "`json:\"cwd\"`" + `
	TS      string ` + "`json:\"ts\"`" + `
	Role    string ` + "`json:\"role\"`" + `
	Text    string ` + "`json:\"text\"`" + `
}

// own decodes raw when it is one of its lines.
func own(raw []byte) (line, bool) {
	var l line
	return l, transcript.Decode(raw, &l) == nil && l.Mark == "v1"
}

type transcripts struct{}

func (transcripts) Find(roots []string) ([]transcript.SessionInfo, error) {
	var files []transcript.Candidate
	for _, root := range roots {
		transcript.ListFiles(root, func(name string) bool { return strings.HasSuffix(name, ".jsonl") }, &files)
	}
	return transcript.ProbeSessions(transcript.Agent(Name), files, func() transcript.Prober { return &prober{} }), nil
}

type prober struct {
	id, cwd       string
	n             int
	started, last time.Time
}

func (p *prober) Line(raw []byte, head, tail bool) {
	l, ok := own(raw)
	if !ok {
		return
	}
	p.n++
	if p.id == "" {
		p.id, p.cwd = l.SID, l.CWD
	}
	if t, ok := transcript.ParseTime(l.TS); ok {
		if p.started.IsZero() {
			p.started = t
		}
		if t.After(p.last) {
			p.last = t
		}
	}
}

func (p *prober) Fill(s *transcript.SessionInfo) bool {
	if p.n == 0 {
		return false
	}
	transcript.Probed{ID: p.id, CWD: p.cwd, Started: p.started, Last: p.last}.Fill(s)
	return true
}

func (transcripts) DetectLine(raw []byte) (transcript.Detected, bool) {
	if _, ok := own(raw); !ok {
		return transcript.Detected{}, false
	}
	return transcript.Detected{Agent: transcript.Agent(Name), What: "a Fake Lines session"}, true
}

func (t transcripts) Detect(head []byte) (transcript.Detected, bool) {
	first, _, _ := bytes.Cut(head, []byte("\n"))
	return t.DetectLine(bytes.TrimSpace(first))
}

var errNotOurs = errors.New("not a Fake Lines line")

func (transcripts) Read(path, _ string, lim transcript.Limits) (*transcript.Digest, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: path, Err: os.ErrInvalid}
	}
	lim = lim.WithDefaults()
	return transcript.ReadOpen(path, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
		b := transcript.NewBuilder()
		err := transcript.EachLine(r, lim, &b.Digest().Stats, func(raw []byte) error {
			l, ok := own(raw)
			if !ok {
				return errNotOurs
			}
			if l.CWD != "" {
				b.SetCWD(l.CWD)
			}
			if b.Digest().Session.ID == "" {
				b.Digest().Session.ID = l.SID
			}
			t, _ := transcript.ParseTime(l.TS)
			b.Time(t)
			switch {
			case l.Role == "user" && l.Text != "":
				b.Request(l.Text)
			case l.Role == "assistant" && l.Text != "":
				b.AgentMessage("", l.Text)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return b.Finish(transcript.Agent(Name))
	})
}
`

// TestRecipeAddsAnAgent follows docs/ARCHITECTURE.md's recipe for adding
// an agent in a copy of the module: the agent's folder (agent.go, and
// testdata/findable with one session laid out as under its session root),
// one line of the table, go generate ./internal/agents; then the tests of
// every package that holds expectations about each agent pass. It adds
// two: one whose sessions are rows of a database, one whose are files of
// JSON Lines with reasoning in them (testdata/reasoning-planted.txt).
func TestRecipeAddsAnAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the module and runs go generate and go test in it")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	copyModule(t, root, mod)
	for name, files := range fakeAgents {
		for rel, text := range files {
			write(t, filepath.Join(mod, "internal", "agents", name, filepath.FromSlash(rel)), []byte(text))
		}
	}
	seed, err := os.ReadFile(filepath.Join(root, "internal", "agents", "opencode", "testdata", "seed.db"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(mod, "internal", "agents", "fakedb", "testdata", "findable", "fakedb.db"), seed)
	table := filepath.Join(mod, "internal", "agents", "agents.go")
	src, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.Replace(src, []byte("\tcrush.Agent(),\n}"), []byte("\tcrush.Agent(),\n\tfakedb.Agent(),\n\tfakelines.Agent(),\n}"), 1)
	src = bytes.Replace(src, []byte("internal/agents/crush\"\n"), []byte("internal/agents/crush\"\n\t\"github.com/session-handoff/session-handoff/internal/agents/fakedb\"\n\t\"github.com/session-handoff/session-handoff/internal/agents/fakelines\"\n"), 1)
	if !bytes.Contains(src, []byte("fakelines.Agent(),")) || !bytes.Contains(src, []byte("agents/fakelines\"")) {
		t.Fatal("the table's last line or import not found")
	}
	write(t, table, src)

	gotool, err := exec.LookPath("go")
	if err != nil {
		if testsys.InCI() {
			t.Fatalf("no go tool on PATH: %v", err)
		}
		t.Skipf("no go tool on PATH: %v", err)
	}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(gotool, args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("generate", "./internal/agents")
	run("test", "-short", "-count=1",
		"./internal/agents/...", "./internal/capture", "./internal/archtest", "./internal/integrate", "./internal/doctor",
		"./internal/hooks", "./internal/mcpserver", "./targets", "./render")
	run("test", "-short", "-count=1", "-run", "^(TestReadmeListsEveryAgent|TestEndToEndPinsAreTheTables|TestScripts)$/^(launch)?$", "./cmd/session-handoff")
}

// copyModule copies the module at root to dst, without .git.
func copyModule(t *testing.T, root, dst string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

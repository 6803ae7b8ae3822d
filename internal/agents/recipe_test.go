package agents_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeAgent is the folder of the agent TestRecipeAddsAnAgent adds: a
// program that keeps its sessions in OpenCode's database under names of
// its own, as Kilo Code's CLI does.
var fakeAgent = map[string]string{
	"agent.go": `// Package fakeagent is an agent added by docs/ARCHITECTURE.md's recipe.
package fakeagent

import (
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents/opencode"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is its name on the command line and in records.
const Name transcript.Agent = "fakeagent"

var layout = opencode.Layout{Name: Name, Display: "Fake Agent", What: "a Fake Agent database", Stem: "fakeagent", DBVar: "FAKEAGENT_DB",
	Marks: []string{"fake_board"}}

// Agent is its entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: string(Name), Display: layout.Display, Program: "fakeagent", InstructionFile: "AGENTS.md", Checked: "1.2.3",
		SessionsHelp: "~/.local/share/fakeagent/fakeagent.db",
		OwnDirs:      opencode.Dirs(layout),
		Transcripts:  opencode.Transcripts(layout),
		Profile: agent.Profile{
			Reads:             []string{"AGENTS.md"},
			InstructionBudget: 16 << 10,
			Launch:            []agent.Launch{{How: "start it with the handoff", Command: "fakeagent --prompt FILE"}},
			Style:             agent.Style{Agent: layout.Display, Guidance: []string{agent.CheckGuidance}},
		},
		StartArgs: func(dir, message string) []string { return []string{"--prompt", message} },
	}
}
`,
}

// TestRecipeAddsAnAgent follows docs/ARCHITECTURE.md's recipe for adding
// an agent in a copy of the module: the agent's folder (agent.go, and
// testdata/findable with one session laid out as under its session root),
// one line of the table, go generate ./internal/agents; then the tests of
// every package that holds expectations about each agent pass.
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
	folder := filepath.Join(mod, "internal", "agents", "fakeagent")
	for name, text := range fakeAgent {
		write(t, filepath.Join(folder, name), []byte(text))
	}
	seed, err := os.ReadFile(filepath.Join(root, "internal", "agents", "opencode", "testdata", "seed.db"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(folder, "testdata", "findable", "fakeagent.db"), seed)
	table := filepath.Join(mod, "internal", "agents", "agents.go")
	src, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.Replace(src, []byte("\tcrush.Agent(),\n}"), []byte("\tcrush.Agent(),\n\tfakeagent.Agent(),\n}"), 1)
	src = bytes.Replace(src, []byte("internal/agents/crush\"\n"), []byte("internal/agents/crush\"\n\t\"github.com/session-handoff/session-handoff/internal/agents/fakeagent\"\n"), 1)
	if !bytes.Contains(src, []byte("fakeagent.Agent(),")) || !bytes.Contains(src, []byte("agents/fakeagent\"")) {
		t.Fatal("the table's last line or import not found")
	}
	write(t, table, src)

	gotool := filepath.Join(runtime.GOROOT(), "bin", "go")
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

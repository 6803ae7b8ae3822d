package integrate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agent"
)

// wholeAgent is an agent whose hooks are a file of their own, written as
// a plugin would be: a list of the hooks as JSON in code.
var wholeAgent = Agent{Name: "whole", HookSpec: agent.HookSpec{
	ProjectSettings: ".whole/plugin/session-handoff.js", UserSettings: ".whole/plugin/session-handoff.js",
	Events: []agent.HookEvent{{Ours: "session-start", Theirs: "start"}, {Ours: "session-end", Theirs: "end", Timeout: 30}},
	Whole: func(hooks []agent.WholeHook) []byte {
		list, _ := json.MarshalIndent(hooks, "", "  ")
		return []byte("// session-handoff\nconst hooks = " + string(list) + ";\nexport default hooks;\n")
	},
}}

// An agent whose hooks are a file of their own (HookSpec.Whole): integrate
// writes the file whole, with each hook's command where doctor reads it,
// does nothing when it is there, replaces its own file that runs another
// program, refuses a file of that name that is not its own, and --remove
// takes exactly that file away.
func TestWholeHookFile(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	path := filepath.Join(root, filepath.FromSlash(wholeAgent.ProjectSettings))
	const program = "/opt/session handoff/bin/session-handoff"
	c, err := PlanHooks(wholeAgent, path, program)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyInstall(c, state); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !Installed(text, wholeAgent.Name) || !slices.Equal(InstalledPrograms(text, wholeAgent.Name), []string{program}) ||
		!strings.Contains(string(text), `"timeout": 30`) || !strings.Contains(string(text), `"event": "end"`) {
		t.Errorf("installed %v, programs %q in:\n%s", Installed(text, wholeAgent.Name), InstalledPrograms(text, wholeAgent.Name), text)
	}
	if again, err := PlanHooks(wholeAgent, path, program); err != nil || !again.Nothing {
		t.Errorf("a second install: %+v, %v; want nothing to do", again, err)
	}
	if other, err := PlanHooks(wholeAgent, path, "/usr/bin/session-handoff"); err != nil || other.Nothing || !strings.Contains(string(other.After), "/usr/bin/session-handoff") {
		t.Errorf("another program: %+v, %v; want the file replaced", other, err)
	}
	c, err = PlanRemove(path, state)
	if err != nil || !c.Exact || c.After != nil {
		t.Fatalf("removal %+v, %v; want the file removed exactly", c, err)
	}
	if err := ApplyRemove(c, state); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file is still there: %v", err)
	}
	// The user's own file of that name is never overwritten.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("export default {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanHooks(wholeAgent, path, program); err == nil || !strings.Contains(err.Error(), "not session-handoff's") {
		t.Errorf("install over the user's file: %v", err)
	}
}

// The directories an install made for its file go with the file, and
// only those: a directory that was there before stays, empty or not.
func TestRemoveTakesTheDirectoriesItMade(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	kept := filepath.Join(root, ".kept")
	if err := os.Mkdir(kept, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{".made/extensions/session-handoff.ts", ".kept/plugin/session-handoff.ts"} {
		path := filepath.Join(root, filepath.FromSlash(rel))
		c, err := PlanHooks(wholeAgent, path, "/bin/session-handoff")
		if err != nil {
			t.Fatal(err)
		}
		if err := ApplyInstall(c, state); err != nil {
			t.Fatal(err)
		}
		if c, err = PlanRemove(path, state); err != nil || c.After != nil {
			t.Fatalf("%s: removal %+v, %v", rel, c, err)
		}
		if err := ApplyRemove(c, state); err != nil {
			t.Fatal(err)
		}
	}
	for _, gone := range []string{".made", ".kept/plugin"} {
		if _, err := os.Lstat(filepath.Join(root, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", gone, err)
		}
	}
	if _, err := os.Lstat(kept); err != nil {
		t.Errorf("the directory that was there before is gone: %v", err)
	}
}

package integrate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An agent whose hooks are a file of their own (HookSpec.Whole, Cline's
// plugin): integrate writes the file whole, names the program in it as
// doctor reads it, refuses a file of the same name that is not ours, and
// --remove takes exactly that file away.
func TestWholeHookFile(t *testing.T) {
	a, err := LookupAgent("cline")
	if err != nil {
		t.Fatal(err)
	}
	if a.Whole == nil {
		t.Fatal("cline's hooks are no file of their own")
	}
	root, state := t.TempDir(), t.TempDir()
	path := a.SettingsPath(root, "", false, func(string) string { return "" })
	const program = "/opt/session handoff/bin/session-handoff"
	c, err := PlanHooks(a, path, program)
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
	if !Installed(text, a.Name) || !slices.Equal(InstalledPrograms(text, a.Name), []string{program}) {
		t.Errorf("installed %v, programs %q in:\n%s", Installed(text, a.Name), InstalledPrograms(text, a.Name), text)
	}
	if again, err := PlanHooks(a, path, program); err != nil || !again.Nothing {
		t.Errorf("a second install: %+v, %v; want nothing to do", again, err)
	}
	c, err = PlanRemove(path, state)
	if err != nil || !c.Exact || c.After != nil {
		t.Fatalf("removal %+v, %v; want the file removed exactly", c, err)
	}
	if err := ApplyRemove(c, state); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the plugin is still there: %v", err)
	}
	// The user's own file of that name is never overwritten.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("export default {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanHooks(a, path, program); err == nil || !strings.Contains(err.Error(), "not session-handoff's") {
		t.Errorf("install over the user's file: %v", err)
	}
}

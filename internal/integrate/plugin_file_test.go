package integrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// OpenCode's hooks are a plugin file written whole (HookSpec.Whole):
// installed once, found by doctor's reading (Installed, InstalledPrograms),
// removed whole; a file of the user's at that path is left alone.
func TestPluginFileInstall(t *testing.T) {
	a, err := LookupAgent("opencode")
	if err != nil {
		t.Fatal(err)
	}
	if a.Whole == nil {
		t.Fatal("OpenCode's hooks are no plugin")
	}
	root, state := t.TempDir(), t.TempDir()
	path, err := a.InstallPath(ScopeProject, root, "/home/u", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, ".opencode", "plugin", "session-handoff.js"); path != want {
		t.Fatalf("path %s, want %s", path, want)
	}
	for env, want := range map[string]string{
		"":                   "/home/u/.config/opencode/plugin/session-handoff.js",
		"XDG_CONFIG_HOME=/x": "/x/opencode/plugin/session-handoff.js",
	} {
		k, v, _ := strings.Cut(env, "=")
		if p, err := a.InstallPath(ScopeUser, root, "/home/u", func(name string) string {
			if name == k {
				return v
			}
			return ""
		}); err != nil || p != want {
			t.Errorf("user scope with %q: %s, %v; want %s", env, p, err, want)
		}
	}
	const program = "/opt/my tools/session-handoff"
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
	for _, ev := range []string{"session-start", "pre-compact", "session-end"} {
		if want := `"command":"'/opt/my tools/session-handoff' hook opencode ` + ev + `"`; !strings.Contains(string(text), want) {
			t.Errorf("the plugin lacks %s:\n%s", want, text)
		}
	}
	if !Installed(text, "opencode") || strings.Join(InstalledPrograms(text, "opencode"), ",") != program {
		t.Errorf("Installed %v, programs %q", Installed(text, "opencode"), InstalledPrograms(text, "opencode"))
	}
	if c, err := PlanHooks(a, path, program); err != nil || !c.Nothing {
		t.Errorf("a second install: %+v, %v", c, err)
	}
	r, err := PlanRemove(path, state)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyRemove(r, state); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the plugin is still there after the removal: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("export const Mine = async () => ({})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanHooks(a, path, program); err == nil || !strings.Contains(err.Error(), "not session-handoff's") {
		t.Errorf("over the user's own file: %v", err)
	}
}

package integrate

import (
	"strings"
	"testing"
)

// OpenCode's hooks are its plugin, a HookSpec.Whole file (written and
// removed as TestWholeHookFile checks): in the project's
// .opencode/plugin, or the user's ~/.config/opencode/plugin (moved by
// XDG_CONFIG_HOME), running each hook's command line where doctor finds
// it.
func TestOpenCodePlugin(t *testing.T) {
	a, err := LookupAgent("opencode")
	if err != nil {
		t.Fatal(err)
	}
	const root = "/p"
	for env, want := range map[string]string{
		"":                   "/home/u/.config/opencode/plugin/session-handoff.js",
		"XDG_CONFIG_HOME=/x": "/x/opencode/plugin/session-handoff.js",
	} {
		k, v, _ := strings.Cut(env, "=")
		getenv := func(name string) string {
			if name == k {
				return v
			}
			return ""
		}
		if p, err := a.ScopePath(ScopeUser, root, "/home/u", getenv); err != nil || p != want {
			t.Errorf("user scope with %q: %s, %v; want %s", env, p, err, want)
		}
	}
	if p, err := a.ScopePath(ScopeProject, root, "/home/u", func(string) string { return "" }); err != nil || p != "/p/.opencode/plugin/session-handoff.js" {
		t.Errorf("project scope: %s, %v", p, err)
	}
	const program = "/opt/my tools/session-handoff"
	c, err := PlanHooks(a, "/nonexistent/session-handoff.js", program)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"session-start", "pre-compact", "session-end"} {
		if want := `"command":"'/opt/my tools/session-handoff' hook opencode ` + ev + `"`; !strings.Contains(string(c.After), want) {
			t.Errorf("the plugin lacks %s:\n%s", want, c.After)
		}
	}
	if !Installed(c.After, "opencode") || strings.Join(InstalledPrograms(c.After, "opencode"), ",") != program {
		t.Errorf("Installed %v, programs %q", Installed(c.After, "opencode"), InstalledPrograms(c.After, "opencode"))
	}
}

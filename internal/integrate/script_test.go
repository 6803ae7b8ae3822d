package integrate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
)

// pi loads an extension of ours instead of running hook commands: integrate
// writes it whole, with the hooks' commands in it as a settings file holds
// them, so that doctor finds them; it replaces one of its own, refuses a
// file that is not, and removes it whole.
func TestScriptInstall(t *testing.T) {
	a, err := LookupAgent(agents.Pi)
	if err != nil || a.Script == nil {
		t.Fatalf("%+v, %v", a, err)
	}
	root, home, state := t.TempDir(), t.TempDir(), t.TempDir()
	getenv := func(string) string { return "" }
	path, err := a.InstallPath(ScopeProject, root, home, getenv)
	if err != nil || path != filepath.Join(root, ".pi", "extensions", "session-handoff.ts") {
		t.Fatalf("path %q, %v", path, err)
	}
	c, err := a.Plan(path, "/opt/it's/session-handoff")
	if err != nil || c.Nothing || c.Before != nil {
		t.Fatalf("nothing %v, before %q, %v", c != nil && c.Nothing, c.Before, err)
	}
	text := string(c.After)
	for _, ev := range []string{"session-start", "pre-compact", "session-end"} {
		if !strings.Contains(text, `"command": "'/opt/it'\\''s/session-handoff' hook pi `+ev+`"`) {
			t.Errorf("the extension lacks the %s hook:\n%s", ev, text)
		}
	}
	if !Installed(c.After, agents.Pi) || !slices.Equal(InstalledPrograms(c.After, agents.Pi), []string{"/opt/it's/session-handoff"}) {
		t.Errorf("installed %v, programs %v", Installed(c.After, agents.Pi), InstalledPrograms(c.After, agents.Pi))
	}
	if err := ApplyInstall(c, state); err != nil {
		t.Fatal(err)
	}
	if again, err := a.Plan(path, "/opt/it's/session-handoff"); err != nil || !again.Nothing {
		t.Errorf("installed twice: %v", err)
	}
	if moved, err := a.Plan(path, "/usr/bin/session-handoff"); err != nil || moved.Nothing || !strings.Contains(string(moved.After), `"/usr/bin/session-handoff hook pi session-start"`) {
		t.Errorf("another program: nothing %v, %v:\n%s", moved.Nothing, err, moved.After)
	}
	r, err := PlanRemove(path, state)
	if err != nil || !r.Exact || r.After != nil {
		t.Fatalf("removal exact %v, %v", r != nil && r.Exact, err)
	}
	if err := ApplyRemove(r, state); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the extension is still there: %v", err)
	}
	// Someone else's extension of that name stays.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("export default function () {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Plan(path, "/bin/session-handoff"); err == nil || !strings.Contains(err.Error(), "not session-handoff's") {
		t.Errorf("another extension overwritten: %v", err)
	}
	// The user's extension is in pi's own directory, which
	// PI_CODING_AGENT_DIR moves.
	if p, _ := a.InstallPath(ScopeUser, root, home, getenv); p != filepath.Join(home, ".pi", "agent", "extensions", "session-handoff.ts") {
		t.Errorf("user scope %q", p)
	}
	moved := func(k string) string {
		if k == "PI_CODING_AGENT_DIR" {
			return "/cfg/pi"
		}
		return ""
	}
	if p, _ := a.InstallPath(ScopeUser, root, home, moved); p != "/cfg/pi/extensions/session-handoff.ts" {
		t.Errorf("user scope with PI_CODING_AGENT_DIR %q", p)
	}
}

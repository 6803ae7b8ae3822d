package pi_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents/pi"
	"github.com/session-handoff/session-handoff/internal/integrate"
)

// integrate pi writes the extension with the three hooks' commands where
// doctor reads them, bound to pi's events, in .pi/extensions of the
// project or of pi's own directory (which PI_CODING_AGENT_DIR moves).
func TestExtension(t *testing.T) {
	a, err := integrate.LookupAgent(pi.Name)
	if err != nil || a.Whole == nil {
		t.Fatalf("%+v, %v", a, err)
	}
	root, home := t.TempDir(), t.TempDir()
	none := func(string) string { return "" }
	path, err := a.InstallPath(integrate.ScopeProject, root, home, none)
	if err != nil || path != filepath.Join(root, ".pi", "extensions", "session-handoff.ts") {
		t.Fatalf("path %q, %v", path, err)
	}
	c, err := integrate.PlanHooks(a, path, "/opt/it's/session-handoff")
	if err != nil || c.Nothing {
		t.Fatalf("nothing %v, %v", c != nil && c.Nothing, err)
	}
	text := string(c.After)
	for ev, theirs := range map[string]string{"session-start": "session_start", "pre-compact": "session_before_compact", "session-end": "session_shutdown"} {
		if !strings.Contains(text, `"command": "'/opt/it'\\''s/session-handoff' hook pi `+ev+`"`) {
			t.Errorf("the extension lacks the %s hook:\n%s", ev, text)
		}
		// The hook runs on pi's event, and the extension listens to it.
		if !strings.Contains(text, `"event": "`+theirs+`"`) || !strings.Contains(text, `pi.on("`+theirs+`"`) || !strings.Contains(text, `run("`+theirs+`"`) {
			t.Errorf("%s: not run on pi's %s", ev, theirs)
		}
	}
	if !integrate.Installed(c.After, pi.Name) || !slices.Equal(integrate.InstalledPrograms(c.After, pi.Name), []string{"/opt/it's/session-handoff"}) {
		t.Errorf("installed %v, programs %v", integrate.Installed(c.After, pi.Name), integrate.InstalledPrograms(c.After, pi.Name))
	}
	if strings.Contains(text, "HOOKS_JSON") {
		t.Error("the hooks were not put in")
	}
	if p, _ := a.InstallPath(integrate.ScopeUser, root, home, none); p != filepath.Join(home, ".pi", "agent", "extensions", "session-handoff.ts") {
		t.Errorf("user scope %q", p)
	}
	moved := func(k string) string {
		if k == "PI_CODING_AGENT_DIR" {
			return "/cfg/pi"
		}
		return ""
	}
	if p, _ := a.InstallPath(integrate.ScopeUser, root, home, moved); p != "/cfg/pi/extensions/session-handoff.ts" {
		t.Errorf("user scope with PI_CODING_AGENT_DIR %q", p)
	}
}

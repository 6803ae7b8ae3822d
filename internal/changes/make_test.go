package changes

import (
	"context"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// The files the agents' integration manages are never work in progress:
// .claude/settings.json (with this machine's path to the program),
// tracked or not, stays out of the patch, which says so; a worktree where
// only they changed has nothing to carry. Before, the patch carried them
// to the other machine.
func TestMakeLeavesTheIntegrationsFilesOut(t *testing.T) {
	laptop, _ := laptopAndDesktop(t)
	write(t, laptop, ".mcp.json", "{}\n")
	run(t, laptop, "add", ".mcp.json")
	run(t, laptop, "commit", "-q", "-m", "mcp")
	write(t, laptop, ".mcp.json", `{"mcpServers": {"session-handoff": {"command": "/home/me/bin/session-handoff"}}}`+"\n")
	write(t, laptop, ".claude/settings.json", `{"hooks": {"command": "/home/me/bin/session-handoff hook claude-code"}}`+"\n")
	m, err := Make(context.Background(), laptop)
	if err != nil || m != nil {
		t.Fatalf("only the integration's files changed: %v; want nothing to carry, got %+v", err, m)
	}
	write(t, laptop, "auth.go", "package auth\n\nfunc A() { return }\n")
	m, err = Make(context.Background(), laptop)
	testsys.Check(t, err)
	patch := string(patchOf(t, m))
	if strings.Contains(patch, "/home/me/bin") || !strings.Contains(patch, "auth.go") {
		t.Fatalf("the patch:\n%s", patch)
	}
	for _, f := range []string{".claude/settings.json", ".mcp.json"} {
		if !strings.Contains(patch, "# left out: "+f+" (the agent integration's own settings)") {
			t.Errorf("the patch does not say %s was left out:\n%s", f, patch)
		}
	}
}

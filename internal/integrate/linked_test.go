package integrate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/agents/qwen"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// TestLinkedAgentDirectoryIsRefused: a project whose .claude, .codex or
// .gemini (or another agent's: .github, .opencode, .cline, .pi, .qwen, .kilo) is a link to a directory elsewhere gets no project or local
// install there, hooks or MCP server; the user scope is still the user's.
func TestLinkedAgentDirectoryIsRefused(t *testing.T) {
	base := t.TempDir()
	root, home := filepath.Join(base, "project"), filepath.Join(base, "home")
	for _, d := range []string{".claude", ".codex", ".gemini", ".github", ".opencode", ".cline", ".pi", ".qwen", ".kilo"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".claude", ".codex", ".gemini", ".github", ".opencode", ".cline", ".pi", ".qwen", ".kilo"} {
		if err := os.Symlink(filepath.Join(home, d), filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(string) string { return "" }
	for _, a := range Agents {
		for _, s := range []Scope{ScopeProject, ScopeLocal} {
			if _, err := a.ScopePath(s, root, home, getenv); err != nil {
				continue // no such file for this agent
			}
			if p, err := a.InstallPath(s, root, home, getenv); !errors.Is(err, safefile.ErrOutside) {
				t.Errorf("%s scope %d: %q, %v; want ErrOutside", a.Name, s, p, err)
			}
		}
		if _, err := a.InstallPath(ScopeUser, root, home, getenv); err != nil {
			t.Errorf("%s user scope: %v", a.Name, err)
		}
	}
	for _, agent := range []string{agents.Codex, agents.Gemini, qwen.Name} { // Claude Code's is .mcp.json, at the root
		if p, _, err := MCPPath(agent, root, home, false, getenv); !errors.Is(err, safefile.ErrOutside) {
			t.Errorf("MCP %s: %q, %v; want ErrOutside", agent, p, err)
		}
	}
	// A package directory with a linked subdirectory.
	pkg := filepath.Join(base, "plug")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".claude"), filepath.Join(pkg, ".claude-plugin")); err != nil {
		t.Fatal(err)
	}
	files, err := packageFiles(t, "claude-code", "/bin/session-handoff", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WritePackage(pkg, files); !errors.Is(err, safefile.ErrOutside) {
		t.Errorf("package through a link: %v; want ErrOutside", err)
	}
	if es, _ := os.ReadDir(filepath.Join(home, ".claude")); len(es) != 0 {
		t.Errorf("written into the user's directory: %v", es)
	}
}

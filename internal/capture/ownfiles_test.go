package capture

import (
	"slices"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
)

// A plan or memory file the agent keeps in its own directory is not one
// of the project's files.
func TestWithoutAgentFiles(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"HOME": "/home/u", "CLAUDE_CONFIG_DIR": ""}[k]
	}
	files := []handoff.FileTouched{
		{Path: "/home/u/.claude/plans/brave-otter.md", Action: "created"},
		{Path: "/home/u/src/app/lexer.go", Action: "edited"},
		{Path: "notes.md", Action: "created"},
		{Path: "/home/u/.claudeish/x.go", Action: "edited"},
		// Written on another machine: its home's plans are the agent's too.
		{Path: "/Users/alice/.claude/plans/quiet-fox.md", Action: "created"},
		{Path: "/home/bob/.claude/plans/x.md", Action: "edited"},
		{Path: `C:\Users\carol\.claude\plans\y.md`, Action: "edited"},
		{Path: "/srv/Users/x/.claude/plans/not-a-home.md", Action: "edited"},
	}
	got := withoutAgentFiles(files, ClaudeCode, "/home/u/src/app", env)
	var paths []string
	for _, f := range got {
		paths = append(paths, f.Path)
	}
	if want := []string{"/home/u/src/app/lexer.go", "notes.md", "/home/u/.claudeish/x.go", "/srv/Users/x/.claude/plans/not-a-home.md"}; !slices.Equal(paths, want) {
		t.Errorf("files %q, want %q", paths, want)
	}
	// A project inside the agent's directory keeps its files.
	if got := withoutAgentFiles(files[:4], ClaudeCode, "/home/u/.claude/plans", env); len(got) != 4 {
		t.Errorf("a project inside ~/.claude lost files: %+v", got)
	}
}

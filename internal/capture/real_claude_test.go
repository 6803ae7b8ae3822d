package capture

import "github.com/session-handoff/session-handoff/handoff"

// Expectations for the real Claude Code transcripts, established by
// reading each file (its lines printed with a script, not by this reader).
func init() {
	realExpectations = append(realExpectations,
		// Claude Code 1.0.98, /init in an empty directory: the command is
		// the request (its expanded prompt is an isMeta line); the Write of
		// CLAUDE.md was refused for want of permission, so no file was
		// touched; find and ls both exited 0; the last TodoWrite left one
		// item, completed.
		realExpectation{
			file: "claude-code/ccv/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl", agent: ClaudeCode,
			title:       "/init",
			requests:    []string{"/init"},
			numCommands: 2,
			commands: []realCommand{
				{prefix: `find . -name "*.json"`, exit: exit(0), count: 1},
				{prefix: "ls -la", exit: exit(0), count: 1},
			},
			todos: []handoff.Todo{{Content: "Create CLAUDE.md with essential information", Status: "completed"}},
		},
	)
}

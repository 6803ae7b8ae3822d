package capture

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/paths"
)

// SessionRoots lists the directories FindSessions looks in for agent's
// transcripts, whether they exist or not; env is as for FindSessions.
func SessionRoots(agent Agent, env func(string) string) ([]string, error) {
	if env == nil {
		env = os.Getenv
	}
	home, err := paths.Home(env)
	if err != nil {
		return nil, err
	}
	switch agent {
	case ClaudeCode:
		return claudeRoots(home, env), nil
	case Codex:
		root := env("CODEX_HOME")
		if root == "" {
			root = filepath.Join(home, ".codex")
		}
		return []string{filepath.Join(root, "sessions")}, nil
	case Gemini:
		return []string{filepath.Join(geminiRoot(home, env), "tmp")}, nil
	}
	return nil, fmt.Errorf("unknown agent %q", handoff.Clip(string(agent), 40))
}

package capture

import (
	"os"

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
	info, err := agent.info()
	if err != nil {
		return nil, err
	}
	return info.SessionRoots(home, env), nil
}

package transcript

import (
	"os"
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/paths"
)

// Agents are the agents whose readers this package holds.
var Agents = []Agent{ClaudeCode, Codex, Gemini}

// rootsOf are agent's session directories under env's HOME, as its folder
// in internal/agents gives them to the agents table.
func rootsOf(agent Agent, env func(string) string) []string {
	if env == nil {
		env = os.Getenv
	}
	home, err := paths.Home(env)
	if err != nil {
		panic(err)
	}
	dirs, sub := map[Agent]func(string, func(string) string) []string{
		ClaudeCode: ClaudeDirs, Codex: CodexDirs, Gemini: GeminiDirs,
	}[agent], map[Agent]string{
		ClaudeCode: ClaudeSessionsDir, Codex: CodexSessionsDir, Gemini: GeminiSessionsDir,
	}[agent]
	if dirs == nil {
		return nil
	}
	var out []string
	for _, d := range dirs(home, env) {
		out = append(out, filepath.Join(d, sub))
	}
	return out
}

// findSessions is FindSessions in agent's directories under env's HOME.
func findSessions(agent Agent, env func(string) string) ([]SessionInfo, error) {
	return FindSessions(agent, rootsOf(agent, env))
}

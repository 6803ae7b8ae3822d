package targets

import (
	"github.com/session-handoff/session-handoff/internal/agents"
)

// Personal is the profile writing to the agent's PersonalFile instead of
// the shared InstructionFile; ok is false when the agent has none.
func (p Profile) Personal() (Profile, bool) {
	if p.PersonalFile == "" {
		return p, false
	}
	p.InstructionFile, p.Header = p.PersonalFile, p.PersonalHeader
	return p, true
}

// ForProject is the profile as it applies in the project at root, for
// what the agent decides from the project's files, as its folder declares
// (agent.Agent.ForProject: Codex's override file and size limit), its own
// directories under home; other profiles are returned as they are.
func (p Profile) ForProject(root, home string, getenv func(string) string) (Profile, error) {
	a, ok := agents.Find(p.Name)
	if !ok || a.ForProject == nil {
		return p, nil
	}
	ap, err := a.ForProject(p.Profile, root, a.Dirs(home, getenv))
	return Profile{ap}, err
}

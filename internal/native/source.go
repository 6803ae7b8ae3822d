package native

import (
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// FindSource picks the session to convert on this machine: of agent from
// ("" for any agent but target), in the project directory project, the
// newest ("latest" or "") or the one whose id is or begins with ref.
func FindSource(from, target, ref, project string, env func(string) string) (capture.SessionInfo, error) {
	var which []capture.Agent
	if from != "" {
		which = []capture.Agent{capture.Agent(from)}
	}
	found, err := capture.ListSessions(which, env, project)
	if err != nil {
		return capture.SessionInfo{}, err
	}
	var match []capture.SessionInfo
	for _, s := range found {
		if from == "" && string(s.Agent) == target {
			continue
		}
		if ref == "" || ref == "latest" || strings.HasPrefix(s.ID, ref) {
			match = append(match, s)
		}
	}
	switch {
	case len(match) == 0 && (ref == "" || ref == "latest"):
		return capture.SessionInfo{}, fmt.Errorf("no session of %s in %s to carry over", firstNonEmpty(from, "another agent"), project)
	case len(match) == 0:
		return capture.SessionInfo{}, fmt.Errorf("no session %s of %s in %s", untrusted.Quote(ref, 64), firstNonEmpty(from, "another agent"), project)
	case len(match) > 1 && ref != "" && ref != "latest" && match[0].ID != ref:
		return capture.SessionInfo{}, fmt.Errorf("session %s is ambiguous: %d sessions begin with it", untrusted.Quote(ref, 64), len(match))
	}
	return match[0], nil
}

// Home is the target agent's own directory on this machine, where a
// written session goes: the first of its directories (CODEX_HOME, else
// ~/.codex, for Codex).
func Home(target string, env func(string) string) (string, error) {
	a, ok := agents.Find(target)
	if !ok || a.OwnDirs == nil {
		return "", fmt.Errorf("unknown agent %s", untrusted.Quote(target, 40))
	}
	home, err := paths.Home(env)
	if err != nil {
		return "", err
	}
	dirs := a.Dirs(home, env)
	if len(dirs) == 0 {
		return "", fmt.Errorf("%s keeps no directory of its own", target)
	}
	return dirs[0], nil
}

// Newer reports the version of target that wrote its newest session on
// this machine when it is none Writer w was checked against: a hint that
// the installed agent may read its sessions otherwise ("" when it is one,
// or not known).
func Newer(w Writer, env func(string) string) string {
	found, err := capture.FindSessions(capture.Agent(w.Name()), env)
	if err != nil {
		return ""
	}
	for _, s := range found {
		if s.AgentVersion != "" {
			if checkedVersion(s.AgentVersion, w.Checked()) {
				return ""
			}
			return untrusted.OneLine(s.AgentVersion, 64)
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

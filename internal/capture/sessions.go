package capture

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// ListSessions lists the sessions of the given agents (all of them when
// agents is empty), newest activity first. A non-empty projectDir keeps
// only the sessions that ran in that directory or under it.
func ListSessions(agents []Agent, env func(string) string, projectDir string) ([]SessionInfo, error) {
	if len(agents) == 0 {
		agents = Agents
	}
	var all []SessionInfo
	for _, ag := range agents {
		found, err := FindSessions(ag, env)
		if err != nil {
			return nil, fmt.Errorf("find %s sessions: %w", ag, err)
		}
		all = append(all, found...)
	}
	if projectDir != "" {
		abs, err := filepath.Abs(projectDir)
		if err != nil {
			return nil, err
		}
		all = transcript.MatchProject(all, abs)
	}
	slices.SortStableFunc(all, func(x, y SessionInfo) int { return y.LastActivity.Compare(x.LastActivity) })
	return all, nil
}

// RedactSessions redacts the titles of listed sessions (often the first
// request, which may hold a pasted secret) with r, as capture redacts a
// record's title, in place.
func RedactSessions(sessions []SessionInfo, r *redact.Redactor) {
	for i := range sessions {
		if sessions[i].Title != "" {
			sessions[i].Title = r.String(sessions[i].Title, "title", nil)
		}
	}
}

package agents_test

import (
	"fmt"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// The tests in the files named transcripts_*_test.go check every reader of
// the table on what all of them must get right: the hostile corpus, the
// sample and real transcripts' expectations, the goldens, detection and
// the held-out check. An agent's own cases live in its folder.

// olderAgents are the agents whose readers the hostile corpus, the
// samples and the goldens were written for (testdata/transcripts at the
// repository's root holds their sessions).
var olderAgents = []string{agents.ClaudeCode, agents.Codex, agents.Gemini}

// The schema's bounds on a session (session.requests and
// session.commands maxItems).
const (
	schemaMaxRequests = 500
	schemaMaxCommands = 1000
)

// readAs reads file as a transcript of the named agent, through its entry
// in the table, as capture does.
func readAs(name, file string, lim transcript.Limits) (*transcript.Digest, error) {
	a, ok := agents.Find(name)
	if !ok || a.Transcripts == nil {
		return nil, fmt.Errorf("no reader for %q", name)
	}
	return a.Transcripts.Read(file, "", lim)
}

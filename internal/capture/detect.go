package capture

import (
	"errors"
	"fmt"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// subagentError is the error capture gives for a Codex or Gemini CLI
// subagent's transcript d read from file: it names the parent session
// when the transcript (or where it lies) says which it is.
func subagentError(file string, d *Digest) error {
	if p := untrusted.OneLine(d.Parent, 80); p != "" {
		return fmt.Errorf("%s: %w: it ran in %s session %s: capture that session, whose capture includes this subagent's work",
			file, transcript.ErrSubagent, d.Session.Agent, p)
	}
	return fmt.Errorf("%s: %w: a %s subagent's, which does not name the session it ran in: capture that session, whose capture includes this subagent's work",
		file, transcript.ErrSubagent, d.Session.Agent)
}

// checkDetected returns the agent to read a file as: the one it looks
// like when agent is "" (--from auto), else agent. It refuses a file that
// looks like another agent's session or another tool's output, and, with
// no agent named, one that looks like nothing known. A file that looks
// like nothing known but names its agent is left to that reader, whose
// errors say what is wrong with it line by line.
func checkDetected(path string, agent Agent) (Agent, error) {
	d, err := DetectFile(path)
	if err != nil {
		return "", err
	}
	switch {
	case d.Foreign || d.Agent == "" && agent == "":
		return "", fmt.Errorf("%s: %w: it looks like %s", path, ErrNotATranscript, d.What)
	case d.Agent == "":
		return agent, nil
	case agent == "":
		return d.Agent, nil
	case agent != d.Agent:
		return "", fmt.Errorf("%s: --from %s, but it looks like %s (use --from %s, or leave --from out)", path, agent, d.What, d.Agent)
	}
	return agent, nil
}

// ErrNotATranscript is wrapped when a file is no agent session transcript.
var ErrNotATranscript = errors.New("not an agent session transcript")

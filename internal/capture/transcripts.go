package capture

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// The session model of internal/transcript, under the names capture's
// callers know.
type (
	// Agent names a coding agent of the table (internal/agents).
	Agent = transcript.Agent
	// Digest is what one transcript tells the next agent.
	Digest = transcript.Digest
	// Limits bound what is read from one transcript.
	Limits = transcript.Limits
	// SessionInfo describes one session found on this machine.
	SessionInfo = transcript.SessionInfo
	// Detected is what a file looks like.
	Detected = transcript.Detected
)

// DefaultMaxFile is the largest transcript read by default.
const DefaultMaxFile = transcript.DefaultMaxFile

// Agents lists the agents whose transcripts can be read: every agent of
// the table (internal/agents), in its order.
var Agents = func() []Agent {
	var out []Agent
	for _, n := range agents.Names() {
		out = append(out, Agent(n))
	}
	return out
}()

// AgentNames lists the names of Agents.
func AgentNames() []string { return agents.Names() }

// ParseAgent accepts an agent's name or alias as the agents table spells
// them, as every command does.
func ParseAgent(s string) (Agent, error) {
	a, err := agents.Lookup(s)
	if err != nil {
		return "", err
	}
	return Agent(a.Name), nil
}

// entry is the agents table's entry for a, with a transcript reader.
func entry(a Agent) (agents.Agent, error) {
	e, ok := agents.Find(string(a))
	if !ok || e.Name != string(a) || e.Transcripts == nil {
		return agents.Agent{}, fmt.Errorf("unknown agent %q", handoff.Clip(string(a), 40))
	}
	return e, nil
}

// SessionRoots lists the directories FindSessions looks in for agent's
// transcripts, whether they exist or not. env looks up environment
// variables (os.Getenv when nil): HOME, and those by which the agents let
// their directories be moved.
func SessionRoots(agent Agent, env func(string) string) ([]string, error) {
	if env == nil {
		env = os.Getenv
	}
	home, err := paths.Home(env)
	if err != nil {
		return nil, err
	}
	e, err := entry(agent)
	if err != nil {
		return nil, err
	}
	return e.SessionRoots(home, env), nil
}

// FindSessions lists the sessions agent keeps on this machine, newest
// first; env is as for SessionRoots. A missing directory is no error.
func FindSessions(agent Agent, env func(string) string) ([]SessionInfo, error) {
	roots, err := SessionRoots(agent, env)
	if err != nil {
		return nil, err
	}
	e, _ := entry(agent)
	return e.Transcripts.Find(roots)
}

// ReadTranscript reads agent's transcript at file, its subagents folded
// in, within limits.
func ReadTranscript(agent Agent, file string, limits Limits) (*Digest, error) {
	return ReadSession(SessionInfo{Agent: agent, Path: file}, limits)
}

// ReadSession reads the session s, as FindSessions found it.
func ReadSession(s SessionInfo, limits Limits) (*Digest, error) {
	e, err := entry(s.Agent)
	if err != nil {
		return nil, err
	}
	return e.Transcripts.Read(s.Path, s.ID, limits)
}

// DetectFile reads the start of a file and says what it is: the session
// transcript of an agent of the table (the first, in its order, that takes
// it), another output of one, or what else it looks like.
func DetectFile(path string) (Detected, error) {
	f, _, err := safefile.OpenRegular(path)
	if err != nil {
		return Detected{}, err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, transcript.DetectBytes))
	if err != nil {
		return Detected{}, fmt.Errorf("%s: %w", path, err)
	}
	if sqlitefile.HasHeader(head) {
		if d, ok := detectSchema(path); ok {
			return d, nil
		}
	}
	return Detect(head), nil
}

// detectSchema says whose the SQLite database at path is by its tables,
// read wherever sqlite_schema lies (issue 45: after a VACUUM it no
// longer starts on the first page, and a guess from the head took
// OpenCode's and Kilo's databases for Crush's). ok is false when the
// schema cannot be read: the head's guess is all there is.
func detectSchema(path string) (Detected, bool) {
	db, err := sqlitefile.Open(path, sqlitefile.Limits{})
	if err != nil {
		return Detected{}, false
	}
	defer db.Close()
	tables, err := db.Schema()
	if err != nil {
		return Detected{}, false
	}
	for _, a := range agents.All() {
		if sd, ok := a.Transcripts.(agent.SchemaDetector); ok {
			if d, ok := sd.DetectSchema(tables); ok {
				return d, true
			}
		}
	}
	return Detected{What: "a SQLite database of no agent known to this version"}, true
}

// Detect says what a file whose first bytes are head looks like. When
// the file opens with a JSON object on a line, the first of its first
// lines (agent.MaxDetectLines) that an agent's DetectLine claims decides,
// the agents asked in the table's order; otherwise, or when none claims a
// line, the agent whose Detect takes the whole head, a sure claim before
// a guess (Detected.Guess).
func Detect(head []byte) Detected {
	if d, ok := detectByLine(head); ok {
		return d
	}
	var guesses []Detected
	for _, a := range agents.All() {
		if a.Transcripts == nil {
			continue
		}
		if d, ok := a.Transcripts.Detect(head); ok && !d.Guess {
			return d
		} else if ok {
			guesses = append(guesses, d)
		}
	}
	switch len(guesses) {
	case 0:
	case 1:
		return guesses[0]
	default:
		// Two agents guess (their databases look alike past what was
		// read): neither is named.
		var whose []string
		for _, g := range guesses {
			if a, ok := agents.Find(string(g.Agent)); ok {
				whose = append(whose, a.Display+"'s")
			}
		}
		slices.Sort(whose)
		return Detected{What: "a file whose content was not read far enough to tell whose it is (" + agents.OrList(whose...) + ", if any)"}
	}
	d := transcript.Detect(head)
	d.Agent = ""
	if strings.HasSuffix(d.What, transcript.KnownToThisVersion) {
		var names []string
		for _, a := range agents.All() {
			if a.Transcripts != nil {
				names = append(names, a.Display)
			}
		}
		// Sorted: the table's order says nothing.
		slices.Sort(names)
		d.What += " (" + strings.Join(names, ", ") + ")"
	}
	return d
}

// detectByLine is Detect's first pass: the line detectors of the table,
// line by line.
func detectByLine(head []byte) (Detected, bool) {
	var ds []agent.LineDetector
	for _, a := range agents.All() {
		if ld, ok := a.Transcripts.(agent.LineDetector); ok {
			ds = append(ds, ld)
		}
	}
	lines := bytes.Split(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte{'\n'})
	var first struct{}
	if len(ds) == 0 || transcript.Decode(bytes.TrimSpace(lines[0]), &first) != nil {
		return Detected{}, false
	}
	for i, line := range lines {
		if i == agent.MaxDetectLines {
			break
		}
		line = bytes.TrimSpace(line)
		for _, ld := range ds {
			if d, ok := ld.DetectLine(line); ok {
				return d, true
			}
		}
	}
	return Detected{}, false
}

package pi

// Finding pi's sessions and recognising one. pi 0.73.1 keeps each session
// in <agent dir>/sessions/--<cwd, '/' as '-'>--/<time>_<id>.jsonl
// (dist/core/session-manager.js, getDefaultSessionDir, newSession), and
// writes the file first when the session's first answer arrives
// (_persist): a file holds at least the header and one entry.

import (
	"bytes"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Find lists the session files in the project directories under roots,
// newest first.
func (transcripts) Find(roots []string) ([]transcript.SessionInfo, error) {
	var files []transcript.Candidate
	for _, root := range roots {
		for _, dir := range transcript.Subdirs(root) {
			n := len(files)
			transcript.ListFiles(dir, func(name string) bool { return strings.HasSuffix(name, ".jsonl") }, &files)
			for i := n; i < len(files); i++ {
				files[i].ID = idFromName(files[i].Path)
			}
		}
	}
	return transcript.ProbeSessions(transcript.Agent(Name), files, func() transcript.Prober { return &prober{} }), nil
}

// idFromName is the session id in a file's name, <time>_<id>.jsonl.
func idFromName(path string) string {
	stem := strings.TrimSuffix(path[strings.LastIndexAny(path, `/\`)+1:], ".jsonl")
	if _, id, ok := strings.Cut(stem, "_"); ok && id != "" {
		return id
	}
	return stem
}

// prober reads what discovery shows from the head and the tail of a
// session file: the header's id, directory and time, the session's name
// or first request, and its last entry's time.
type prober struct {
	// header is set once the first line was the header; notPi when it
	// was something else.
	header, notPi          bool
	entries                int
	id, cwd, name, request string
	started, last          time.Time
}

func (p *prober) Line(raw []byte, head, tail bool) {
	var l line
	if p.notPi || decode(raw, &l) != nil {
		return
	}
	if head && !p.header {
		if l.Type != "session" || l.ID == "" {
			p.notPi = true
			return
		}
		p.header, p.id, p.cwd = true, l.ID, l.CWD
		p.started, _ = transcript.ParseTime(l.Timestamp)
		return
	}
	if l.Type == "session" {
		return
	}
	p.entries++
	if t, ok := transcript.ParseTime(l.Timestamp); ok && tail && t.After(p.last) {
		p.last = t
	}
	switch {
	case l.Type == "session_info":
		// The latest name, "" clearing it; the tail's come after the head's.
		p.name = strings.TrimSpace(l.Name)
	case head && p.request == "" && l.Type == "message" && l.Message != nil && l.Message.Role == "user":
		p.request = firstLine(contentText(l.Message.Content))
	}
}

// Fill lists a file whose first line is pi's header and that holds an
// entry.
func (p *prober) Fill(s *transcript.SessionInfo) bool {
	if p.notPi || !p.header || p.entries == 0 {
		return false
	}
	transcript.Probed{ID: p.id, CWD: p.cwd, Titles: []string{p.name, p.request}, Started: p.started, Last: p.last}.Fill(s)
	return true
}

// firstLine is s up to its first line break, trimmed.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

// Detect says whether head starts a pi session file: a header line
// {"type": "session", "id", "cwd", …}. The same header starts what `pi
// --mode json` prints, followed by the agent's events instead of entries:
// that is recognised as pi's, and no session.
func (transcripts) Detect(head []byte) (transcript.Detected, bool) {
	lines := bytes.SplitN(head, []byte("\n"), 3)
	var h line
	if decode(lines[0], &h) != nil || h.Type != "session" || h.ID == "" || !bytes.Contains(lines[0], []byte(`"cwd"`)) {
		return transcript.Detected{}, false
	}
	if len(lines) > 1 {
		var next line
		if decode(lines[1], &next) == nil && streamEvent(next.Type) {
			return transcript.Detected{What: "pi's --mode json event stream, not a session file: capture reads ~/.pi/agent/sessions", Foreign: true}, true
		}
	}
	return transcript.Detected{Agent: transcript.Agent(Name), What: "a pi session"}, true
}

// streamEvent says whether typ is one of the events `pi --mode json`
// prints after the header (dist/modes/print-mode.js of 0.73.1: the agent
// session's events).
func streamEvent(typ string) bool {
	switch typ {
	case "agent_start", "agent_end", "turn_start", "turn_end",
		"message_start", "message_update", "message_end",
		"tool_execution_start", "tool_execution_update", "tool_execution_end",
		"queue_update", "compaction_start", "compaction_end",
		"auto_retry_start", "auto_retry_end", "thinking_level_changed", "session_info_changed":
		return true
	}
	return false
}

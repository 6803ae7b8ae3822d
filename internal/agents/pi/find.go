package pi

// Finding pi's sessions and recognising one. pi 0.73.1 keeps each session
// in <agent dir>/sessions/--<cwd, '/' as '-'>--/<time>_<id>.jsonl
// (dist/core/session-manager.js, getDefaultSessionDir, newSession), and
// writes the file first when the session's first answer arrives
// (_persist): a file holds at least the header and one entry.

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Bounds on discovery.
const (
	// maxListed caps the session files considered.
	maxListed = 100_000
	// maxProbed caps the files whose head is read; older ones are listed
	// from their names and times.
	maxProbed = 1000
	// probeBytes is the most of a file's head read for its header and
	// first request.
	probeBytes = 256 << 10
)

// Find lists the sessions in the project directories under roots, newest
// first.
func (transcripts) Find(roots []string) ([]transcript.SessionInfo, error) {
	var out []transcript.SessionInfo
	for _, root := range roots {
		projects, err := os.ReadDir(root)
		if err != nil {
			continue // a missing directory is no error
		}
		for _, p := range projects {
			if !p.IsDir() {
				continue
			}
			files, err := os.ReadDir(filepath.Join(root, p.Name()))
			if err != nil {
				continue
			}
			for _, f := range files {
				if len(out) >= maxListed {
					break
				}
				if !f.Type().IsRegular() || !strings.HasSuffix(f.Name(), ".jsonl") {
					continue
				}
				fi, err := f.Info()
				if err != nil {
					continue
				}
				out = append(out, transcript.SessionInfo{Agent: transcript.Agent(Name),
					Path: filepath.Join(root, p.Name(), f.Name()), ID: idFromName(f.Name()), LastActivity: fi.ModTime()})
			}
		}
	}
	slices.SortFunc(out, func(a, b transcript.SessionInfo) int {
		if c := b.LastActivity.Compare(a.LastActivity); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	keep := out[:0]
	for i, s := range out {
		if i < maxProbed && !probe(&s) {
			continue // no pi session, or one with nothing in it
		}
		keep = append(keep, s)
	}
	return keep, nil
}

// idFromName is the session id in a file's name, <time>_<id>.jsonl.
func idFromName(name string) string {
	stem := strings.TrimSuffix(name, ".jsonl")
	if _, id, ok := strings.Cut(stem, "_"); ok && id != "" {
		return id
	}
	return stem
}

// probe fills s from the head of its file: the header's id, directory
// and time, and the first request for a title. It is false for a file
// that is no pi session or holds no entry.
func probe(s *transcript.SessionInfo) bool {
	f, err := os.Open(s.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, probeBytes))
	sc.Buffer(nil, probeBytes)
	first, entries := true, 0
	for sc.Scan() {
		raw := sc.Bytes()
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l line
		if decode(raw, &l) != nil {
			continue
		}
		if first {
			if l.Type != "session" || l.ID == "" {
				return false
			}
			first = false
			s.ID, s.CWD = transcript.ShortenHead(l.ID, 128), l.CWD
			if t, ok := transcript.ParseTime(l.Timestamp); ok {
				s.Started = t
			}
			continue
		}
		entries++
		if l.Type == "session_info" {
			s.Title = transcript.ShortenHead(strings.TrimSpace(l.Name), transcript.MaxTitle)
		}
		if s.Title == "" && l.Type == "message" && l.Message != nil && l.Message.Role == "user" {
			s.Title = transcript.ShortenHead(firstLine(contentText(l.Message.Content)), transcript.MaxTitle)
		}
	}
	return !first && entries > 0
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

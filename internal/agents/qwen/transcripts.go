package qwen

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Transcripts finds, recognises and reads Qwen Code's sessions.
type Transcripts struct{}

// probe is what recognition and discovery decode of a line.
type probe struct {
	UUID          string          `json:"uuid"`
	SessionID     string          `json:"sessionId"`
	Type          string          `json:"type"`
	Subtype       string          `json:"subtype"`
	Timestamp     string          `json:"timestamp"`
	CWD           string          `json:"cwd"`
	Version       string          `json:"version"`
	Message       *content        `json:"message"`
	SystemPayload json.RawMessage `json:"systemPayload"`
}

// qwenLine says whether p is a line of a Qwen Code session: a record of
// the chain (uuid, sessionId) of one of its types that carries Gemini's
// Content (message.parts) or a systemPayload. Claude Code's records,
// alike in uuid and sessionId, carry message.content and no
// systemPayload; Gemini CLI's chat lines have no uuid.
func (p *probe) qwenLine() bool {
	if p.UUID == "" || p.SessionID == "" {
		return false
	}
	switch p.Type {
	case "user", "assistant", "tool_result", "system":
	default:
		return false
	}
	return p.Message != nil && p.Message.Parts != nil || len(p.SystemPayload) > 0
}

// Detect says whether head, the start of a file, is a Qwen Code session:
// one of its first 50 lines is a Qwen Code record.
func (Transcripts) Detect(head []byte) (transcript.Detected, bool) {
	lines := bytes.Split(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte{'\n'})
	for i, line := range lines {
		if i == 50 {
			break
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var p probe
		if transcript.Decode(line, &p) != nil {
			continue
		}
		if p.qwenLine() {
			return transcript.Detected{Agent: agentName, What: "a Qwen Code session transcript"}, true
		}
	}
	return transcript.Detected{}, false
}

// Find lists the sessions under roots (each a projects directory): every
// projects/*/chats/*.jsonl, newest first. A subagent's transcript is
// under projects/*/subagents, never listed; a file with no line (the CLI
// creates the file before its first record) is no session.
func (Transcripts) Find(roots []string) ([]transcript.SessionInfo, error) {
	var files []transcript.Candidate
	for _, root := range roots {
		for _, project := range transcript.Subdirs(root) {
			n := len(files)
			transcript.ListFiles(filepath.Join(project, "chats"), func(name string) bool { return strings.HasSuffix(name, ".jsonl") }, &files)
			for i := n; i < len(files); i++ {
				files[i].ID = strings.TrimSuffix(filepath.Base(files[i].Path), ".jsonl")
			}
		}
	}
	return transcript.ProbeSessions(agentName, files, func() transcript.Prober { return &prober{} }), nil
}

// prober reads what discovery shows of a session: from the head its id,
// directory, start and first request; from the tail the title the user
// or the CLI gave it (re-appended there to stay near the end) and its
// last activity; the version from both.
type prober struct {
	lines                         int
	id, cwd, request, title, vers string
	started, last                 time.Time
}

func (p *prober) Line(line []byte, head, tail bool) {
	p.lines++
	var l probe
	if transcript.Decode(line, &l) != nil || !l.qwenLine() {
		return
	}
	t, hasTime := transcript.ParseTime(l.Timestamp)
	if head && p.id == "" {
		p.id, p.cwd = l.SessionID, l.CWD
		if hasTime {
			p.started = t
		}
	}
	if head && p.request == "" && l.Type == "user" && l.Subtype == "" {
		p.request = requestText(l.Message, l.SystemPayload)
	}
	if tail && hasTime {
		p.last = t
	}
	if tail && l.Type == "system" && l.Subtype == "custom_title" {
		var tp titlePayload
		if transcript.Decode(l.SystemPayload, &tp) == nil && strings.TrimSpace(tp.CustomTitle) != "" {
			p.title = tp.CustomTitle
		}
	}
	if l.Version != "" && l.Version != "unknown" {
		p.vers = l.Version
	}
}

func (p *prober) Fill(s *transcript.SessionInfo) bool {
	if p.lines == 0 {
		return false
	}
	if p.id != "" {
		s.ID = transcript.ShortenHead(transcript.Clean(p.id), 200)
	}
	s.CWD = transcript.Clean(p.cwd)
	s.Title = p.title
	if s.Title == "" {
		s.Title = p.request
	}
	s.Title = transcript.ShortenHead(strings.TrimSpace(transcript.Clean(s.Title)), 200)
	s.Started = p.started
	if !p.last.IsZero() {
		s.LastActivity = p.last
	}
	s.AgentVersion = transcript.ShortenHead(transcript.Clean(p.vers), 64)
	return true
}

package qwen

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// Bounds on discovery.
const (
	// maxListed caps the transcript files considered.
	maxListed = 100_000
	// maxProbed caps the files whose head is read; older ones are listed
	// from their names and times only.
	maxProbed = 1000
	headBytes = 64 << 10
)

// Find lists the sessions under roots (each a projects directory): every
// projects/*/chats/*.jsonl, newest first. A subagent's transcript is
// under projects/*/subagents, never listed; an empty file (the CLI
// creates the file before its first record) is no session.
func (Transcripts) Find(roots []string) ([]transcript.SessionInfo, error) {
	var out []transcript.SessionInfo
	for _, root := range roots {
		projects, err := os.ReadDir(root)
		if err != nil {
			continue // a missing root has no sessions
		}
		for _, p := range projects {
			if !p.IsDir() {
				continue
			}
			chats := filepath.Join(root, p.Name(), "chats")
			files, err := os.ReadDir(chats)
			if err != nil {
				continue
			}
			for _, f := range files {
				name := f.Name()
				if !f.Type().IsRegular() || !strings.HasSuffix(name, ".jsonl") || len(out) >= maxListed {
					continue
				}
				fi, err := f.Info()
				if err != nil || fi.Size() == 0 {
					continue
				}
				out = append(out, transcript.SessionInfo{Agent: agentName, ID: strings.TrimSuffix(name, ".jsonl"),
					Path: filepath.Join(chats, name), LastActivity: fi.ModTime()})
			}
		}
	}
	slices.SortFunc(out, func(a, b transcript.SessionInfo) int {
		if c := b.LastActivity.Compare(a.LastActivity); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	for i := range out[:min(len(out), maxProbed)] {
		probeSession(&out[i])
	}
	return out, nil
}

// probeSession reads the head of s's file for its id, directory, start,
// version and first request, where its Qwen Code records say them.
func probeSession(s *transcript.SessionInfo) {
	f, err := os.Open(s.Path)
	if err != nil {
		return
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, headBytes))
	if err != nil {
		return
	}
	found := false
	for _, line := range bytes.Split(head, []byte{'\n'}) {
		var p probe
		if transcript.Decode(line, &p) != nil || !p.qwenLine() {
			continue
		}
		if !found {
			found = true
			s.ID = transcript.ShortenHead(transcript.Clean(p.SessionID), 200)
			s.CWD = transcript.Clean(p.CWD)
			if t, ok := transcript.ParseTime(p.Timestamp); ok {
				s.Started = t
			}
		}
		if p.Version != "" && p.Version != "unknown" {
			s.AgentVersion = transcript.ShortenHead(transcript.Clean(p.Version), 64)
		}
		if s.Title == "" && p.Type == "user" && p.Subtype == "" {
			s.Title = transcript.ShortenHead(strings.TrimSpace(transcript.Clean(requestText(p.Message, p.SystemPayload))), 200)
		}
	}
}

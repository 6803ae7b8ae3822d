package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Transcripts finds, recognises and reads Gemini CLI's chat recordings.
type Transcripts struct{}

// Read reads the recording at path and folds in its subagents'
// recordings; id is unused: a file holds one session.
func (Transcripts) Read(path, _ string, lim transcript.Limits) (*transcript.Digest, error) {
	return transcript.ReadOpen(path, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
		return readFile(r, lim, path)
	})
}

// Subagents: a subagent's recording has kind "subagent" in its metadata
// and, since v0.36, lies in chats/<parent session id>/
// (google-gemini/gemini-cli packages/core/src/services/
// chatRecordingService.ts, initialize; the id sanitized by
// sanitizeFilenamePart, packages/core/src/utils/fileUtils.ts). From v0.30
// to v0.35 it lay beside the others and named no parent. Such a recording
// is never a session to hand on: discovery leaves it out, capture refuses
// it and names its parent, and reading the parent folds in the files the
// subagents touched and the commands they ran, marked as theirs.

// maxSubagents bounds the subagents' recordings folded into a session.
const maxSubagents = 64

// maxID bounds a session id, as the record's schema does.
const maxID = 256

// readFile reads the recording at file and folds in its subagents'
// recordings, which lie in chats/<session id>/.
func readFile(r *io.SectionReader, lim transcript.Limits, file string) (*transcript.Digest, error) {
	d, err := read(r, lim, projectRoot(file))
	if err != nil {
		return nil, err
	}
	if d.Subagent {
		if dir := filepath.Base(filepath.Dir(file)); dir != "chats" && dir != "." && dir != string(filepath.Separator) {
			d.Parent = transcript.ShortenHead(dir, maxID)
		}
		return d, nil
	}
	if d.Session.ID == "" {
		return d, nil
	}
	lim.Observe = nil // a subagent's turns are not the session's
	var kids []transcript.Candidate
	transcript.ListFiles(filepath.Join(filepath.Dir(file), safeName(d.Session.ID)), func(name string) bool {
		return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")
	}, &kids)
	slices.SortFunc(kids, func(a, b transcript.Candidate) int { return strings.Compare(a.Path, b.Path) })
	for _, k := range kids[:min(len(kids), maxSubagents)] {
		kid, err := transcript.ReadOpen(k.Path, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
			return read(r, lim, d.CWD)
		})
		if err == nil && kid.Subagent {
			transcript.MergeSubagent(d, kid, "subagent "+untrusted.OneLine(kid.Session.ID, 64))
		}
	}
	return d, nil
}

// safeName is Gemini CLI's sanitizeFilenamePart: every character but
// ASCII letters, digits, _ and - becomes _.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// projectRoot reads the .project_root marker that Gemini CLI keeps in a
// project's directory under ~/.gemini/tmp, for a recording at file
// (chats/x.jsonl, or chats/<parent>/x.jsonl for a subagent).
func projectRoot(file string) string {
	dir := filepath.Dir(filepath.Dir(file))
	for range 2 {
		if root := readSmall(filepath.Join(dir, ".project_root"), 4096); root != "" {
			root = strings.TrimSpace(root)
			if strings.HasPrefix(root, "/") && !strings.ContainsAny(root, "\n\x00") {
				return root
			}
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// readSmall returns the start of a small regular file, at most n bytes,
// or "" when it cannot.
func readSmall(file string, n int64) string {
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, _, err := safefile.OpenRegular(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return ""
	}
	return transcript.Clean(string(b))
}

// maxSmallJSON bounds the older single-object recordings discovery reads
// whole.
const maxSmallJSON = 8 << 20

// Find lists the chats under roots[0], Gemini CLI's tmp directory, whose
// parent holds its projects.json: every tmp/*/chats/session-*.jsonl, and
// the older session-*.json beside no .jsonl successor, newest first. A
// subagent's recording is never listed.
func (Transcripts) Find(roots []string) ([]transcript.SessionInfo, error) {
	ss := transcript.ProbeSessionsWith(agentName, files(roots), func(s *transcript.SessionInfo) bool {
		if strings.HasSuffix(s.Path, ".json") {
			return probeObject(s)
		}
		return transcript.ProbeFile(s, &prober{})
	})
	for i := range ss {
		if ss[i].FiledUnder == nil {
			ss[i].FiledUnder = filedUnder(ss[i].Path, "")
		}
	}
	return oneFilePerSession(ss), nil
}

// oneFilePerSession keeps one recording of each session id: resuming a
// session (gemini --resume) can leave a second file under the same id
// that holds no conversation (issue 45: capture by id was "ambiguous",
// and sessions listed it twice, once untitled). The one kept holds the
// conversation (a title), and of those the latest; ss stays newest first.
func oneFilePerSession(ss []transcript.SessionInfo) []transcript.SessionInfo {
	best := map[string]int{}
	for i, s := range ss {
		j, seen := best[s.ID]
		if !seen || better(s, ss[j]) {
			best[s.ID] = i
		}
	}
	if len(best) == len(ss) {
		return ss
	}
	out := ss[:0:0]
	for i, s := range ss {
		if best[s.ID] == i {
			out = append(out, s)
		}
	}
	return out
}

// better says whether a is the recording to keep over b, of one session.
func better(a, b transcript.SessionInfo) bool {
	if (a.Title != "") != (b.Title != "") {
		return a.Title != ""
	}
	return a.LastActivity.After(b.LastActivity)
}

// filedUnder says whether Gemini CLI filed the recording at file, whose
// metadata gives projectHash, under the project at dir: in its older
// layout, a project's directory under tmp is named after the SHA-256 of
// its root, which the recording states too.
func filedUnder(file, projectHash string) func(dir string) bool {
	return func(dir string) bool {
		sum := sha256.Sum256([]byte(dir))
		h := hex.EncodeToString(sum[:])
		return projectHash == h || filepath.Base(filepath.Dir(filepath.Dir(file))) == h
	}
}

func files(roots []string) []transcript.Candidate {
	if len(roots) == 0 {
		return nil
	}
	root := filepath.Dir(roots[0])
	registry := projectRegistry(filepath.Join(root, "projects.json"))
	var out []transcript.Candidate
	for _, proj := range transcript.Subdirs(filepath.Join(root, "tmp")) {
		cwd := projectRoot(filepath.Join(proj, "chats", "x"))
		if cwd == "" {
			cwd = registry[filepath.Base(proj)]
		}
		n := len(out)
		transcript.ListFiles(filepath.Join(proj, "chats"), func(name string) bool {
			return strings.HasPrefix(name, "session-") && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json"))
		}, &out)
		// A migrated .json sits beside its .jsonl successor.
		have := map[string]bool{}
		for _, c := range out[n:] {
			have[c.Path] = true
		}
		kept := out[:n]
		for _, c := range out[n:] {
			if strings.HasSuffix(c.Path, ".json") && have[c.Path+"l"] {
				continue
			}
			c.CWD = cwd
			c.ID = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(c.Path), ".jsonl"), ".json")
			kept = append(kept, c)
		}
		out = kept
	}
	return out
}

// projectRegistry reads ~/.gemini/projects.json, which maps project roots
// to the short names of their directories, and returns it inverted.
func projectRegistry(file string) map[string]string {
	data := readSmall(file, 1<<20)
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if data == "" || json.Unmarshal([]byte(data), &reg) != nil {
		return nil
	}
	out := map[string]string{}
	for root, slug := range reg.Projects {
		if filepath.IsAbs(root) {
			out[slug] = root
		}
	}
	return out
}

// probeObject fills s from an older single-object recording, read whole
// when it is small; it says whether s is a session to list.
func probeObject(s *transcript.SessionInfo) bool {
	d, err := transcript.ReadOpen(s.Path, transcript.Limits{MaxFile: maxSmallJSON, MaxLine: maxSmallJSON}, func(r *io.SectionReader) (*transcript.Digest, error) {
		return read(r, transcript.Limits{MaxFile: maxSmallJSON, MaxLine: maxSmallJSON}, s.CWD)
	})
	if err != nil {
		return true
	}
	s.ID = firstNonEmpty(d.Session.ID, s.ID)
	s.CWD = firstNonEmpty(d.CWD, s.CWD)
	s.Title = d.Title
	if d.Session.StartedAt != nil {
		s.Started = *d.Session.StartedAt
	}
	if d.Session.LastActivity != nil {
		s.LastActivity = *d.Session.LastActivity
	}
	return !d.Subagent
}

// probeLine is a line of a recording as discovery reads it.
type probeLine struct {
	Set            *meta           `json:"$set"`
	ID             *string         `json:"id"`
	Type           string          `json:"type"`
	Timestamp      string          `json:"timestamp"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent"`
	ToolCalls      []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Args   struct {
			Title string `json:"title"`
		} `json:"args"`
	} `json:"toolCalls"`
	SessionID *string `json:"sessionId"`
}

// prober gathers what discovery shows from a recording's lines: the
// metadata (id, project, times, directory, whether it is a subagent's),
// the first request, the last topic title and the summary.
type prober struct {
	id, cwd, hash            string
	started, last            time.Time
	firstReq, topic, summary string
	metaSeen, subagent       bool
}

func (p *prober) Line(data []byte, head, tail bool) {
	var l probeLine
	if transcript.Decode(data, &l) != nil {
		return
	}
	if head {
		p.line(&l, data, true)
	}
	if tail {
		p.line(&l, data, false)
	}
}

func (p *prober) line(l *probeLine, data []byte, head bool) {
	if ts, ok := transcript.ParseTime(l.Timestamp); ok {
		if head && p.started.IsZero() {
			p.started = ts
		}
		if !head && ts.After(p.last) {
			p.last = ts
		}
	}
	if set := l.Set; set != nil {
		p.summary = firstNonEmpty(str(set.Summary), p.summary)
		if str(set.Kind) == "subagent" {
			p.subagent = true
		}
		if t, ok := transcript.ParseTime(str(set.LastUpdated)); ok && t.After(p.last) {
			p.last = t
		}
		return
	}
	if l.ID != nil {
		switch l.Type {
		case "user":
			if head && p.firstReq == "" {
				if r, _ := request(l.DisplayContent, userText(l.Content)); !transcript.IsSlashCommand(r) {
					p.firstReq = r
				}
			}
		case "gemini":
			if head {
				return // the topic that counts is the last one, in the tail
			}
			for _, tc := range l.ToolCalls {
				if tc.Name == "update_topic" && tc.Status != "error" {
					p.topic = firstNonEmpty(strings.TrimSpace(tc.Args.Title), p.topic)
				}
			}
		}
		return
	}
	if l.SessionID != nil && head && !p.metaSeen {
		var m meta
		_ = transcript.Decode(data, &m)
		p.metaSeen = true
		p.id, p.hash = str(m.SessionID), str(m.ProjectHash)
		p.subagent = str(m.Kind) == "subagent"
		p.summary = firstNonEmpty(str(m.Summary), p.summary)
		if t, ok := transcript.ParseTime(str(m.StartTime)); ok {
			p.started = t
		}
		if t, ok := transcript.ParseTime(str(m.LastUpdated)); ok && t.After(p.last) {
			p.last = t
		}
		p.cwd = m.dir()
	}
}

func (p *prober) Fill(s *transcript.SessionInfo) bool {
	transcript.Probed{ID: p.id, CWD: p.cwd, Started: p.started, Last: p.last,
		Titles: []string{p.topic, p.summary, p.firstReq}}.Fill(s)
	s.FiledUnder = filedUnder(s.Path, p.hash)
	return !p.subagent
}

// Detect says whether head, the start of a file, is a Gemini CLI chat
// recording, or its prompt log (logs.json, Foreign). A chat is JSON Lines
// opening with {sessionId, projectHash, startTime, kind} and messages,
// $set and $rewindTo lines (one of the first lines says it: DetectLine), or, up to
// early 2026, one JSON object with sessionId and messages spread over many
// lines; logs.json is a JSON array of {sessionId, messageId, type,
// message}.
func (t Transcripts) Detect(head []byte) (transcript.Detected, bool) {
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case len(trimmed) == 0:
		return transcript.Detected{}, false
	case trimmed[0] == '[':
		if bytes.Contains(trimmed, []byte(`"messageId"`)) && bytes.Contains(trimmed, []byte(`"sessionId"`)) {
			return transcript.Detected{What: "a Gemini CLI prompt log (logs.json), not a chat recording: capture reads ~/.gemini/tmp/*/chats", Foreign: true}, true
		}
		return transcript.Detected{}, false
	case trimmed[0] != '{':
		return transcript.Detected{}, false
	}
	lines := bytes.Split(trimmed, []byte{'\n'})
	var first struct{}
	if transcript.Decode(bytes.TrimSpace(lines[0]), &first) != nil {
		// A chat of one object spans many lines: its first line is not
		// a whole object. Another agent's session of one object has
		// these keys too, beside updated_at and origin, which a Gemini
		// chat has not.
		other := bytes.Contains(trimmed, []byte(`"updated_at"`)) && bytes.Contains(trimmed, []byte(`"origin"`))
		if bytes.Contains(trimmed, []byte(`"messages"`)) && bytes.Contains(trimmed, []byte(`"sessionId"`)) && !other {
			return chatRecording, true
		}
		return transcript.Detected{}, false
	}
	for i, line := range lines {
		if i == agent.MaxDetectLines {
			break
		}
		if d, ok := t.DetectLine(bytes.TrimSpace(line)); ok {
			return d, true
		}
	}
	return transcript.Detected{}, false
}

// DetectLine says whether line is one of a Gemini CLI chat recording's in
// JSON Lines (agent.LineDetector): its head {sessionId, projectHash…}, or
// a $set or $rewindTo line.
func (Transcripts) DetectLine(line []byte) (transcript.Detected, bool) {
	var d struct {
		Set         json.RawMessage `json:"$set"`
		RewindTo    json.RawMessage `json:"$rewindTo"`
		SessionID   string          `json:"sessionId"`
		ProjectHash string          `json:"projectHash"`
	}
	if transcript.Decode(line, &d) != nil {
		return transcript.Detected{}, false
	}
	if notNull(d.Set) || notNull(d.RewindTo) || d.SessionID != "" && d.ProjectHash != "" {
		return chatRecording, true
	}
	return transcript.Detected{}, false
}

// chatRecording is what a Gemini CLI chat recording is detected as.
var chatRecording = transcript.Detected{Agent: agentName, What: "a Gemini CLI chat recording"}

func notNull(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

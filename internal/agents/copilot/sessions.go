package copilot

import (
	"bufio"
	"cmp"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// eventsFile is the name of a session's event log.
const eventsFile = "events.jsonl"

// Its directory is $COPILOT_HOME, else ~/.copilot; versions before the
// "XDG migration" kept session-state under $XDG_STATE_HOME/.copilot, which
// 1.0.102 moves to ~/.copilot when it starts (cli-main.js of
// @github/copilot 1.0.102: NJ, VEt, x4n).
func dirs(home string, getenv func(string) string) []string {
	if d := getenv("COPILOT_HOME"); d != "" {
		return []string{d}
	}
	out := []string{filepath.Join(home, ".copilot")}
	if st := getenv("XDG_STATE_HOME"); st != "" && filepath.IsAbs(st) {
		out = append(out, filepath.Join(st, ".copilot"))
	}
	return out
}

// sessions is how Copilot's sessions are found, recognised and read
// (agent.Transcripts).
type sessions struct{}

// Find lists the event logs under the session-state directories, one
// directory a session.
func (sessions) Find(roots []string) ([]transcript.SessionInfo, error) {
	var files []transcript.Candidate
	for _, root := range roots {
		for _, dir := range transcript.Subdirs(root) {
			n := len(files)
			transcript.ListFiles(dir, func(name string) bool { return name == eventsFile }, &files)
			for i := n; i < len(files); i++ {
				files[i].ID = filepath.Base(dir)
			}
		}
	}
	return transcript.ProbeSessions(transcript.Agent(Name), files, func() transcript.Prober { return &prober{} }), nil
}

// Detect recognises an event log by its first lines.
func (sessions) Detect(head []byte) (transcript.Detected, bool) {
	for i, line := range strings.Split(string(head), "\n") {
		if i == 50 {
			break
		}
		if isEvent([]byte(line)) {
			return transcript.Detected{Agent: transcript.Agent(Name), What: "a GitHub Copilot CLI session log (events.jsonl)"}, true
		}
	}
	return transcript.Detected{}, false
}

// Read reads the event log at path; id is unused.
func (sessions) Read(path, _ string, lim transcript.Limits) (*transcript.Digest, error) {
	return transcript.ReadOpen(path, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
		return readFile(r, lim, path)
	})
}

// prober reads what discovery shows from the head and the tail of a log.
type prober struct {
	id, cwd, version, firstReq, title string
	started, last                     time.Time
}

func (p *prober) Line(line []byte, head, tail bool) {
	var e event
	if transcript.Decode(line, &e) != nil {
		return
	}
	if t, ok := transcript.ParseTime(e.Timestamp); ok {
		if head && p.started.IsZero() {
			p.started = t
		}
		if tail && t.After(p.last) {
			p.last = t
		}
	}
	data := &e.Data
	switch e.Type {
	case "session.start":
		p.id = cmp.Or(p.id, data.SessionID)
		p.version = cmp.Or(data.CopilotVersion, p.version)
		p.cwd = cmp.Or(p.cwd, data.Context.CWD)
	case "session.resume":
		p.cwd = cmp.Or(p.cwd, data.Context.CWD)
	case "user.message":
		if head && p.firstReq == "" {
			p.firstReq = data.Content
		}
	case "session.title_changed":
		p.title = cmp.Or(data.Title, p.title)
	}
}

// Fill takes the title from workspace.yaml when the user named the
// session, or when the log gave none.
func (p *prober) Fill(s *transcript.SessionInfo) bool {
	transcript.Probed{ID: p.id, CWD: p.cwd, Version: p.version, Titles: []string{p.title, p.firstReq},
		Started: p.started, Last: p.last}.Fill(s)
	if name, user := workspaceName(filepath.Join(filepath.Dir(s.Path), "workspace.yaml")); name != "" && (user || s.Title == "") {
		s.Title = transcript.TitleFrom(name)
	}
	return true
}

// workspaceName reads the name: line of a session's workspace.yaml and
// whether the user gave it (user_named: true). Only these two scalar lines
// are read, from the first 64 KiB.
func workspaceName(file string) (name string, user bool) {
	f, _, err := safefile.OpenRegular(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch k {
		case "name":
			name = yamlScalar(v)
		case "user_named":
			user = yamlScalar(v) == "true"
		}
	}
	return name, user
}

// yamlScalar reads a one-line YAML scalar: plain, or quoted in ' or ".
// Anything it cannot read plainly (a block, an escape) is taken as it is.
func yamlScalar(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '\'' && v[len(v)-1] == '\'') {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && !strings.Contains(v, `\`) {
		return v[1 : len(v)-1]
	}
	return v
}

// maxID bounds a session id (the record schema's session.id maxLength).
const maxID = 256

// EventsFile is the event log of the session id, in the first of roots
// (the agent's session directories) that holds it; "" when none does or id
// is not a plain name (it comes from a hook's input).
func EventsFile(id string, roots []string) string {
	if !IsSessionID(id) {
		return ""
	}
	for _, root := range roots {
		p := filepath.Join(root, id, eventsFile)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// IsSessionID says whether id can name a session directory: one plain
// path element, bounded.
func IsSessionID(id string) bool {
	return id != "" && id == filepath.Base(id) && id != "." && id != ".." && len(id) <= maxID && !strings.ContainsRune(id, '\\')
}

// Ended says whether the event log file has grown past size and now ends
// with a session.shutdown line: GitHub Copilot CLI 1.0.102 keeps a run's
// events in memory and writes them when the session shuts down, after its
// sessionEnd hook has run (seen offline: at sessionEnd and at agentStop
// the file held session.start and the hook's lines only).
func Ended(file string, size int64) bool {
	f, _, err := safefile.OpenRegular(file)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= size {
		return false
	}
	const tail = 64 << 10
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return false
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	return strings.Contains(lines[len(lines)-1], `"type":"session.shutdown"`)
}

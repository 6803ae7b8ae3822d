package claude

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Transcripts finds, recognises and reads Claude Code's sessions.
type Transcripts struct{}

// Read reads the Claude Code session at path, its subagents' transcripts
// folded in; id is unused: a file holds one session.
func (Transcripts) Read(path, _ string, lim transcript.Limits) (*transcript.Digest, error) {
	lim = lim.WithDefaults()
	return transcript.ReadOpen(path, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
		d, err := read(r, lim, false)
		if err == nil {
			foldSubagents(d, path, lim)
		}
		return d, err
	})
}

// Find lists the sessions under roots (each a projects directory): every
// projects/*/*.jsonl but the subagents', newest first, each with the
// subagents it ran.
func (Transcripts) Find(roots []string) ([]transcript.SessionInfo, error) {
	var files []transcript.Candidate
	for _, root := range roots {
		for _, proj := range transcript.Subdirs(root) {
			n := len(files)
			// A subagent's file is part of its session, never one.
			transcript.ListFiles(proj, func(name string) bool { return strings.HasSuffix(name, ".jsonl") && !isSubagentName(name) }, &files)
			for i := n; i < len(files); i++ {
				files[i].ID = strings.TrimSuffix(filepath.Base(files[i].Path), ".jsonl")
			}
		}
	}
	// ProbeSessions probes the newest files, in this order.
	slices.SortFunc(files, func(a, b transcript.Candidate) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	out := transcript.ProbeSessions(agentName, files, func() transcript.Prober { return &prober{} })
	olderSubagents(out, files[:min(len(files), transcript.MaxProbed)])
	for i := range out {
		out[i].FiledUnder = filedUnder(out[i].Path)
	}
	return out, nil
}

// filedUnder says whether Claude Code filed the session at path under the
// project at a directory: the session's directory is named after the
// project's path (ProjectName, or the older naming).
func filedUnder(path string) func(dir string) bool {
	name := filepath.Base(filepath.Dir(path))
	return func(dir string) bool { return name == ProjectName(dir) || name == projectNameOld(dir) }
}

// prober reads what discovery shows of a session: its id, directory,
// times, version, titles and first request.
type prober struct {
	l                   found // the line read, reused
	id, cwd, version    string
	started, last       time.Time
	firstReq            string
	custom, ai, summary string
}

func (p *prober) Line(raw []byte, head, tail bool) {
	l := &p.l
	*l = found{}
	if transcript.Decode(raw, l) != nil {
		return
	}
	// A file small enough gives each line once, as head and tail.
	if head {
		p.line(l, raw, true)
	}
	if tail {
		p.line(l, raw, false)
	}
}

func (p *prober) line(l *found, raw []byte, head bool) {
	if ts, ok := transcript.ParseTime(l.Timestamp); ok {
		if head && p.started.IsZero() {
			p.started = ts
		}
		if !head && ts.After(p.last) {
			p.last = ts
		}
	}
	switch l.Type {
	case "summary":
		p.summary = firstNonEmpty(l.Summary, p.summary)
	case "custom-title":
		p.custom = firstNonEmpty(l.CustomTitle, p.custom)
	case "ai-title":
		p.ai = firstNonEmpty(l.AITitle, p.ai)
	case "user":
		if l.IsSidechain {
			return
		}
		if l.Version != "" && !head {
			p.version = l.Version
		}
		if p.cwd == "" {
			p.cwd = l.CWD
		}
		if p.id == "" {
			p.id = l.SessionID
		}
		if head && p.firstReq == "" {
			p.firstReq = firstRequest(l, raw)
		}
	case "assistant", "system":
		if p.cwd == "" && !l.IsSidechain {
			p.cwd = l.CWD
		}
		if l.Version != "" && !head && !l.IsSidechain {
			p.version = l.Version
		}
	}
}

// firstRequest is the request a user line makes, as the digest keeps it;
// "" for none.
func firstRequest(l *found, raw []byte) string {
	if l.IsMeta || l.Message == nil || l.IsCompactSummary {
		return ""
	}
	texts, results, ok := l.Message.userTexts(raw)
	if !ok || results > 0 {
		return ""
	}
	req := requestOrSummary(texts)
	if strings.HasPrefix(req, continuation) {
		return ""
	}
	return transcript.ShortenMiddle(req, transcript.MaxLastRequest)
}

func (p *prober) Fill(s *transcript.SessionInfo) bool {
	transcript.Probed{ID: p.id, CWD: p.cwd, Version: p.version, Started: p.started, Last: p.last,
		Titles: []string{p.custom, p.ai, p.summary, p.firstReq}}.Fill(s)
	ownSubagents(s)
	return true
}

// Claude Code writes what a subagent (the Task, later Agent, tool) does to
// a file of its own, every line marked isSidechain:
// <project dir>/<session id>/subagents/agent-<agent id>.jsonl, or one
// directory deeper for a group of agents (Claude Code 2.1.88
// src/utils/sessionStorage.ts getAgentTranscriptPath, and the real 2.1.7
// transcript incremental-subagents-turn-2 in testdata/transcripts/real). Versions 2.0.x
// wrote it beside the session's own file, as <project
// dir>/agent-<agent id>.jsonl; 1.0.x wrote the sidechain lines into the
// session's own file. Such a file is part of its session: discovery
// never lists it as a session, and capturing the session folds the
// subagents' commands and edits into the handoff, marked as theirs.

// Bounds on the subagents of one session.
const (
	// subagentHead bounds what is read of an older-layout agent file to
	// learn its session, and maxAgentProbes how many such files are read
	// for one session.
	subagentHead   = 32 << 10
	maxAgentProbes = 256
)

// isSubagentName reports whether a file name is a subagent's transcript.
func isSubagentName(name string) bool {
	return strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl")
}

// subagentFiles lists the subagent transcripts of the Claude Code session
// whose file is session (id, the session's id): those under
// <dir>/<stem>/subagents/, and older-layout agent-*.jsonl files beside it
// whose lines name the session. At most transcript.MaxSubagents, by name.
func subagentFiles(session, id string) []string {
	dir := filepath.Dir(session)
	sub := filepath.Join(dir, strings.TrimSuffix(filepath.Base(session), ".jsonl"), "subagents")
	var out []string
	var add func(d string, depth int)
	add = func(d string, depth int) {
		entries, err := transcript.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			if len(out) >= transcript.MaxSubagents {
				return
			}
			switch {
			case e.Type().IsRegular() && isSubagentName(e.Name()):
				out = append(out, filepath.Join(d, e.Name()))
			case e.IsDir() && depth == 0:
				add(filepath.Join(d, e.Name()), 1)
			}
		}
	}
	add(sub, 0)
	if id != "" {
		entries, _ := transcript.ReadDir(dir)
		probes := 0
		for _, e := range entries {
			if len(out) >= transcript.MaxSubagents || probes >= maxAgentProbes {
				break
			}
			if e.Type().IsRegular() && isSubagentName(e.Name()) {
				probes++
				p := filepath.Join(dir, e.Name())
				if s, _, _ := subagentHeadOf(p); s == id {
					out = append(out, p)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// subagentHeadOf reads the session id, agent id and Claude Code version
// from the first lines of a subagent file.
func subagentHeadOf(file string) (session, agent, version string) {
	f, _, err := safefile.OpenRegular(file)
	if err != nil {
		return "", "", ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", "", ""
	}
	var st transcript.Stats
	var l found
	_ = transcript.EachLine(io.NewSectionReader(f, 0, min(fi.Size(), subagentHead)), transcript.Limits{}, &st, func(raw []byte) error {
		l = found{}
		if err := transcript.Decode(raw, &l); err != nil {
			return err
		}
		if session == "" && l.IsSidechain {
			session, agent, version = l.SessionID, l.AgentID, l.Version
		}
		return nil
	})
	return transcript.ShortenHead(session, transcript.MaxID), transcript.ShortenHead(agent, 64), transcript.ShortenHead(version, maxVersion)
}

// agentID is the agent id a subagent file's name carries.
func agentID(file string) string {
	return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "agent-"), ".jsonl")
}

// foldSubagents reads the subagent transcripts of the session at file
// and adds their commands and file edits to d, each marked By "subagent
// <id>". A file the parent touched as well stays the parent's, with the
// subagent's edits counted in. Subagent files that cannot be read are
// left out; together they are read up to lim.MaxFile bytes.
func foldSubagents(d *transcript.Digest, file string, lim transcript.Limits) {
	budget := lim.MaxFile
	for _, p := range subagentFiles(file, d.Session.ID) {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > budget {
			continue
		}
		budget -= fi.Size()
		sub, err := readSubagent(p, lim)
		if err != nil {
			continue
		}
		transcript.MergeSide(d, sub, "subagent "+untrusted.OneLine(agentID(p), 64))
	}
}

// readSubagent reads one subagent transcript as a session of its own.
func readSubagent(file string, lim transcript.Limits) (*transcript.Digest, error) {
	f, _, err := safefile.OpenRegular(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	return read(io.NewSectionReader(f, 0, min(fi.Size(), lim.MaxFile)), lim, true)
}

// ownSubagents lists the subagents of a discovered session that live in
// its own directory (2.1.x); olderSubagents adds those beside it.
func ownSubagents(s *transcript.SessionInfo) {
	for _, p := range subagentFiles(s.Path, "") {
		_, _, version := subagentHeadOf(p)
		s.Subagents = append(s.Subagents, transcript.SubagentInfo{ID: agentID(p), Path: p, AgentVersion: version})
	}
}

// olderSubagents gives the probed sessions (probed, the newest files,
// newest first) the older-layout subagent files (2.0.x: agent-*.jsonl
// beside the sessions) that name them, reading each project directory
// once, at most maxAgentProbes files of it.
func olderSubagents(sessions []transcript.SessionInfo, probed []transcript.Candidate) {
	index := make(map[string]int, len(sessions))
	for i, s := range sessions {
		index[s.Path] = i
	}
	byDir := map[string]map[string]int{} // directory → session id → index
	for _, c := range probed {
		i, ok := index[c.Path]
		if !ok {
			continue
		}
		dir := filepath.Dir(c.Path)
		if byDir[dir] == nil {
			byDir[dir] = map[string]int{}
		}
		byDir[dir][sessions[i].ID] = i
	}
	for dir, ids := range byDir {
		entries, _ := transcript.ReadDir(dir)
		probes := 0
		for _, e := range entries {
			if probes >= maxAgentProbes {
				break
			}
			if !e.Type().IsRegular() || !isSubagentName(e.Name()) {
				continue
			}
			probes++
			p := filepath.Join(dir, e.Name())
			session, _, version := subagentHeadOf(p)
			if i, ok := ids[session]; ok && session != "" && len(sessions[i].Subagents) < transcript.MaxSubagents {
				sessions[i].Subagents = append(sessions[i].Subagents, transcript.SubagentInfo{ID: agentID(p), Path: p, AgentVersion: version})
			}
		}
	}
}

// ProjectName is the name Claude Code gives a project's directory under
// projects: the path with every character but letters and digits turned
// to "-".
func ProjectName(dir string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, dir)
}

// projectNameOld is the older naming: only "/" and "." turned to "-".
func projectNameOld(dir string) string {
	return strings.NewReplacer("/", "-", ".", "-").Replace(dir)
}

// Dirs are the agent's own directories, most preferred first, under home
// unless its environment variables move them (agent.Agent.OwnDirs).
func Dirs(home string, getenv func(string) string) []string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return []string{d}
	}
	cfg := getenv("XDG_CONFIG_HOME")
	if cfg == "" || !filepath.IsAbs(cfg) {
		cfg = filepath.Join(home, ".config")
	}
	return []string{filepath.Join(home, ".claude"), filepath.Join(cfg, "claude")}
}

// SessionsDir is the directory under each of Dirs that holds the
// transcripts.
const SessionsDir = "projects"

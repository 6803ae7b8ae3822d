package transcript

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

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
	maxSubagents = 64
	// subagentHead bounds what is read of an older-layout agent file to
	// learn its session, and maxAgentProbes how many such files are read
	// for one session.
	subagentHead   = 32 << 10
	maxAgentProbes = 256
)

// isClaudeSubagentName reports whether a file name is a subagent's
// transcript.
func isClaudeSubagentName(name string) bool {
	return strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl")
}

// claudeSubagentFiles lists the subagent transcripts of the Claude Code
// session whose file is session (id, the session's id): those under
// <dir>/<stem>/subagents/, and older-layout agent-*.jsonl files beside it
// whose lines name the session. At most maxSubagents, by name.
func claudeSubagentFiles(session, id string) []string {
	dir := filepath.Dir(session)
	sub := filepath.Join(dir, strings.TrimSuffix(filepath.Base(session), ".jsonl"), "subagents")
	var out []string
	var add func(d string, depth int)
	add = func(d string, depth int) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			if len(out) >= maxSubagents {
				return
			}
			switch {
			case e.Type().IsRegular() && isClaudeSubagentName(e.Name()):
				out = append(out, filepath.Join(d, e.Name()))
			case e.IsDir() && depth == 0:
				add(filepath.Join(d, e.Name()), 1)
			}
		}
	}
	add(sub, 0)
	if id != "" {
		entries, _ := os.ReadDir(dir)
		probes := 0
		for _, e := range entries {
			if len(out) >= maxSubagents || probes >= maxAgentProbes {
				break
			}
			if e.Type().IsRegular() && isClaudeSubagentName(e.Name()) {
				probes++
				p := filepath.Join(dir, e.Name())
				if s, _, _ := claudeSubagentHead(p); s == id {
					out = append(out, p)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// claudeSubagentHead reads the session id, agent id and Claude Code
// version from the first lines of a subagent file.
func claudeSubagentHead(file string) (session, agent, version string) {
	f, err := os.Open(file)
	if err != nil {
		return "", "", ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", "", ""
	}
	scan(io.NewSectionReader(f, 0, min(fi.Size(), subagentHead)), false, lineShapes().claudeProbe, func(m map[string]any) {
		if session == "" && getBool(m, "isSidechain") {
			session, agent, version = getStr(m, "sessionId"), getStr(m, "agentId"), getStr(m, "version")
		}
	})
	return shortenHead(session, maxID), shortenHead(agent, 64), shortenHead(version, maxVersion)
}

// claudeAgentID is the agent id a subagent file's name carries.
func claudeAgentID(file string) string {
	return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "agent-"), ".jsonl")
}

// foldClaudeSubagents reads the subagent transcripts of the session at
// file and adds their commands and file edits to d, each marked By
// "subagent <id>". A file the parent touched as well stays the parent's,
// with the subagent's edits counted in. Subagent files that cannot be
// read are left out; together they are read up to lim.MaxFile bytes.
func foldClaudeSubagents(d *Digest, file string, lim Limits) {
	budget := lim.MaxFile
	for _, p := range claudeSubagentFiles(file, d.Session.ID) {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > budget {
			continue
		}
		budget -= fi.Size()
		sub, err := readSubagent(p, lim)
		if err != nil {
			continue
		}
		mergeSubagent(d, sub, "subagent "+untrusted.OneLine(claudeAgentID(p), 64))
	}
}

// mergeSubagent adds a subagent's commands and file edits to d, marked
// by. A file d touched as well stays d's, with the subagent's edits
// counted in.
func mergeSubagent(d, sub *Digest, by string) {
	index := make(map[string]int, len(d.Files))
	for i, f := range d.Files {
		index[f.Path] = i
	}
	for _, c := range sub.Session.Commands {
		if len(d.Session.Commands) >= maxCommands {
			break
		}
		c.By = by
		d.Session.Commands = append(d.Session.Commands, c)
	}
	for _, f := range sub.Files {
		path := f.Path
		if sub.CWD != d.CWD {
			path = normPath(d.CWD, joinPath(sub.CWD, path))
		}
		if i, ok := index[path]; ok {
			d.Files[i].Edits = min(d.Files[i].Edits+f.Edits, 1<<31-1)
			continue
		}
		if len(d.Files) >= maxFiles {
			continue
		}
		f.Path, f.By = path, by
		index[path] = len(d.Files)
		d.Files = append(d.Files, f)
	}
}

// readSubagent reads one subagent transcript as a session of its own.
func readSubagent(file string, lim Limits) (*Digest, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	return readClaudeCode(io.NewSectionReader(f, 0, min(fi.Size(), lim.MaxFile)), lim, lineShapes().claude, true)
}

// SubagentInfo is one subagent transcript of a Claude Code session.
type SubagentInfo struct {
	// ID is the agent's id, from the file name.
	ID   string
	Path string
	// AgentVersion is the Claude Code version that wrote it.
	AgentVersion string
}

// claudeSubagents lists the subagents of a discovered session that live
// in its own directory (2.1.x); claudeOlderSubagents adds those beside it.
func claudeSubagents(s *SessionInfo) {
	for _, p := range claudeSubagentFiles(s.Path, "") {
		_, _, version := claudeSubagentHead(p)
		s.Subagents = append(s.Subagents, SubagentInfo{ID: claudeAgentID(p), Path: p, AgentVersion: version})
	}
}

// claudeOlderSubagents gives the sessions the older-layout subagent files
// (2.0.x: agent-*.jsonl beside the sessions) that name them, reading each
// project directory once, at most maxAgentProbes files of it.
func claudeOlderSubagents(sessions []SessionInfo) {
	byDir := map[string]map[string]int{} // directory → session id → index
	for i, s := range sessions {
		dir := filepath.Dir(s.Path)
		if byDir[dir] == nil {
			byDir[dir] = map[string]int{}
		}
		byDir[dir][s.ID] = i
	}
	for dir, ids := range byDir {
		entries, _ := os.ReadDir(dir)
		probes := 0
		for _, e := range entries {
			if probes >= maxAgentProbes {
				break
			}
			if !e.Type().IsRegular() || !isClaudeSubagentName(e.Name()) {
				continue
			}
			probes++
			p := filepath.Join(dir, e.Name())
			session, _, version := claudeSubagentHead(p)
			if i, ok := ids[session]; ok && session != "" && len(sessions[i].Subagents) < maxSubagents {
				sessions[i].Subagents = append(sessions[i].Subagents, SubagentInfo{ID: claudeAgentID(p), Path: p, AgentVersion: version})
			}
		}
	}
}

package transcript

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Subagents of Codex CLI and Gemini CLI (Claude Code's are in
// claude_subagents.go). Each writes a subagent's conversation to a
// transcript of its own. Such a transcript is never a session to hand on:
// discovery leaves it out, capture refuses it and names its parent, and
// reading the parent folds in the files the subagents touched and the
// commands they ran, marked as theirs (mergeSubagent).
//
//   - Codex CLI: every thread has its own rollout in the sessions tree;
//     a subagent's session_meta says so in its source
//     ({"subagent": {"thread_spawn": {"parent_thread_id": …}}}, or
//     "review", "compact", "memory_consolidation", {"other": …}),
//     thread_source "subagent" or parent_thread_id (openai/codex
//     codex-rs/protocol/src/protocol.rs: SessionMeta, SessionSource,
//     SubAgentSource).
//   - Gemini CLI: a subagent's recording has kind "subagent" in its
//     metadata and, since v0.36, lies in chats/<parent session id>/
//     (google-gemini/gemini-cli packages/core/src/services/
//     chatRecordingService.ts, initialize; the id sanitized by
//     sanitizeFilenamePart, packages/core/src/utils/fileUtils.ts). From
//     v0.30 to v0.35 it lay beside the others and named no parent.

// maxSubagentDays bounds the Codex day directories searched for a
// session's subagents (at most maxSubagents of them).
const maxSubagentDays = 40

// readGeminiFile reads a Gemini CLI recording at file and folds in its
// subagents' recordings, which lie in chats/<session id>/.
func readGeminiFile(r io.Reader, lim Limits, file string) (*Digest, error) {
	d, err := readGemini(r, lim, geminiProjectRoot(file))
	if err != nil {
		return nil, err
	}
	if d.Subagent {
		if dir := filepath.Base(filepath.Dir(file)); dir != "chats" && dir != "." && dir != string(filepath.Separator) {
			d.Parent = shortenHead(dir, maxID)
		}
		return d, nil
	}
	if d.Session.ID == "" {
		return d, nil
	}
	var kids []candidate
	listFiles(filepath.Join(filepath.Dir(file), geminiSafeName(d.Session.ID)), func(name string) bool {
		return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")
	}, &kids)
	slices.SortFunc(kids, func(a, b candidate) int { return strings.Compare(a.path, b.path) })
	for _, k := range kids[:min(len(kids), maxSubagents)] {
		kid, err := withTranscript(k.path, lim, func(r *io.SectionReader) (*Digest, error) {
			return readGemini(r, lim, d.CWD)
		})
		if err == nil && kid.Subagent {
			d.Stats.Subagents++
			mergeSubagent(d, kid, "subagent "+untrusted.OneLine(kid.Session.ID, 64))
		}
	}
	return d, nil
}

// geminiSafeName is Gemini CLI's sanitizeFilenamePart: every character
// but ASCII letters, digits, _ and - becomes _.
func geminiSafeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// readCodexFile reads a Codex CLI rollout at file and folds in the
// rollouts of the subagents it spawned, and theirs, found in the sessions
// tree around it.
func readCodexFile(r io.Reader, lim Limits, file string) (*Digest, error) {
	d, err := ReadCodex(r, lim)
	if err != nil || d.Subagent || d.Session.ID == "" {
		return d, err
	}
	for _, kid := range codexChildren(file, d) {
		k, err := withTranscript(kid, lim, func(r *io.SectionReader) (*Digest, error) { return ReadCodex(r, lim) })
		if err == nil && k.Subagent {
			d.Stats.Subagents++
			mergeSubagent(d, k, "subagent "+untrusted.OneLine(k.Session.ID, 64))
		}
	}
	return d, nil
}

// codexChildren lists the rollouts of the threads the session of d, read
// from file, spawned, and of the threads those spawned, breadth first. A
// rollout lies in sessions/YYYY/MM/DD/ by the local date it began; the
// days the session spans, and one either side, are searched.
func codexChildren(file string, d *Digest) []string {
	day := filepath.Dir(file)
	month := filepath.Dir(day)
	year := filepath.Dir(month)
	if !digits(filepath.Base(day), 2) || !digits(filepath.Base(month), 2) || !digits(filepath.Base(year), 4) {
		return nil
	}
	root := filepath.Dir(year)
	from, to := SessionStart(d.Session), time.Time{}
	if d.Session.LastActivity != nil {
		to = *d.Session.LastActivity
	}
	if from.IsZero() {
		from = to
	}
	if to.Before(from) {
		to = from
	}
	if from.IsZero() {
		return nil
	}
	byParent := map[string][]string{}
	from = from.Local().AddDate(0, 0, -1)
	for t, n := from, 0; !t.After(to.Local().AddDate(0, 0, 1)) && n < maxSubagentDays; t, n = t.AddDate(0, 0, 1), n+1 {
		var files []candidate
		listFiles(filepath.Join(root, t.Format("2006"), t.Format("01"), t.Format("02")), func(name string) bool {
			return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
		}, &files)
		for _, f := range files {
			if f.path == file {
				continue
			}
			if id, parent := codexMetaOf(f.path); id != "" && parent != "" {
				byParent[parent] = append(byParent[parent], f.path+"\x00"+id)
			}
		}
	}
	var out []string
	seen := map[string]bool{d.Session.ID: true}
	queue := []string{d.Session.ID}
	for len(queue) > 0 && len(out) < maxSubagents {
		kids := byParent[queue[0]]
		queue = queue[1:]
		slices.Sort(kids)
		for _, k := range kids {
			p, id, _ := strings.Cut(k, "\x00")
			if seen[id] || len(out) >= maxSubagents {
				continue
			}
			seen[id] = true
			out = append(out, p)
			queue = append(queue, id)
		}
	}
	return out
}

func digits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// codexMetaShape is a rollout's first line as codexMetaOf reads it.
var codexMetaShape = fields(map[string]*shape{
	"type": nil,
	"payload": fields(map[string]*shape{
		"id": nil, "source": nil, "thread_source": nil, "parent_thread_id": nil,
	}),
})

// codexMetaOf reads the session_meta that opens a rollout: its thread id
// and, for a subagent, its parent's.
func codexMetaOf(file string) (id, parent string) {
	f, err := os.Open(file)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", ""
	}
	lr := newLineReader(io.NewSectionReader(f, 0, min(fi.Size(), headBytes)), headBytes)
	var p jsonParser
	for {
		line, tooLong, err := lr.next()
		if err != nil || tooLong {
			return "", ""
		}
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		m, ok := p.parse(line, codexMetaShape)
		if !ok || getStr(m, "type") != "session_meta" {
			return "", ""
		}
		meta := getMap(m, "payload")
		_, parent = codexSubagentOf(meta)
		return getStr(meta, "id"), parent
	}
}

// codexSubagentOf reads a session_meta payload: whether the thread is a
// subagent's, and its parent thread when the meta names it.
func codexSubagentOf(meta map[string]any) (sub bool, parent string) {
	switch src := meta["source"].(type) {
	case map[string]any:
		if sa, ok := src["subagent"]; ok {
			sub = true
			parent = getStr(getMap(asMap(sa), "thread_spawn"), "parent_thread_id")
		}
	case string:
		sub = strings.HasPrefix(src, "subagent")
	}
	if getStr(meta, "thread_source") == "subagent" {
		sub = true
	}
	if p := getStr(meta, "parent_thread_id"); p != "" {
		sub = true
		parent = firstNonEmpty(parent, p)
	}
	return sub, parent
}

// SessionStart is when the session started, zero when unknown.
func SessionStart(s handoff.Session) time.Time {
	if s.StartedAt != nil {
		return *s.StartedAt
	}
	return time.Time{}
}

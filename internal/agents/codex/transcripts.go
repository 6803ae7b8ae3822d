package codex

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Transcripts finds, recognises and reads Codex CLI's rollouts.
type Transcripts struct{}

// Read reads the rollout at path and folds in the rollouts of the
// subagents it spawned, and theirs, found in the sessions tree around it;
// id is unused: a file holds one session.
func (Transcripts) Read(path, _ string, lim transcript.Limits) (*transcript.Digest, error) {
	return transcript.ReadOpen(path, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
		d, err := read(r, lim)
		if err != nil || d.Subagent || d.Session.ID == "" {
			return d, err
		}
		lim.Observe = nil // a subagent's turns are not the session's
		for _, kid := range children(path, d) {
			k, err := transcript.ReadOpen(kid, lim, func(r *io.SectionReader) (*transcript.Digest, error) { return read(r, lim) })
			if err == nil && k.Subagent {
				transcript.MergeSubagent(d, k, "subagent "+untrusted.OneLine(k.Session.ID, 64))
			}
		}
		return d, nil
	})
}

// Subagents: every thread has its own rollout in the sessions tree; a
// subagent's session_meta says so in its source ({"subagent":
// {"thread_spawn": {"parent_thread_id": …}}}, or "review", "compact",
// "memory_consolidation", {"other": …}), thread_source "subagent" or
// parent_thread_id (openai/codex codex-rs/protocol/src/protocol.rs:
// SessionMeta, SessionSource, SubAgentSource). Such a rollout is never a
// session to hand on: discovery leaves it out, capture refuses it and
// names its parent, and reading the parent folds in the files the
// subagents touched and the commands they ran, marked as theirs
// (transcript.MergeSubagent).

// maxSubagentDays bounds the day directories searched for a session's
// subagents (at most transcript.MaxSubagents of them).
const maxSubagentDays = 40

// children lists the rollouts of the threads the session of d, read from
// file, spawned, and of the threads those spawned, breadth first. A
// rollout lies in sessions/YYYY/MM/DD/ by the local date it began; the
// days the session spans, and one either side, are searched.
func children(file string, d *transcript.Digest) []string {
	day := filepath.Dir(file)
	month := filepath.Dir(day)
	year := filepath.Dir(month)
	if !digits(filepath.Base(day), 2) || !digits(filepath.Base(month), 2) || !digits(filepath.Base(year), 4) {
		return nil
	}
	root := filepath.Dir(year)
	from, to := transcript.SessionStart(d.Session), time.Time{}
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
		for _, k := range subagentsIn(filepath.Join(root, t.Format("2006"), t.Format("01"), t.Format("02"))) {
			if k.path != file {
				byParent[k.parent] = append(byParent[k.parent], k.path+"\x00"+k.id)
			}
		}
	}
	var out []string
	seen := map[string]bool{d.Session.ID: true}
	queue := []string{d.Session.ID}
	for len(queue) > 0 && len(out) < transcript.MaxSubagents {
		kids := byParent[queue[0]]
		queue = queue[1:]
		slices.Sort(kids)
		for _, k := range kids {
			p, id, _ := strings.Cut(k, "\x00")
			if seen[id] || len(out) >= transcript.MaxSubagents {
				continue
			}
			seen[id] = true
			out = append(out, p)
			queue = append(queue, id)
		}
	}
	return out
}

// Reading every session of a day looks for the subagents of each in the
// same day directories: reading the first line of each rollout there
// every time made a full index quadratic in the sessions of a day. What
// the first lines of a day directory said is kept while the directory
// does not change (its modification time: a rollout added, renamed or
// removed), for the process; a rollout whose first line could not be
// read yet is read again each time. A session_meta line, once written,
// does not change.

// subagentRollout is a subagent's rollout: its thread id and its
// parent's.
type subagentRollout struct{ path, id, parent string }

// dayListing is what a day directory held when it was last read.
type dayListing struct {
	mtime   time.Time
	subs    []subagentRollout
	pending []string // rollouts without a session_meta line yet
}

// metaReads counts the first lines read for subagents (tests).
var metaReads atomic.Int64

// maxDayListings bounds the day directories kept; past it, all are
// forgotten.
const maxDayListings = 4096

var dayListings = struct {
	sync.Mutex
	m map[string]*dayListing
}{m: map[string]*dayListing{}}

// subagentsIn lists the subagents' rollouts in the day directory dir.
func subagentsIn(dir string) []subagentRollout {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil
	}
	dayListings.Lock()
	l := dayListings.m[dir]
	dayListings.Unlock()
	if l == nil || !l.mtime.Equal(fi.ModTime()) {
		l = &dayListing{mtime: fi.ModTime()}
		var files []transcript.Candidate
		transcript.ListFiles(dir, isRollout, &files)
		for _, f := range files {
			l.pending = append(l.pending, f.Path)
		}
		// A directory changed this recently may change again within
		// the same tick of the file system's clock: not kept.
		if time.Since(fi.ModTime()) > 2*time.Second {
			dayListings.Lock()
			if len(dayListings.m) >= maxDayListings {
				clear(dayListings.m)
			}
			dayListings.m[dir] = l
			dayListings.Unlock()
		}
	}
	dayListings.Lock()
	pending := slices.Clone(l.pending)
	dayListings.Unlock()
	read := map[string]subagentRollout{}
	for _, p := range pending {
		if id, parent := metaOf(p); id != "" {
			read[p] = subagentRollout{p, id, parent}
		}
	}
	dayListings.Lock()
	defer dayListings.Unlock()
	// Another reader may have read some meanwhile: each is taken once.
	l.pending = slices.DeleteFunc(l.pending, func(p string) bool {
		k, ok := read[p]
		if ok && k.parent != "" {
			l.subs = append(l.subs, k)
		}
		return ok
	})
	return slices.Clone(l.subs)
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

// isRollout says whether a file name is a rollout's:
// rollout-<time>-<uuid>.jsonl.
func isRollout(name string) bool {
	return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
}

// metaLine is a rollout's first line as metaOf reads it.
type metaLine struct {
	Type    string   `json:"type"`
	Payload *payload `json:"payload"`
}

// metaOf reads the session_meta that opens a rollout, in the first 256
// KiB: its thread id and, for a subagent, its parent's.
func metaOf(file string) (id, parent string) {
	metaReads.Add(1)
	f, _, err := safefile.OpenRegular(file)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", ""
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, min(fi.Size(), transcript.HeadBytes)), 64<<10)
	for first := true; ; first = false {
		line, err := br.ReadBytes('\n')
		if first {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				return "", ""
			}
			continue
		}
		var m metaLine
		if transcript.Decode(bytes.TrimRight(line, "\r\n"), &m) != nil || m.Type != "session_meta" || m.Payload == nil {
			return "", ""
		}
		_, parent = subagentOf(m.Payload)
		return m.Payload.ID, parent
	}
}

// Find lists the sessions under roots[0], the sessions directory:
// sessions/YYYY/MM/DD/rollout-*.jsonl, newest first. A subagent's
// rollout is part of its parent's session, and one of session_meta alone
// is none: neither is listed.
func (Transcripts) Find(roots []string) ([]transcript.SessionInfo, error) {
	if len(roots) == 0 {
		return nil, nil
	}
	var files []transcript.Candidate
	for _, y := range transcript.Subdirs(roots[0]) {
		for _, m := range transcript.Subdirs(y) {
			for _, d := range transcript.Subdirs(m) {
				transcript.ListFiles(d, isRollout, &files)
			}
		}
	}
	for i := range files {
		files[i].ID = idFromName(filepath.Base(files[i].Path))
	}
	return transcript.ProbeSessions(agentName, files, func() transcript.Prober { return &prober{} }), nil
}

// idFromName takes the session id (a UUID) from the end of a rollout
// file name: rollout-2026-01-02T03-04-05-<uuid>.jsonl.
func idFromName(name string) string {
	stem := strings.TrimSuffix(name, ".jsonl")
	if len(stem) >= 36 {
		id := stem[len(stem)-36:]
		if strings.Count(id, "-") == 4 {
			return id
		}
	}
	return stem
}

// probeLine is a rollout line as discovery reads it.
type probeLine struct {
	Timestamp string        `json:"timestamp"`
	Type      string        `json:"type"`
	Payload   *probePayload `json:"payload"`
}

type probePayload struct {
	Type           string                `json:"type"`
	ID             string                `json:"id"`
	CWD            string                `json:"cwd"`
	Timestamp      string                `json:"timestamp"`
	Message        string                `json:"message"`
	ThreadName     string                `json:"thread_name"`
	Source         transcript.TextOrJSON `json:"source"`
	ThreadSource   string                `json:"thread_source"`
	ParentThreadID string                `json:"parent_thread_id"`
	CLIVersion     string                `json:"cli_version"`
	// A user message item: Codex 0.169's first request; in a paginated
	// rollout, the completed UserMessage item.
	Role    string                `json:"role"`
	Content transcript.TextOrJSON `json:"content"`
	Item    *struct {
		Type    string                `json:"type"`
		Content transcript.TextOrJSON `json:"content"`
	} `json:"item"`
}

// prober gathers what discovery shows from a rollout's lines: the
// session_meta's id, working directory, start, Codex version and whether
// the thread is a subagent's; the first request; the name the user gave
// the thread.
type prober struct {
	id, cwd, version, firstReq, thread string
	started, last                      time.Time
	metaSeen, subagent                 bool
	// content is set by a line other than session_meta.
	content bool
}

func (p *prober) Line(b []byte, head, tail bool) {
	var l probeLine
	if transcript.Decode(b, &l) != nil {
		return
	}
	if ts, ok := transcript.ParseTime(l.Timestamp); ok {
		if head && p.started.IsZero() {
			p.started = ts
		}
		if tail && ts.After(p.last) {
			p.last = ts
		}
	}
	if l.Type != "" && l.Type != "session_meta" {
		p.content = true
	}
	pl := l.Payload
	if pl == nil {
		pl = &probePayload{}
	}
	switch l.Type {
	case "response_item":
		// Codex 0.169 writes no user_message events: the first request
		// is the first user message item (what is left of it once the
		// injected context is taken out).
		if head && p.firstReq == "" && pl.Type == "message" && pl.Role == "user" {
			p.firstReq = request(userText(pl.Content))
		}
	case "session_meta":
		if !p.metaSeen && l.Payload != nil {
			p.metaSeen = true
			p.id, p.cwd = pl.ID, pl.CWD
			p.subagent, _ = subagentOf(&payload{Source: pl.Source, ThreadSource: pl.ThreadSource, ParentThreadID: pl.ParentThreadID})
			p.version = pl.CLIVersion
			if t, ok := transcript.ParseTime(pl.Timestamp); ok {
				p.started = t
			}
		}
	case "event_msg":
		switch pl.Type {
		case "user_message":
			if head && p.firstReq == "" {
				p.firstReq = request(pl.Message)
			}
		case "thread_name_updated":
			p.thread = transcript.FirstNonEmpty(pl.ThreadName, p.thread)
		case "item_completed":
			if head && p.firstReq == "" && pl.Item != nil && pl.Item.Type == "UserMessage" {
				p.firstReq = request(userText(pl.Item.Content))
			}
		}
	}
}

// Fill says whether the rollout is a session to list: not a subagent's,
// and not one of session_meta alone, a TUI session in which nothing was
// asked (one opened for /hooks): nothing to capture.
func (p *prober) Fill(s *transcript.SessionInfo) bool {
	transcript.Probed{ID: p.id, CWD: p.cwd, Version: p.version, Started: p.started, Last: p.last,
		Titles: []string{p.thread, p.firstReq}}.Fill(s)
	return !p.subagent && !(p.metaSeen && !p.content)
}

// Detect says whether head, the start of a file, is a Codex rollout, or
// the event stream of `codex exec --json`, which is none (Foreign): one
// of its first lines tells (DetectLine). Which agent's line comes first
// in a file that mixes them is capture.Detect's to weigh.
func (t Transcripts) Detect(head []byte) (transcript.Detected, bool) {
	lines := bytes.Split(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte{'\n'})
	var first struct{}
	if transcript.Decode(bytes.TrimSpace(lines[0]), &first) != nil {
		return transcript.Detected{}, false // one JSON object over many lines: no rollout
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

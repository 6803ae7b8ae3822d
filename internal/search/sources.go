package search

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/jsonfast"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/store"
)

// What the index is fed from: the sessions the agents table can read
// (capture.FindSessions and ReadSession, subagents folded in) and the
// records of the store. Every text is redacted as capture redacts it
// before it is indexed; private reasoning never reaches a digest.

// tailBytes is how much of a transcript's end its stamp hashes.
const tailBytes = 4096

// maxOutputLines is how many first lines of a command's output are
// indexed with it.
const maxOutputLines = 5

// SessionSources lists the sessions of agents on this machine (env as
// for capture.FindSessions), each read through capture.ReadSession when
// the index needs it, redacted by r, marked as done on machine. An agent
// whose sessions cannot be listed is reported to warn and skipped.
func SessionSources(agents []capture.Agent, env func(string) string, r *redact.Redactor, machine string, warn func(error)) []Source {
	return sessionSources(agents, env, r, machine, warn, nil)
}

// sessionSources is SessionSources; prev, when not nil, holds the stamps
// the index has: a transcript last written before hotWindow whose size
// and time are as they were keeps the hash of its tail, unread (one
// written since may have changed in place within a tick of the file
// system's clock: its tail is hashed again).
func sessionSources(agents []capture.Agent, env func(string) string, r *redact.Redactor, machine string, warn func(error), prev map[string]entry) []Source {
	// The agents are listed at once, each on its own: one reads its
	// database while another's files are probed.
	found := make([][]capture.SessionInfo, len(agents))
	errs := make([]error, len(agents))
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Go(func() { found[i], errs[i] = capture.FindSessions(a, env) })
	}
	wg.Wait()
	var out []Source
	sp := newStamper(time.Now())
	for i, a := range agents {
		if err := errs[i]; err != nil {
			if warn != nil {
				warn(fmt.Errorf("%s sessions: %w", a, err))
			}
			continue
		}
		perFile := map[string]int{}
		for _, s := range found[i] {
			perFile[s.Path]++
		}
		for _, s := range found[i] {
			key := "session:" + string(s.Agent) + ":" + s.Path + "#" + s.ID
			st, ok := sp.session(s, prev[key].Stamp, perFile[s.Path] > 1)
			if !ok {
				continue
			}
			out = append(out, Source{
				Key:   key,
				Stamp: st,
				Load:  func() (*Doc, error) { return loadSession(s, r, machine) },
			})
		}
	}
	return out
}

// stamper stamps the listed sessions, each file stated once (a
// transcript as discovery listed it, not again) and its tail hashed at
// most once.
type stamper struct {
	tails  map[string]string // path → tailHash
	exists map[string]bool   // a file many sessions share → it exists
	now    time.Time
}

func newStamper(now time.Time) *stamper {
	return &stamper{tails: map[string]string{}, exists: map[string]bool{}, now: now}
}

// files is the stamp of a session's files: its transcript's and its
// subagents', sizes summed, the latest modification time, the
// transcript's tail hashed (a database file shared by many sessions is
// hashed once; an old one whose size and time are prev's keeps prev's
// hash).
func (sp *stamper) files(s capture.SessionInfo, prev Stamp) (Stamp, bool) {
	var st Stamp
	if s.FileTime.IsZero() {
		fi, err := os.Stat(s.Path)
		if err != nil {
			return st, false
		}
		s.FileSize, s.FileTime = fi.Size(), fi.ModTime()
	}
	st.Size, st.MTime = s.FileSize, s.FileTime.UnixNano()
	for _, sub := range s.Subagents {
		// Listed by discovery as a regular file: the walk's stat when
		// it read the directory.
		if fi, err := transcript.Lstat(sub.Path); err == nil {
			st.Size += fi.Size()
			st.MTime = max(st.MTime, fi.ModTime().UnixNano())
		}
	}
	if prev.Size == st.Size && prev.MTime == st.MTime && prev.Tail != "" && sp.now.UnixNano()-st.MTime > int64(hotWindow) {
		st.Tail = prev.Tail
		return st, true
	}
	t, ok := sp.tails[s.Path]
	if !ok {
		t = tailHash(s.Path)
		sp.tails[s.Path] = t
	}
	st.Tail = t
	return st, true
}

// session is the stamp of session s (files), or, for one that shares
// its file with other sessions (shared: a database, OpenCode's, Kilo's,
// Crush's), the time of its last activity as its agent records it in its
// row (each message the agent adds updates it), and that the file still
// exists: the file's own size and time change with every other session's
// work, and a stamp of them would read every session of the database
// again whenever one of them moved. A shared session with no time is
// stamped by its file.
func (sp *stamper) session(s capture.SessionInfo, prev Stamp, shared bool) (Stamp, bool) {
	if !shared || s.LastActivity.IsZero() {
		return sp.files(s, prev)
	}
	ok, seen := sp.exists[s.Path]
	if !seen {
		_, err := os.Stat(s.Path)
		ok = err == nil
		sp.exists[s.Path] = ok
	}
	if !ok {
		return Stamp{}, false
	}
	return Stamp{MTime: s.LastActivity.UnixNano(), Tail: "shared"}, true
}

// tailHash is a hash of the last tailBytes of the file at path, "" when
// it cannot be read.
func tailHash(path string) string {
	f, size, err := safefile.OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, max(0, size-tailBytes), min(size, tailBytes))); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// loadSession reads s and makes its document.
func loadSession(s capture.SessionInfo, r *redact.Redactor, machine string) (*Doc, error) {
	d, err := capture.ReadSession(s, capture.Limits{})
	if err != nil {
		return nil, err
	}
	if d.Subagent {
		return nil, fmt.Errorf("%s: a subagent's transcript", s.Path)
	}
	doc := &Doc{
		Type:    "session",
		Agent:   string(s.Agent),
		ID:      firstOf(d.Session.ID, s.ID),
		Path:    s.Path,
		Title:   red(r, firstOf(d.Title, s.Title)),
		CWD:     firstOf(d.CWD, s.CWD),
		Machine: machine,
		Time:    s.LastActivity,
	}
	if t := d.Session.LastActivity; t != nil && !t.IsZero() {
		doc.Time = *t
	}
	u := units{r: r}
	u.add(KindTitle, doc.Title)
	u.session(&d.Session)
	// Every message the agent said, not only the last the digest keeps.
	for i, m := range d.Said {
		if i < len(d.Said)-1 || m != d.Session.LastAgentMessage {
			u.add(KindMessage, m)
		}
	}
	u.add(KindMessage, d.Goal)
	for _, f := range d.Files {
		u.add(KindFile, f.Path)
	}
	for _, x := range d.Decisions {
		u.add(KindDecision, x)
	}
	doc.Units = u.list
	return doc, nil
}

// HandoffSources lists the records of st, each read when the index
// needs it; the index keeps a record until it leaves the store.
func HandoffSources(st *store.Store, r *redact.Redactor) ([]Source, error) {
	entries, err := st.List(store.Filter{})
	if err != nil {
		return nil, err
	}
	out := make([]Source, 0, len(entries))
	for _, e := range entries {
		id := e.ID
		out = append(out, Source{
			Key:   "handoff:" + string(id),
			Stamp: Stamp{MTime: e.CreatedAt.UnixNano(), Tail: hashString(e.Title + "\x00" + e.Source)},
			Load: func() (*Doc, error) {
				rec, err := st.Get(id)
				if err != nil {
					return nil, err
				}
				return recordDoc(rec, r), nil
			},
		})
	}
	return out, nil
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// recordDoc is a handoff record's document.
func recordDoc(rec *handoff.Record, r *redact.Redactor) *Doc {
	doc := &Doc{
		Type:       "handoff",
		Agent:      rec.Tool,
		ID:         string(rec.ID),
		Title:      red(r, rec.Title),
		CWD:        rec.Project.Path,
		RootCommit: rec.Project.RootCommit,
		Remote:     handoff.RemoteKey(rec.Project.Remote),
		Machine:    rec.Source.Machine,
		Time:       rec.CreatedAt,
	}
	u := units{r: r}
	u.add(KindTitle, doc.Title)
	u.add(KindTitle, strings.Join(rec.Tags, " "))
	u.add(KindMessage, rec.Summary)
	for _, x := range rec.Decisions {
		u.add(KindDecision, x)
	}
	for _, x := range rec.NextSteps {
		u.add(KindMessage, x)
	}
	for _, x := range rec.OpenQuestions {
		u.add(KindMessage, x)
	}
	for _, f := range rec.Files {
		u.add(KindFile, f.Path)
	}
	if rec.Session != nil {
		u.session(rec.Session)
	}
	doc.Units = u.list
	return doc
}

// units gathers a document's units, redacted.
type units struct {
	r    *redact.Redactor
	list []Unit
}

func (u *units) add(k Kind, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	u.list = append(u.list, Unit{Kind: k, Text: red(u.r, text)})
}

// session adds what a digest's session holds.
func (u *units) session(s *handoff.Session) {
	for _, x := range s.Requests {
		u.add(KindRequest, x)
	}
	u.add(KindMessage, s.LastAgentMessage)
	u.add(KindMessage, s.CompactionSummary)
	u.add(KindMessage, s.Plan)
	for _, c := range s.Commands {
		u.add(KindCommand, commandText(c))
	}
	if s.LastFailure != nil {
		u.add(KindCommand, commandText(*s.LastFailure))
	}
	for _, t := range s.Todos {
		u.add(KindTodo, t.Content)
	}
}

// commandText is a command with its output's first lines.
func commandText(c handoff.Command) string {
	if c.Output == "" {
		return c.Command
	}
	lines := strings.SplitN(c.Output, "\n", maxOutputLines+1)
	if len(lines) > maxOutputLines {
		lines = lines[:maxOutputLines]
	}
	return c.Command + "\n" + strings.Join(lines, "\n")
}

// red is text with what capture would redact replaced.
func red(r *redact.Redactor, text string) string {
	if r == nil {
		r = redact.Default()
	}
	return r.String(text, "search", nil)
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// AllSources lists every session of every agent on this machine and
// every record of st: what search holds.
func AllSources(st *store.Store, env func(string) string, r *redact.Redactor, machine string, warn func(error)) ([]Source, error) {
	sources := SessionSources(capture.Agents, env, r, machine, warn)
	hs, err := HandoffSources(st, r)
	if err != nil {
		return nil, err
	}
	return append(sources, hs...), nil
}

// ProjectFilter keeps what ran in the directory dir or under it, and the
// handoffs of the same repository made elsewhere (identity, read when
// first needed, matched as latest matches it: the same root commit, else
// the same remote).
func ProjectFilter(dir string, identity func() handoff.Identity) func(*Doc) bool {
	var id *handoff.Identity
	return func(d *Doc) bool {
		if d.CWD == dir || strings.HasPrefix(d.CWD, dir+string(filepath.Separator)) {
			return true
		}
		if d.Type != "handoff" || identity == nil {
			return false
		}
		if id == nil {
			v := identity()
			id = &v
		}
		return id.Matches(d.RootCommit, d.Remote)
	}
}

// Mode is how far a catch-up goes.
type Mode int

const (
	// Quick lists the sessions only when the snapshot of their
	// directories says something changed (Unchanged): what a search does
	// before it answers.
	Quick Mode = iota
	// Full lists every session and handoff: what the hooks' background
	// update does.
	Full
	// Rebuild reads everything again into a new index, waiting for
	// another writer.
	Rebuild
)

// CatchUp brings ix up to date with every session of every agent on this
// machine and every record of st (AllSources), as mode says. A quick
// catch-up reads nothing when the snapshot the last complete one saved
// still holds; every catch-up reads only the sessions that changed, and
// probes only the session files that changed (a transcript.ProbeCache
// kept beside the index). While another process updates the index, a
// catch-up (not a rebuild) leaves it to that one and returns at once: the
// index answers as it is, and what that process did not see changes the
// snapshot for the next.
//
// redactor gives the redactor every text is run through, called only
// when something is to be read (making one compiles its patterns).
func CatchUp(ix *Index, st *store.Store, env func(string) string, redactor func() (*redact.Redactor, error), machine string, mode Mode, warn func(error), progress func(Progress)) (UpdateStats, error) {
	var roots []string
	for _, a := range capture.Agents {
		rs, err := capture.SessionRoots(a, env)
		if err == nil {
			roots = append(roots, rs...)
		}
	}
	flat := []string{st.Dir()}
	if ix.Outdated() {
		mode = Rebuild
	}
	rebuild := mode == Rebuild
	if mode == Quick && ix.Built() && ix.Unchanged(roots, flat) {
		return UpdateStats{}, nil
	}
	r, err := redactor()
	if err != nil {
		return UpdateStats{}, err
	}
	// The index's manifest and probe cache are read while the walk that
	// takes the snapshot runs. The walk keeps what it read, and discovery
	// lists the sessions from it: each directory read and each file
	// stated once, as the snapshot has them.
	var prev map[string]entry
	var probes *transcript.ProbeCache
	var read sync.WaitGroup
	read.Go(func() {
		if !rebuild {
			if m, err := ix.readManifest(); err == nil {
				prev = m.Live
			}
		}
		probes = ix.loadProbes()
	})
	listed := transcript.NewListings()
	snap := takeSnapshot(roots, flat, time.Now(), listed)
	read.Wait()
	restoreProbes := transcript.SetProbeCache(probes)
	restoreListings := transcript.SetListings(listed)
	sources := sessionSources(capture.Agents, env, r, machine, warn, prev)
	restoreListings()
	restoreProbes()
	hs, err := HandoffSources(st, r)
	if err != nil {
		return UpdateStats{}, err
	}
	sources = append(sources, hs...)
	stats, err := ix.update(sources, rebuild, progress, rebuild)
	if errors.Is(err, ErrBusy) {
		return stats, nil
	}
	if err != nil {
		return stats, err
	}
	if err := ix.saveProbes(probes, r); err != nil {
		return stats, err
	}
	return stats, ix.SetFresh(snap)
}

// probesName is the file that keeps what probing the session files
// found (transcript.ProbeCache), one JSON array.
const probesName = "probes.json"

// maxProbes bounds the probe cache's file.
const maxProbes = 256 << 20

// loadProbes is the probe cache kept beside the index; an empty one when
// there is none or it cannot be read.
func (ix *Index) loadProbes() *transcript.ProbeCache {
	var entries []transcript.CachedProbe
	if b, err := safefile.ReadFile(filepath.Join(ix.dir, probesName), maxProbes); err == nil {
		// Thousands of entries, read by every full catch-up: the fast
		// parser, which refuses what encoding/json refuses.
		if jsonfast.DecodeValue(b, &entries) != nil {
			entries = nil
		}
	}
	return transcript.NewProbeCache(entries)
}

// saveProbes keeps what c was used for (the files discovery probes now),
// each title redacted by r as the index's text is: what capture would
// redact is never kept. A cache used for exactly what it was loaded with
// is as the file has it: nothing is written; one that changed is written
// whole.
func (ix *Index) saveProbes(c *transcript.ProbeCache, r *redact.Redactor) error {
	if !c.Changed() {
		return nil
	}
	used := c.Used()
	for i := range used {
		used[i].Title = red(r, used[i].Title)
	}
	slices.SortFunc(used, func(a, b transcript.CachedProbe) int { return strings.Compare(a.Key, b.Key) })
	b, err := json.Marshal(used)
	if err != nil {
		return err
	}
	return safefile.WriteFile(filepath.Join(ix.dir, probesName), b, 0o600)
}

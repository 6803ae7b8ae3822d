package transcript

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// SessionInfo describes one session transcript found on disk, from the
// little of it that discovery reads.
type SessionInfo struct {
	Agent Agent
	ID    string
	// Path is the transcript's file.
	Path string
	// CWD is the session's working directory, when known.
	CWD   string
	Title string
	// Started and LastActivity are zero when unknown; LastActivity falls
	// back to the file's modification time.
	Started      time.Time
	LastActivity time.Time
	// AgentVersion is the version of the agent that last wrote the
	// transcript, when it says.
	AgentVersion string
	// Subagents are the transcripts of the session's subagents (Claude
	// Code), listed for the sessions whose files are probed.
	Subagents []SubagentInfo
	// FiledUnder, when the agent sets it, says whether the agent filed
	// the session under the project at dir: how MatchProject matches a
	// session whose working directory is unknown (Claude Code names a
	// project's directory after its path, Gemini CLI's older layout
	// after the path's SHA-256).
	FiledUnder func(dir string) bool

	projectHash string // Gemini: sha256 of the project root, from the file
	subagent    bool   // a subagent's transcript: never listed
	empty       bool   // a transcript with no session in it: never listed
}

// Bounds on discovery.
const (
	// maxListed caps the transcript files discovery considers.
	maxListed = 100_000
	// maxProbed caps the files whose head and tail are read; older ones
	// are listed from their names and times only.
	maxProbed = 1000
	headBytes = 256 << 10
	tailBytes = 128 << 10
	// maxSmallJSON bounds the older single-object Gemini files that
	// discovery reads whole.
	maxSmallJSON = 8 << 20
)

// FindSessions lists the transcripts agent keeps under roots, its session
// directories (the agents table's SessionRoots), newest first. A missing
// directory is no error. Only the head and tail of each file are read.
func FindSessions(agent Agent, roots []string) ([]SessionInfo, error) {
	var files []candidate
	switch agent {
	case ClaudeCode:
		files = claudeFiles(roots)
	case Codex:
		files = codexFiles(roots)
	case Gemini:
		files = geminiFiles(roots)
	default:
		return nil, fmt.Errorf("unknown agent %q", handoff.Clip(string(agent), 40))
	}
	slices.SortFunc(files, func(a, b candidate) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	out := make([]SessionInfo, 0, len(files))
	for _, c := range files {
		out = append(out, SessionInfo{Agent: agent, Path: c.path, ID: c.id, CWD: c.cwd, LastActivity: c.mtime})
	}
	probeAll(out[:min(len(out), maxProbed)])
	if agent == ClaudeCode {
		claudeOlderSubagents(out[:min(len(out), maxProbed)])
	}
	// A Codex or Gemini CLI subagent's transcript is part of its
	// parent's session; an empty one is no session.
	out = slices.DeleteFunc(out, func(s SessionInfo) bool { return s.subagent || s.empty })
	for i := range out {
		out[i].FiledUnder = filedUnder(out[i])
	}
	slices.SortStableFunc(out, func(a, b SessionInfo) int { return b.LastActivity.Compare(a.LastActivity) })
	return out, nil
}

type candidate struct {
	path  string
	id    string
	cwd   string // known from outside the file (Gemini's .project_root)
	mtime time.Time
}

// listFiles lists the regular files in dir whose names pass keep.
func listFiles(dir string, keep func(string) bool, into *[]candidate) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if len(*into) >= maxListed {
			return
		}
		if !e.Type().IsRegular() || !keep(e.Name()) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		*into = append(*into, candidate{path: filepath.Join(dir, e.Name()), mtime: fi.ModTime()})
	}
}

func subdirs(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func claudeFiles(roots []string) []candidate {
	var out []candidate
	for _, root := range roots {
		for _, proj := range subdirs(root) {
			n := len(out)
			// A subagent's file is part of its session, never one.
			listFiles(proj, func(name string) bool { return strings.HasSuffix(name, ".jsonl") && !isClaudeSubagentName(name) }, &out)
			for i := n; i < len(out); i++ {
				out[i].id = strings.TrimSuffix(filepath.Base(out[i].path), ".jsonl")
			}
		}
	}
	return out
}

func codexFiles(roots []string) []candidate {
	var out []candidate
	if len(roots) == 0 {
		return nil
	}
	for _, y := range subdirs(roots[0]) {
		for _, m := range subdirs(y) {
			for _, d := range subdirs(m) {
				listFiles(d, func(name string) bool {
					return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
				}, &out)
			}
		}
	}
	for i := range out {
		out[i].id = codexIDFromName(filepath.Base(out[i].path))
	}
	return out
}

// codexIDFromName takes the session id (a UUID) from the end of a rollout
// file name: rollout-2026-01-02T03-04-05-<uuid>.jsonl.
func codexIDFromName(name string) string {
	stem := strings.TrimSuffix(name, ".jsonl")
	if len(stem) >= 36 {
		id := stem[len(stem)-36:]
		if strings.Count(id, "-") == 4 {
			return id
		}
	}
	return stem
}

// geminiFiles lists the chats under roots[0], Gemini CLI's tmp directory,
// whose parent holds its projects.json.
func geminiFiles(roots []string) []candidate {
	if len(roots) == 0 {
		return nil
	}
	root := filepath.Dir(roots[0])
	registry := geminiRegistry(filepath.Join(root, "projects.json"))
	var out []candidate
	for _, proj := range subdirs(filepath.Join(root, "tmp")) {
		cwd := geminiProjectRoot(filepath.Join(proj, "chats", "x"))
		if cwd == "" {
			cwd = registry[filepath.Base(proj)]
		}
		n := len(out)
		listFiles(filepath.Join(proj, "chats"), func(name string) bool {
			return strings.HasPrefix(name, "session-") && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json"))
		}, &out)
		// A migrated .json sits beside its .jsonl successor.
		have := map[string]bool{}
		for _, c := range out[n:] {
			have[c.path] = true
		}
		kept := out[:n]
		for _, c := range out[n:] {
			if strings.HasSuffix(c.path, ".json") && have[c.path+"l"] {
				continue
			}
			c.cwd = cwd
			c.id = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(c.path), ".jsonl"), ".json")
			kept = append(kept, c)
		}
		out = kept
	}
	return out
}

// geminiRegistry reads ~/.gemini/projects.json, which maps project roots
// to the short names of their directories, and returns it inverted.
func geminiRegistry(file string) map[string]string {
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

// probeAll probes the sessions, a few files at a time.
func probeAll(ss []SessionInfo) {
	eachParallel(len(ss), func(i int) { probe(&ss[i]) })
}

// eachParallel calls fn for 0 to n-1 on a few goroutines.
func eachParallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), 8, n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// probe fills s from the head and the tail of its file.
func probe(s *SessionInfo) {
	f, err := os.Open(s.Path)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	size := fi.Size()
	if s.Agent == Gemini && strings.HasSuffix(s.Path, ".json") {
		if size <= maxSmallJSON {
			if d, err := readGemini(f, Limits{MaxFile: maxSmallJSON, MaxLine: maxSmallJSON}.withDefaults(), s.CWD); err == nil {
				fromDigest(s, d)
			}
		}
		return
	}
	p := newProber(s.Agent)
	sh := probeShape(s.Agent)
	if size > headBytes {
		scan(io.NewSectionReader(f, 0, headBytes), false, sh, p.head)
		off := max(size-tailBytes, headBytes)
		scan(io.NewSectionReader(f, off, size-off), true, sh, p.tail)
	} else {
		// The head is the whole file, and so is the tail: one pass
		// that reads each line as both gives what two would.
		scan(io.NewSectionReader(f, 0, size), false, sh, p.both)
	}
	p.fill(s)
	switch s.Agent {
	case ClaudeCode:
		claudeSubagents(s)
	}
}

func fromDigest(s *SessionInfo, d *Digest) {
	s.ID = firstNonEmpty(d.Session.ID, s.ID)
	s.subagent = d.Subagent
	s.CWD = firstNonEmpty(d.CWD, s.CWD)
	s.Title = d.Title
	if d.Session.StartedAt != nil {
		s.Started = *d.Session.StartedAt
	}
	if d.Session.LastActivity != nil {
		s.LastActivity = *d.Session.LastActivity
	}
}

// scan calls fn for each JSON object line of r, decoded to sh; when
// partial, the first line is assumed cut and skipped.
func scan(r io.Reader, partial bool, sh *shape, fn func(map[string]any)) {
	sc := scanners.Get().(*scanner)
	defer scanners.Put(sc)
	scanLines(r, partial, func(line []byte) {
		if m, ok := sc.p.parse(line, sh); ok {
			fn(m)
		}
	})
}

// scanLines calls fn for each line of r of at most headBytes; when
// partial, the first line is assumed cut and skipped.
func scanLines(r io.Reader, partial bool, fn func(line []byte)) {
	sc := scanners.Get().(*scanner)
	defer func() {
		sc.br.Reset(nil) // keep no file
		scanners.Put(sc)
	}()
	sc.br.Reset(r)
	lr := &sc.lr
	*lr = lineReader{br: sc.br, max: headBytes, buf: lr.buf[:0], first: true}
	first := true
	for {
		line, tooLong, err := lr.next()
		if err != nil {
			return
		}
		if first && partial {
			first = false
			continue
		}
		first = false
		if !tooLong {
			fn(line)
		}
	}
}

// A scanner is the reusable state of scan: probing a thousand files
// allocates buffers for a few.
type scanner struct {
	br *bufio.Reader
	lr lineReader
	p  jsonParser
}

var scanners = sync.Pool{New: func() any { return &scanner{br: bufio.NewReaderSize(nil, 64<<10)} }}

// prober gathers what discovery shows from the lines it sees.
type prober struct {
	agent                       Agent
	id, cwd, hash, version      string
	started, last               time.Time
	firstReq                    string
	custom, ai, summary, thread string
	topic                       string // Gemini: the last update_topic title seen
	metaSeen                    bool
	subagent                    bool
	// content is set by a Codex line other than session_meta.
	content bool
}

func newProber(a Agent) *prober { return &prober{agent: a} }

func (p *prober) head(m map[string]any) { p.line(m, true) }
func (p *prober) tail(m map[string]any) { p.line(m, false) }
func (p *prober) both(m map[string]any) { p.line(m, true); p.line(m, false) }

func (p *prober) line(m map[string]any, head bool) {
	ts, ok := getTime(m, "timestamp")
	if ok {
		if head && p.started.IsZero() {
			p.started = ts
		}
		if !head && ts.After(p.last) {
			p.last = ts
		}
	}
	switch p.agent {
	case ClaudeCode:
		switch getStr(m, "type") {
		case "summary":
			p.summary = firstNonEmpty(getStr(m, "summary"), p.summary)
		case "custom-title":
			p.custom = firstNonEmpty(getStr(m, "customTitle"), p.custom)
		case "ai-title":
			p.ai = firstNonEmpty(getStr(m, "aiTitle"), p.ai)
		case "user":
			if getBool(m, "isSidechain") {
				return
			}
			if v := getStr(m, "version"); v != "" && !head {
				p.version = v
			}
			if p.cwd == "" {
				p.cwd = getStr(m, "cwd")
			}
			if p.id == "" {
				p.id = getStr(m, "sessionId")
			}
			if head && p.firstReq == "" {
				for _, e := range claudeUser(m) {
					if e.kind == evRequest {
						p.firstReq = e.text
					}
				}
			}
		case "assistant", "system":
			if p.cwd == "" && !getBool(m, "isSidechain") {
				p.cwd = getStr(m, "cwd")
			}
			if v := getStr(m, "version"); v != "" && !head && !getBool(m, "isSidechain") {
				p.version = v
			}
		}
	case Codex:
		p.codexLine(m, head)
	case Gemini:
		p.geminiLine(m, head)
	}
}

func (p *prober) fill(s *SessionInfo) {
	Probed{ID: p.id, CWD: p.cwd, Version: p.version, Started: p.started, Last: p.last,
		Titles: []string{p.custom, p.thread, p.topic, p.ai, p.summary, p.firstReq}}.Fill(s)
	s.projectHash = p.hash
	s.subagent = p.subagent
	// A Codex rollout of session_meta alone is a TUI session in which
	// nothing was asked (one opened for /hooks): nothing to capture.
	s.empty = p.agent == Codex && p.metaSeen && !p.content
}

// MatchProject keeps the sessions whose working directory is projectDir
// or lies under it. A session whose directory is unknown matches by where
// the agent filed it: Claude Code names a project's directory after its
// path, and Gemini CLI (in its older layout) after the path's SHA-256.
func MatchProject(sessions []SessionInfo, projectDir string) []SessionInfo {
	dirs := []string{filepath.Clean(projectDir)}
	if abs, err := filepath.Abs(projectDir); err == nil && abs != dirs[0] {
		dirs = append(dirs, abs)
	}
	if real, err := filepath.EvalSymlinks(projectDir); err == nil && !slices.Contains(dirs, real) {
		dirs = append(dirs, real)
	}
	var out []SessionInfo
	for _, s := range sessions {
		if sessionMatches(s, dirs) {
			out = append(out, s)
		}
	}
	return out
}

func sessionMatches(s SessionInfo, dirs []string) bool {
	for _, d := range dirs {
		if s.CWD != "" {
			if UnderDir(s.CWD, d) {
				return true
			}
			continue
		}
		if s.FiledUnder != nil && s.FiledUnder(d) {
			return true
		}
	}
	return false
}

// filedUnder is SessionInfo.FiledUnder for the readers of this package.
func filedUnder(s SessionInfo) func(dir string) bool {
	switch s.Agent {
	case ClaudeCode:
		name := filepath.Base(filepath.Dir(s.Path))
		return func(d string) bool { return name == ClaudeProjectName(d) || name == claudeProjectNameOld(d) }
	case Gemini:
		filed := filepath.Base(filepath.Dir(filepath.Dir(s.Path)))
		return func(d string) bool {
			sum := sha256.Sum256([]byte(d))
			h := hex.EncodeToString(sum[:])
			return s.projectHash == h || filed == h
		}
	}
	return nil
}

// ClaudeProjectName is the name Claude Code gives a project's directory:
// the path with every character but letters and digits turned to "-".
func ClaudeProjectName(dir string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, dir)
}

// claudeProjectNameOld is the older naming: only "/" and "." turned to "-".
func claudeProjectNameOld(dir string) string {
	return strings.NewReplacer("/", "-", ".", "-").Replace(dir)
}

package transcript

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Discovery's toolkit for the readers in agents' folders
// (internal/agents/<name>): list the session files, probe the newest from
// the head and the tail of each, and give them newest first.

// Candidate is a session file found by its name, before it is probed.
type Candidate struct {
	// Path is the file; ID the session's id as its name gives it.
	Path, ID string
	// CWD is the session's directory when something beside the file
	// says it.
	CWD string
	// ModTime is the file's modification time; Size its size (0 when
	// not listed by ListFiles: such a file is always probed).
	ModTime time.Time
	Size    int64
}

// Subdirs lists the directories in dir; none when it cannot be read.
func Subdirs(dir string) []string { return subdirs(dir) }

// ListFiles appends to into the regular files in dir whose names pass
// keep, at most 100,000 in all.
func ListFiles(dir string, keep func(name string) bool, into *[]Candidate) {
	entries, err := ReadDir(dir)
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
		*into = append(*into, Candidate{Path: filepath.Join(dir, e.Name()), ModTime: fi.ModTime(), Size: fi.Size()})
	}
}

// A Prober reads what discovery shows of one session from the lines of
// its file: Line is called for each whole line of the first 256 KiB
// (head) and of the last 128 KiB (tail; a file that small gives each line
// once, as both), at most 256 KiB each; then Fill, which sets s's ID,
// CWD, Title, Started, LastActivity and AgentVersion from what it saw and
// says whether s is a session to list (not a subagent's, not empty).
type Prober interface {
	Line(line []byte, head, tail bool)
	Fill(s *SessionInfo) bool
}

// ProbeSessions makes the sessions of agent from files: the newest 1,000
// are probed, a few at a time, each by a new Prober; the rest are listed
// from their names and times. They come newest first.
func ProbeSessions(agent Agent, files []Candidate, newProber func() Prober) []SessionInfo {
	return ProbeSessionsWith(agent, files, func(s *SessionInfo) bool { return probeFile(s, newProber()) })
}

// probeFile feeds p the head and the tail of s's file, then fills s. A
// file that cannot be read is listed as found.
func probeFile(s *SessionInfo, p Prober) bool {
	f, _, err := safefile.OpenRegular(s.Path)
	if err != nil {
		return true
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return true
	}
	size := fi.Size()
	if size > headBytes {
		scanLines(io.NewSectionReader(f, 0, headBytes), false, func(l []byte) { p.Line(l, true, false) })
		off := max(size-tailBytes, headBytes)
		scanLines(io.NewSectionReader(f, off, size-off), true, func(l []byte) { p.Line(l, false, true) })
	} else {
		scanLines(io.NewSectionReader(f, 0, size), false, func(l []byte) { p.Line(l, true, true) })
	}
	return p.Fill(s)
}

// MaxProbed is how many of the newest files ProbeSessions probes; the
// rest are listed from their names and times.
const MaxProbed = maxProbed

// ProbeSessionsWith is ProbeSessions with probe to probe each of the
// newest files: it fills s from its file and says whether s is a session
// to list.
func ProbeSessionsWith(agent Agent, files []Candidate, probe func(s *SessionInfo) bool) []SessionInfo {
	slices.SortFunc(files, func(a, b Candidate) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	out := make([]SessionInfo, 0, len(files))
	for _, c := range files {
		out = append(out, SessionInfo{Agent: agent, Path: c.Path, ID: c.ID, CWD: c.CWD, LastActivity: c.ModTime, FileSize: c.Size, FileTime: c.ModTime})
	}
	probed := out[:min(len(out), maxProbed)]
	eachParallel(len(probed), func(i int) {
		s := &probed[i]
		s.empty = !cachedProbe(s, files[i].Size, probe)
	})
	out = slices.DeleteFunc(out, func(s SessionInfo) bool { return s.empty })
	slices.SortStableFunc(out, func(a, b SessionInfo) int { return b.LastActivity.Compare(a.LastActivity) })
	return out
}

// ProbeFile feeds p the head and the tail of s's file and fills s, as
// ProbeSessions does for each file it probes; it says whether s is a
// session to list. A file that cannot be read is listed as found.
func ProbeFile(s *SessionInfo, p Prober) bool { return probeFile(s, p) }

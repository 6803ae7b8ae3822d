package transcript

import (
	"bufio"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
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
	// FileSize and FileTime are Path's size and modification time as
	// discovery listed the file; FileTime is zero when it did not (a
	// database that many sessions share).
	FileSize int64
	FileTime time.Time
	// Subagents are the transcripts of the session's subagents (Claude
	// Code), listed for the sessions whose files are probed.
	Subagents []SubagentInfo
	// FiledUnder, when the agent sets it, says whether the agent filed
	// the session under the project at dir: how MatchProject matches a
	// session whose working directory is unknown (Claude Code names a
	// project's directory after its path, Gemini CLI's older layout
	// after the path's SHA-256).
	FiledUnder func(dir string) bool

	empty bool // a transcript with no session in it: never listed
}

// SubagentInfo is one subagent transcript of a session, for the agents
// that keep each subagent in a file of its own.
type SubagentInfo struct {
	// ID is the agent's id, from the file name.
	ID   string
	Path string
	// AgentVersion is the version of the agent that wrote it.
	AgentVersion string
}

// maxSubagents bounds the subagents folded into one session.
const maxSubagents = 64

// Bounds on discovery.
const (
	// maxListed caps the transcript files discovery considers.
	maxListed = 100_000
	// maxProbed caps the files whose head and tail are read; older ones
	// are listed from their names and times only.
	maxProbed = 1000
	headBytes = 256 << 10
	tailBytes = 128 << 10
)

func subdirs(dir string) []string {
	entries, err := ReadDir(dir)
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
}

var scanners = sync.Pool{New: func() any { return &scanner{br: bufio.NewReaderSize(nil, 64<<10)} }}

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

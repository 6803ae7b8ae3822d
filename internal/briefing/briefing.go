// Package briefing gathers the start-of-session briefing for a project:
// its identity and memory files, the latest handoff made for it, and how
// its git worktree moved since. The resume command and the agents'
// session-start hooks both brief through it; package render turns what it
// gathers into text.
//
// Everything it reads may be hostile: memory files must be regular files
// inside the project (a cloned repository cannot point SOUL.md at a key
// file), are read with a size bound and never block, and have secrets
// redacted before they are quoted.
package briefing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
)

// MemoryFileNames are the identity and memory files a briefing quotes, in
// the order it quotes them.
var MemoryFileNames = []string{"SOUL.md", "MEMORY.md"}

// Options say what to brief on and how.
type Options struct {
	// Project is the project's root directory, as capture.ProjectRoot
	// names it (the git state is read there without asking git again).
	Project string
	// MemoryDir is the memory directory, relative to Project or absolute.
	MemoryDir string
	// Render is how the briefing is rendered (the agent's style, a budget).
	Render render.Options
	// Warn is told, one line each, what was left out and why; the briefing
	// still comes. Nil: nothing is said.
	Warn func(format string, args ...any)
}

func (o Options) warn(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(format, args...)
	}
}

// Gather collects the briefing's parts. What cannot be read (a memory file
// that is not regular, git that fails) is left out with a warning rather
// than failing, since hooks run it at every session start; only a store
// that cannot be read is an error.
func Gather(ctx context.Context, s *store.Store, o Options) (render.Briefing, error) {
	br := render.Briefing{Project: o.Project}
	br.Memory = ReadMemoryFiles(o.Project, o.MemoryDir, o.warn)
	var err error
	if br.Record, br.MatchedByName, err = s.LatestForProject(o.Project); err != nil {
		return br, err
	}
	if br.Record != nil && br.Record.Git != nil {
		if br.Drift, err = capture.SinceAtRoot(ctx, o.Project, br.Record.Git); err != nil {
			if !errors.Is(err, capture.ErrNotGitRepo) && !errors.Is(err, capture.ErrNoGit) {
				o.warn("git changes since the handoff left out: %v", err)
			}
			br.Drift = nil
		}
	}
	return br, nil
}

// Build gathers the briefing and renders it.
func Build(ctx context.Context, s *store.Store, o Options) (render.Briefing, *render.Result, error) {
	br, err := Gather(ctx, s, o)
	if err != nil {
		return br, nil, err
	}
	res, err := render.RenderBriefing(br, o.Render)
	return br, res, err
}

// ReadMemoryFiles reads the identity and memory files of the project at
// root: each from the memory directory, or else the project root. A file
// must be a regular file whose real path is inside the project (or inside
// an absolute memDir the user named). Secrets in them are redacted. A file
// that cannot be quoted is left out and warn is told why.
func ReadMemoryFiles(root, memDir string, warn func(string, ...any)) []render.MemoryFile {
	return ReadNamedMemoryFiles(root, memDir, MemoryFileNames, warn)
}

// ReadNamedMemoryFiles is ReadMemoryFiles of other files of the memory
// directory (names relative to it, with forward slashes; the MCP server
// serves HANDOFF.md and layer2/current-state.md too). Only a name without
// a directory is also looked for at the project root.
func ReadNamedMemoryFiles(root, memDir string, names []string, warn func(string, ...any)) []render.MemoryFile {
	type place struct{ dir, bound string }
	places := []place{{filepath.Join(root, memDir), root}, {root, root}}
	if filepath.IsAbs(memDir) {
		// A memory directory the user names outside the project bounds
		// its own files.
		places[0] = place{memDir, memDir}
	}
	var out []render.MemoryFile
	for _, name := range names {
		for i, pl := range places {
			if i > 0 && strings.Contains(name, "/") {
				break
			}
			path := filepath.Join(pl.dir, filepath.FromSlash(name))
			shown := path
			if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
				shown = filepath.ToSlash(r)
			}
			m, err := readMemoryFile(pl.bound, path, shown)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue
			}
			if err != nil {
				warn("%s left out of the briefing: %v", shown, err)
				break
			}
			out = append(out, m)
			break
		}
	}
	return out
}

// readMemoryFile reads one memory file, refusing one whose real path is
// outside bound or that is not a regular file. It never blocks: a FIFO is
// opened non-blocking and refused.
func readMemoryFile(bound, path, name string) (render.MemoryFile, error) {
	realBound, err := filepath.EvalSymlinks(bound)
	if err != nil {
		return render.MemoryFile{}, err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return render.MemoryFile{}, err
	}
	if !strings.HasPrefix(real, realBound+string(filepath.Separator)) {
		return render.MemoryFile{}, fmt.Errorf("it points outside the project (to %s)", real)
	}
	f, err := os.OpenFile(real, os.O_RDONLY|safefile.OpenNonBlock|safefile.OpenNoFollow, 0)
	if err != nil {
		return render.MemoryFile{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return render.MemoryFile{}, err
	}
	if !info.Mode().IsRegular() {
		return render.MemoryFile{}, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, render.MaxMemoryFile))
	if err != nil {
		return render.MemoryFile{}, err
	}
	// The machine-readable header of a file memory wrote is not for the
	// agent.
	if rest, ok := bytes.CutPrefix(data, []byte("<!-- session-handoff:memory ")); ok {
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			data = rest[i+1:]
		}
	}
	text := redact.Default().String(string(data), name, &redact.Report{})
	return render.MemoryFile{Name: name, Text: text, Cut: max(0, info.Size()-int64(len(data)))}, nil
}

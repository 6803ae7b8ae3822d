package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
	"github.com/session-handoff/session-handoff/targets"
)

// memoryFileNames are the identity and memory files a briefing quotes, in
// the order it quotes them.
var memoryFileNames = []string{"SOUL.md", "MEMORY.md"}

func init() {
	register(&command{
		name:    "resume",
		summary: "brief an agent at the start of a session: memory, the latest handoff, what changed since",
		usage:   "resume [--target T] [--project DIR] [--memory-dir DIR] [--budget N] [--json]",
		help: `Prints the start-of-session briefing for the project: its identity and
memory files (SOUL.md, MEMORY.md in the memory directory or the project
root) when it has them, the latest handoff for the project, and how the git
worktree moved since that handoff (new commits, branch switched, files
changed since). The handoff is found by the project's path, or else by its
name (a handoff made on another machine).

Memory files are read only when they are regular files inside the project
(a symlink pointing out of it is refused), at most 16 KiB each, with
secrets redacted. With no memory and no handoff the briefing says so and
the exit status is still 0, so it can run from a session-start hook.

--budget covers the whole briefing. The handoff gives way first, by the
plan render --help describes; then the memory files are shortened, and at
last left out and only named. What gave way is said on stderr.`,
		example: `  session-handoff resume --target claude-code
  session-handoff resume --json | jq .drift.relation`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeFlag(fs, a)
			target := fs.String("target", "generic", "the agent: "+strings.Join(targets.Names(), ", "))
			project := fs.String("project", ".", "the project directory")
			memDir := fs.String("memory-dir", "memory", "the memory directory, relative to the project root")
			budget := fs.String("budget", "", "size limit: tokens (8000) or bytes (32KiB)")
			asJSON := fs.Bool("json", false, "print the briefing and its parts as JSON")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments")
				}
				p, err := targets.Lookup(*target)
				if err != nil {
					return usageError{err}
				}
				b, err := render.ParseBudget(*budget)
				if err != nil {
					return usageError{err}
				}
				root, err := a.projectRoot(*project)
				if err != nil {
					return err
				}
				s, err := a.openStore()
				if err != nil {
					return err
				}
				br, res, err := a.briefing(s, root, *memDir, p, b)
				if err != nil {
					return err
				}
				if *asJSON {
					return a.writeJSON(resumeJSON{Project: root, Memory: br.Memory, Handoff: br.Record,
						MatchedByName: br.MatchedByName, Drift: br.Drift, Omitted: res.Omitted, Shortened: res.Shortened, Briefing: res.Text})
				}
				if _, err := io.WriteString(a.stdout, res.Text); err != nil {
					return err
				}
				a.noteLeftOut(res, b)
				return nil
			}
		},
	})
}

// briefing gathers and renders the start-of-session briefing for the
// project at root: memory files, the latest handoff, what git did since.
// What cannot be read is left out with a warning rather than failing,
// since hooks run it at every session start.
func (a *app) briefing(s *store.Store, root, memDir string, p targets.Profile, b render.Budget) (render.Briefing, *render.Result, error) {
	br := render.Briefing{Project: root}
	br.Memory = readMemoryFiles(root, memDir, a.warn)
	var err error
	if br.Record, br.MatchedByName, err = latestFor(s, root); err != nil {
		return br, nil, err
	}
	if br.Record != nil && br.Record.Git != nil {
		if br.Drift, err = capture.Since(a.ctx, root, br.Record.Git); err != nil {
			if !errors.Is(err, capture.ErrNotGitRepo) && !errors.Is(err, capture.ErrNoGit) {
				a.warn("git changes since the handoff left out: %v", err)
			}
			br.Drift = nil
		}
	}
	res, err := render.RenderBriefing(br, render.Options{Style: p.Style, Budget: b})
	return br, res, err
}

// resumeJSON is resume's --json output.
type resumeJSON struct {
	Project       string              `json:"project"`
	Memory        []render.MemoryFile `json:"memory"`
	Handoff       *handoff.Record     `json:"handoff"`
	MatchedByName bool                `json:"matched_by_name,omitempty"`
	Drift         *handoff.Drift      `json:"drift"`
	Omitted       []string            `json:"omitted,omitempty"`
	Shortened     []string            `json:"shortened,omitempty"`
	Briefing      string              `json:"briefing"`
}

// latestFor finds the newest handoff made for the project at root: by
// its path (exactly, not a project below it), or else by the directory's
// name (a handoff made on another machine).
func latestFor(s *store.Store, root string) (*handoff.Record, bool, error) {
	entries, err := s.List(store.Filter{Project: root, Limit: 1000})
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries {
		if e.ProjectPath == root {
			rec, err := s.Get(e.ID)
			return rec, false, err
		}
	}
	name := filepath.Base(root)
	if name == "/" || name == "." || strings.ContainsRune(name, filepath.Separator) {
		return nil, false, nil
	}
	entries, err = s.List(store.Filter{Project: name, Latest: true})
	if err != nil || len(entries) == 0 {
		return nil, false, err
	}
	rec, err := s.Get(entries[0].ID)
	return rec, true, err
}

// readMemoryFiles reads the identity and memory files of the project:
// each from the memory directory, or else the project root. A file must be
// a regular file whose real path is inside the project, so a cloned
// repository cannot point SOUL.md at a key file and have it quoted to an
// agent. Secrets in them are redacted. A file that cannot be quoted is
// left out with a warning: the briefing still comes.
func readMemoryFiles(root, memDir string, warn func(string, ...any)) []render.MemoryFile {
	type place struct{ dir, bound string }
	places := []place{{filepath.Join(root, memDir), root}, {root, root}}
	if filepath.IsAbs(memDir) {
		// A memory directory the user names outside the project bounds
		// its own files.
		places[0] = place{memDir, memDir}
	}
	var out []render.MemoryFile
	for _, name := range memoryFileNames {
		for _, pl := range places {
			path := filepath.Join(pl.dir, name)
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
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
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

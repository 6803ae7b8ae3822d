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
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/changes"
	"github.com/session-handoff/session-handoff/internal/handover"
	"github.com/session-handoff/session-handoff/internal/memory"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
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
	var match store.ProjectMatch
	var identity func() handoff.Identity
	if f := capture.IdentityFunc(ctx, o.Project); f != nil {
		identity = sync.OnceValue(f) // two git calls, made once
	}
	if br.Record, match, err = s.LatestForProject(o.Project, identity); err != nil {
		return br, err
	}
	br.MatchedByName, br.MatchedElsewhere = match == store.MatchName, match == store.MatchIdentity
	if br.Record != nil && !br.Record.HasSubstance() {
		if earlier := lastWithSubstance(s, br.Record, o.Project, identity); earlier != nil {
			br.PassedOver, br.Record = br.Record, earlier
			switch earlier.Project.Path {
			case o.Project:
				br.MatchedByName, br.MatchedElsewhere = false, false
			case br.PassedOver.Project.Path:
			default: // imported for the same repository at another path
				br.MatchedByName, br.MatchedElsewhere = false, true
			}
		}
	}
	if br.Record == nil {
		// No handoff in this store (another machine, the memory came
		// through git): brief from what the memory directory holds.
		if more := ReadHandoverFiles(o.Project, o.MemoryDir, o.warn); len(more) > 0 {
			br.Memory = append(br.Memory, more...)
			br.FromMemoryDir = true
		}
	}
	if br.Record != nil {
		br.Changes = carried(s, o.Project, br.Record)
	}
	br.InterruptedRun = interruptedRun(s, o.Project)
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

// interruptedRun is one line on the project's handover run when it
// stopped with steps left and no process runs it now; "" otherwise, also
// when its checkpoint cannot be read ('handover check' says why).
func interruptedRun(s *store.Store, project string) string {
	stateDir := handover.StateDir(s.Dir(), project)
	st, cp, err := handover.Check(stateDir)
	if err != nil || st != handover.StatusResumeNeeded || cp == nil || handover.Running(stateDir) {
		return ""
	}
	return fmt.Sprintf("The last session's end-of-session writes did not all run: handover run %s stopped with steps left (%s). Tell the user; `session-handoff handover run` finishes them.",
		untrusted.OneLine(cp.RunID, 64), untrusted.OneLine(strings.Join(cp.Pending(), ", "), 256))
}

// carried is what rec carries of its worktree's uncommitted changes, and
// whether the worktree at root holds them now, by a look that starts no
// process and is bounded whatever the patch (changes.AppliedState: the
// session-start path never waits on git apply); nil when it carries none
// or they cannot be read (a patch over changes.MaxPatch is not read at
// all; the briefing then says the handoff carries a patch it could not
// read).
func carried(s *store.Store, root string, rec *handoff.Record) *render.CarriedChanges {
	files, st, err := changes.CarriedState(s, rec, root)
	if err != nil || files == 0 {
		return nil
	}
	return &render.CarriedChanges{Files: files, Applied: st == changes.AllApplied, CannotTell: st == changes.CannotTell}
}

// substanceLookback bounds the project's handoffs read, newest first, to
// find one with substance behind a newest one without; storeLookback
// bounds the store's handoffs listed to find them among (those of other
// projects between them).
const (
	substanceLookback = 20
	storeLookback     = 500
)

// lastWithSubstance is the newest handoff of the project, entered before
// newest, that has substance (handoff.Record.HasSubstance): one made at
// newest's path or at root, or imported, vouched for, for the same
// repository (identity, as store.LatestForProject takes it: my other
// machine's work, which sync brought). nil when none of the project's
// last substanceLookback has, or they cannot be read.
func lastWithSubstance(s *store.Store, newest *handoff.Record, root string, identity func() handoff.Identity) *handoff.Record {
	entries, err := s.List(store.Filter{Limit: storeLookback})
	if err != nil {
		return nil
	}
	seen := 0
	for _, e := range entries {
		if seen >= substanceLookback {
			break
		}
		if e.ID == newest.ID {
			continue
		}
		here := e.ProjectPath == newest.Project.Path || e.ProjectPath == root
		if !here && (e.Source != handoff.SourceImport || identity == nil) {
			continue
		}
		rec, err := s.Get(e.ID)
		if err != nil {
			continue
		}
		if !here && !identity().Takes(rec) {
			continue
		}
		seen++
		if rec.HasSubstance() {
			return rec
		}
	}
	return nil
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
// directory (an identity file still memory init's template is skipped, as
// if it were not there) (names relative to it, with forward slashes; the MCP server
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
			if err == nil && memory.IsTemplate(name, m.Text) {
				continue // memory init's template, not yet written in
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

// RecentNotes is how many of the newest session notes a briefing without
// a handoff quotes.
const RecentNotes = 3

// ReadHandoverFiles reads what a handover left in the memory directory
// of the project at root, for a briefing that has no handoff from the
// store: HANDOFF.md (from the memory directory, or else the project root),
// layer2/current-state.md and the RecentNotes newest
// layer-1 notes (newest first), each bounded, redacted and checked as
// ReadMemoryFiles does. Files in agent-handover's older form are quoted
// as they are, without their header line.
func ReadHandoverFiles(root, memDir string, warn func(string, ...any)) []render.MemoryFile {
	dir := memDir
	bound := root
	if filepath.IsAbs(memDir) {
		bound = memDir
	} else {
		dir = filepath.Join(root, memDir)
	}
	// HANDOFF.md, like SOUL.md and MEMORY.md, may be at the project root
	// (agent-handoff kept all three there).
	out := ReadNamedMemoryFiles(root, memDir, []string{memory.HandoffFile}, warn)
	rels := []string{memory.StateFile}
	if notes, err := (memory.Dir{Root: dir}).List(1, ""); err == nil {
		sort.SliceStable(notes, func(i, j int) bool {
			return notes[i].Date > notes[j].Date || notes[i].Date == notes[j].Date && notes[i].Path > notes[j].Path
		})
		for i := 0; i < len(notes) && i < RecentNotes; i++ {
			rels = append(rels, notes[i].Path)
		}
	}
	for _, rel := range rels {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		shown := path
		if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
			shown = filepath.ToSlash(r)
		}
		m, err := readMemoryFile(bound, path, shown)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			warn("%s left out of the briefing: %v", shown, err)
			continue
		}
		out = append(out, m)
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
	for _, prefix := range []string{"<!-- session-handoff:memory ", "<!-- agent-handover |"} {
		if rest, ok := bytes.CutPrefix(data, []byte(prefix)); ok {
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				data = rest[i+1:]
			}
		}
	}
	text := redact.Default().String(string(data), name, &redact.Report{})
	return render.MemoryFile{Name: name, Text: text, Cut: max(0, info.Size()-int64(len(data)))}, nil
}

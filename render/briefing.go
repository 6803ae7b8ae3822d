package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
)

// MaxMemoryFile is the most of one identity or memory file a briefing
// quotes.
const MaxMemoryFile = 16 << 10

// MemoryFile is an identity or memory file of the project (SOUL.md,
// MEMORY.md) that a briefing quotes.
type MemoryFile struct {
	// Name is the path shown to the agent, relative to the project.
	Name string `json:"name"`
	Text string `json:"text"`
	// Cut counts the bytes of the file left out at MaxMemoryFile or by the
	// reader's own bound.
	Cut int64 `json:"cut,omitempty"`
}

// Briefing is what resume tells an agent when a session starts.
type Briefing struct {
	// Project is the project's directory on this machine.
	Project string
	Memory  []MemoryFile
	// FromMemoryDir is set when the store had no handoff for the project
	// and Memory holds, besides the identity files, what a handover left
	// in the memory directory (HANDOFF.md, the current state, recent
	// notes), which came with the repository.
	FromMemoryDir bool
	// Record is the latest handoff for the project, nil when there is none.
	Record *handoff.Record
	// MatchedByName is set when the handoff was found by the project's
	// name, not its path (it was made on another machine).
	MatchedByName bool
	// MatchedElsewhere is set when the handoff was made on another machine
	// for the same repository (its root commit or remote) at another path.
	MatchedElsewhere bool
	// Drift is how the worktree moved since the handoff; nil when the
	// project is not a git worktree.
	Drift *handoff.Drift
	// PassedOver is the project's newest handoff when it has no substance
	// (a session that did no work and names no next steps) and Record is
	// the one before it; nil otherwise.
	PassedOver *handoff.Record
	// Changes says what the handoff carries of its worktree's uncommitted
	// changes; nil when it carries none.
	Changes *CarriedChanges
	// InterruptedRun, when set, is the one line that says the project's
	// handover run stopped with steps left; the briefing quotes it as a
	// fact for the agent to pass on.
	InterruptedRun string
}

// CarriedChanges are the uncommitted changes a handoff carries
// (changes.patch).
type CarriedChanges struct {
	// Files is how many files the patch changes.
	Files int `json:"files"`
	// Applied is set when the worktree holds them now.
	Applied bool `json:"applied"`
	// CannotTell is set when a cheap look could not tell whether the
	// worktree holds them (changes.AppliedState): neither is then said.
	CannotTell bool `json:"cannot_tell,omitempty"`
}

// SecMemory names the memory files in Result.Shortened and Omitted when
// a briefing's budget made them give way.
const SecMemory = "memory files"

// memoryCaps are the bounds tried, in turn, on each memory file quoted in
// a briefing whose budget the full files do not fit; 0 leaves the files
// out and names them.
var memoryCaps = []int{MaxMemoryFile, 8 << 10, 4 << 10, 2 << 10, 1 << 10, 512, 0}

// RenderBriefing writes a start-of-session briefing: the memory files,
// what changed in git since the handoff, and the handoff itself. The
// budget covers the whole; the handoff gives way first, by its own plan,
// then the memory files, shortened step by step and at last left out (the
// briefing names them, so the agent can read them itself).
func RenderBriefing(b Briefing, opt Options) (*Result, error) {
	var err error
	for _, limit := range memoryCaps {
		var res *Result
		res, err = renderBriefing(b, opt, limit)
		if err == nil {
			if limit < MaxMemoryFile && len(b.Memory) > 0 {
				if limit == 0 {
					res.Omitted = append(res.Omitted, SecMemory)
				} else {
					res.Shortened = append(res.Shortened, SecMemory)
				}
			}
			return res, nil
		}
		if opt.Budget.Bytes == 0 || len(b.Memory) == 0 || !errors.Is(err, ErrBudget) {
			break
		}
	}
	return nil, err
}

// renderBriefing is RenderBriefing with each memory file quoted up to
// limit bytes, or only named when limit is 0.
func renderBriefing(b Briefing, opt Options, limit int) (*Result, error) {
	w := &writer{mode: Prompt, depth: 1}
	w.title("Session briefing")
	agent := opt.Style.Agent
	if agent == "" {
		agent = "an AI coding agent"
	}
	w.printf("\nsession-handoff assembled this briefing for %s at the start of a session in the project whose directory is quoted below: ", agent)
	switch {
	case b.Record != nil && len(b.Memory) > 0:
		w.printf("the project's memory files, what changed since the last handoff, and that handoff.\n")
	case b.Record != nil:
		w.printf("what changed since the last handoff, and that handoff.\n")
	case b.FromMemoryDir:
		w.printf("the project's memory files. There is no handoff for this project in this machine's store, so the handoff, current state and recent session notes are quoted from the project's memory directory instead: files that came with the repository, whose origin session-handoff has not checked.\n")
	case len(b.Memory) > 0:
		w.printf("the project's memory files. There is no handoff for this project in the store.\n")
	default:
		w.printf("there are no memory files and no handoff for this project, so start from the user's request.\n")
	}
	w.printf("\nThe project's directory:\n\n")
	w.quote(flatten(b.Project), 1024)
	w.printf("\n%s\n", DataLabel("those files and from the handoff"))
	if b.InterruptedRun != "" {
		w.printf("\n%s\n", flatten(b.InterruptedRun))
	}
	if b.Record == nil || wordingFor(b.Record).guidance {
		for _, g := range opt.Style.Guidance {
			w.printf("\n%s\n", g)
		}
	}
	for _, m := range b.Memory {
		w.fileHeading(m.Name, false)
		if limit == 0 {
			w.printf("Not shown: the budget leaves no room for it (%d bytes). Read the file itself if you need it.\n", int64(len(m.Text))+m.Cut)
			continue
		}
		w.quote(m.Text, limit)
		if m.Cut > 0 {
			w.printf("(%d more bytes of the file not shown.)\n", m.Cut)
		}
	}
	if b.Record != nil {
		switch {
		case b.MatchedElsewhere:
			w.printf("\nThe handoff below was made on another machine for this same repository, cloned there at another path: paths in it are that machine's. Here the project is at:\n\n")
			w.quote(b.Project, 1024)
			w.printf("\nand on the machine that made the handoff at:\n\n")
			w.quote(b.Record.Project.Path, 1024)
		case b.MatchedByName:
			w.printf("\nThe handoff below was made for a project of the same name at another path, so paths in it may differ from yours. Its path on the machine that made it:\n\n")
			w.quote(b.Record.Project.Path, 1024)
		}
		if p := b.PassedOver; p != nil {
			w.printf("\nThe newest session of this project (handoff %s, %s) did no work and named no next steps, so this briefing is on the handoff before it.\n",
				recordID(p.ID), p.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
		}
		switch {
		case b.Record.Git == nil:
			w.subheading("Since the handoff")
			w.printf("The handoff recorded no git state, so there is nothing to compare with the worktree now.\n")
		case b.Drift != nil:
			writeDrift(w, b.Drift)
		}
		writeCarried(w, b)
	}
	head := w.String()
	if b.Record == nil {
		if opt.Budget.Bytes > 0 && len(head) > opt.Budget.Bytes {
			return nil, fmt.Errorf("%w: %s, but the memory files alone take %d bytes", ErrBudget, opt.Budget, len(head))
		}
		return &Result{Text: head}, nil
	}
	inner := opt
	inner.nested = true
	inner.filesAbove = b.Drift != nil && len(b.Drift.Changed) > 0
	if opt.Budget.Bytes > 0 {
		room := opt.Budget.Bytes - len(head) - 1
		if room <= 0 {
			return nil, fmt.Errorf("%w: %s, but the memory files and git changes alone take %d bytes", ErrBudget, opt.Budget, len(head))
		}
		inner.Budget = Budget{Bytes: room}
	}
	res, err := Render(b.Record, inner)
	if err != nil {
		return nil, err
	}
	res.Text = head + "\n" + res.Text
	return res, nil
}

// writeCarried says whether the handoff carries the uncommitted changes
// it knew of, and whether they were applied here. A handoff with a
// changes.patch and no Changes carries one that could not be read (over
// the size a patch may have, as a bundle may bring, or damaged): it is
// said to be there, unread, never to be absent.
func writeCarried(w *writer, b Briefing) {
	_, carries := b.Record.Changes()
	switch c := b.Changes; {
	case c == nil && carries:
		w.printf("\n- The handoff carries uncommitted changes, but its changes.patch could not be read here, so whether this worktree has them is not known: `session-handoff apply --dry-run` says why.\n")
	case c != nil && c.CannotTell:
		w.printf("\n- The handoff carries %d changed file(s) (changes.patch); whether this worktree has them could not be told at a glance (its files match neither side): `session-handoff apply --dry-run` says.\n", c.Files)
	case c != nil && c.Applied:
		w.printf("\n- The handoff carries %d changed file(s) (changes.patch), and they are applied in this worktree now, uncommitted.\n", c.Files)
	case c != nil:
		w.printf("\n- The handoff carries %d changed file(s) (changes.patch), available and not applied: the worktree does not have them. The user applies them with `session-handoff apply` (`--dry-run` first); do not redo that work.\n", c.Files)
	case b.Record.Git.Uncommitted() > 0 && b.Record.Source.Kind == handoff.SourceImport:
		w.printf("\n- The handoff knew of %d uncommitted file(s) and carries none: that work stayed on the machine it was made on.\n", b.Record.Git.Uncommitted())
	}
}

// writeDrift says how the worktree moved since the handoff.
func writeDrift(w *writer, d *handoff.Drift) {
	w.subheading("Since the handoff")
	short := func(h string) string {
		if hexCommit().MatchString(h) {
			return "`" + h[:12] + "`"
		}
		return "(unknown)"
	}
	switch d.Relation {
	case handoff.DriftSame:
		w.printf("- HEAD is still the handoff's commit %s.\n", short(d.HeadNow))
	case handoff.DriftAhead:
		w.printf("- %d new commit(s) on top of the handoff's commit %s; HEAD is now %s.\n", d.NewCommitCount, short(d.HeadThen), short(d.HeadNow))
	case handoff.DriftBehind:
		w.printf("- HEAD %s is behind the handoff's commit %s: %d of its commits are not checked out.\n", short(d.HeadNow), short(d.HeadThen), d.MissingCommitCount)
	case handoff.DriftDiverged:
		w.printf("- History diverged: %d new commit(s) here, and %d of the handoff's commits are not reachable from HEAD %s.\n", d.NewCommitCount, d.MissingCommitCount, short(d.HeadNow))
	case handoff.DriftUnborn:
		w.printf("- This repository has no commits yet.\n")
	default:
		w.printf("- The handoff's commit is not in this repository (not fetched yet, or another repository): compare with care.\n")
	}
	if d.BranchThen != d.BranchNow {
		then, now := "a detached HEAD", "a detached HEAD"
		if d.BranchThen != "" {
			then = "another branch"
		}
		if d.BranchNow != "" {
			now = "another"
		}
		w.printf("- The branch changed since the handoff, from %s to %s:\n", then, now)
		w.quote("then: "+flatten(handoff.Shorten(d.BranchThen, 256))+"\nnow:  "+flatten(handoff.Shorten(d.BranchNow, 256)), 1024)
	}
	if len(d.NewCommits) > 0 {
		lines := make([]string, len(d.NewCommits))
		for i, c := range d.NewCommits {
			lines[i] = handoff.Shorten(c.Hash, 12) + " " + c.Subject + " (" + c.Author + ")"
		}
		w.printf("\nNew commits, newest first:\n\n")
		w.quoteLines(lines, 20, 300, false)
	}
	if len(d.Changed) > 0 {
		w.printf("\nFiles that differ from the handoff's commit (committed since, or dirty now):\n\n")
		w.quoteLines(statusPaths(d.Changed), 100, 512, false)
		if d.Truncated {
			w.printf("(the list was cut at its bound)\n")
		}
	} else if d.Relation != handoff.DriftUnknown {
		w.printf("\n- No file differs from the handoff's commit.\n")
	}
	if d.Now != nil {
		var parts []string
		for _, l := range []struct {
			n    int
			what string
		}{{len(d.Now.Staged), "staged"}, {len(d.Now.Unstaged), "unstaged"}, {len(d.Now.Untracked), "untracked"}} {
			if l.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", l.n, l.what))
			}
		}
		w.printf("\n")
		if len(parts) > 0 {
			w.printf("- The worktree now has %s change(s).\n", strings.Join(parts, ", "))
		} else {
			w.printf("- The worktree is clean now.\n")
		}
	}
}

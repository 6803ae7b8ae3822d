package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/git"
)

// MaxDriftCommits caps handoff.Drift.NewCommits.
const MaxDriftCommits = 50

// Bounds used by Since: the exported constants, held in variables so that
// tests can lower them.
var (
	driftCommitLimit = MaxDriftCommits
	driftListLimit   = MaxListed
)

// driftNameLimit clips the branch and HEAD copied from the handoff, which
// come from an imported bundle and are reported, never passed to git.
const driftNameLimit = 1000

// Since reads the worktree that contains dir and tells how it has moved
// since then, a handoff's git snapshot. then may come from an imported
// bundle: none of its strings reaches git except a HEAD that is exactly a
// full lower-case hex commit hash, and that only after --end-of-options.
// A nil then, a missing or malformed HEAD, or a commit this repository
// does not have gives Relation handoff.DriftUnknown, not an error. When dir is not
// in a git worktree the error wraps ErrNotGitRepo.
func Since(ctx context.Context, dir string, then *handoff.GitState) (*handoff.Drift, error) {
	return sinceIn(ctx, dir, then, false)
}

// SinceAtRoot is Since for a root that ProjectRoot found, as the
// session-start briefing has: it does not ask git for the root again, nor
// read the recent commits (the drift's Now.RecentCommits stays empty; the
// briefing shows only counts of the changes now), and it asks whether the
// handoff's HEAD is a commit here only when HEAD has moved since. In the
// common case that is one round of two git processes (status and the
// diff) instead of five, on the path every agent session starts with
// (issue 19).
func SinceAtRoot(ctx context.Context, root string, then *handoff.GitState) (*handoff.Drift, error) {
	return sinceIn(ctx, root, then, true)
}

// briefingStateCmds is what SinceAtRoot reads of the worktree now.
var briefingStateCmds = [][]string{stateCmds[1]}

func sinceIn(ctx context.Context, dir string, then *handoff.GitState, atRoot bool) (*handoff.Drift, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	state := stateCmds
	if atRoot {
		state = briefingStateCmds
	}
	// Everything that does not wait for another answer runs in one round:
	// State's reads, and with a usable HEAD then, the diff against it
	// (--no-relative: paths from the root whatever the directory and
	// diff.relative say; -M: renames found whatever diff.renames says) and
	// the check that the commit exists. The diff is used only if it does.
	cmds := state
	known := then != nil && handoff.ValidCommit(then.Head)
	if known {
		cmds = append(slices.Clone(state), diffCmd(then.Head))
		if !atRoot {
			cmds = append(cmds, resolveCmd(then.Head))
		}
	}
	g, err := reader(ctx, abs)
	if err != nil {
		return nil, err
	}
	res := g.RunAll(ctx, cmds...)
	var now *handoff.GitState
	if atRoot {
		now, err = parseStatusAt(ctx, abs, res[0])
	} else {
		now, err = parseState(ctx, abs, res[:len(state)])
	}
	if err != nil {
		return nil, err
	}
	d := &handoff.Drift{Now: now, BranchNow: now.Branch, HeadNow: now.Head, Relation: handoff.DriftUnknown}
	if then == nil {
		return d, nil
	}
	d.BranchThen = handoff.Clip(then.Branch, driftNameLimit)
	d.HeadThen = handoff.Clip(then.Head, driftNameLimit)
	d.SameRoot = then.Root != "" && then.Root == now.Root
	if !known {
		return d, nil
	}
	diff := res[len(state)]
	var base string
	switch {
	case !atRoot:
		base, err = parseResolved(res[len(state)+1], then.Head)
	case now.Head != "" && len(now.Head) != len(then.Head):
		// A name of the other hash kind: not a full name in this
		// repository (see parseResolved).
	case diff.Err == nil && now.Head == then.Head:
		// HEAD has not moved: the name is this repository's HEAD commit,
		// and the one round sufficed (SinceAtRoot's common case).
		base = then.Head
	default:
		base, err = parseResolved(g.RunAll(ctx, resolveCmd(then.Head))[0], then.Head)
	}
	if err != nil || base == "" {
		return d, err
	}

	switch {
	case now.Head == "":
		d.Relation = handoff.DriftUnborn
		out, err := g.Run(ctx, "rev-list", "--count", "--end-of-options", base)
		if err != nil {
			return nil, err
		}
		if d.MissingCommitCount, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
			return nil, fmt.Errorf("git rev-list: unexpected output %q", handoff.Clip(string(out), 80))
		}
	case now.Head == base:
		d.Relation = handoff.DriftSame
	default:
		// The counts and the new commits (used only if there are any) in
		// one more round.
		res := g.RunAll(ctx,
			[]string{"rev-list", "--left-right", "--count", "--end-of-options", base + "..." + now.Head},
			[]string{"log", "-n", strconv.Itoa(driftCommitLimit), "-z", logFormat, "--end-of-options", base + ".." + now.Head})
		if res[0].Err != nil {
			return nil, res[0].Err
		}
		missing, added, ok := parseLeftRight(res[0].Out)
		if !ok {
			return nil, fmt.Errorf("git rev-list: unexpected output %q", handoff.Clip(string(res[0].Out), 80))
		}
		d.MissingCommitCount, d.NewCommitCount = missing, added
		switch {
		case missing == 0 && added == 0:
			d.Relation = handoff.DriftSame
		case missing == 0:
			d.Relation = handoff.DriftAhead
		case added == 0:
			d.Relation = handoff.DriftBehind
		default:
			d.Relation = handoff.DriftDiverged
		}
		if added > 0 {
			if res[1].Err != nil {
				return nil, res[1].Err
			}
			d.NewCommits = parseLog(res[1].Out)
		}
	}

	if base != then.Head {
		// The name was an annotated tag's hash: diff against the commit
		// itself.
		diff.Out, diff.Err = g.Run(ctx, diffCmd(base)...)
	}
	if diff.Err != nil {
		return nil, diff.Err
	}
	if err := parseNameStatus(diff.Out, d); err != nil {
		return nil, err
	}
	for _, p := range now.Untracked {
		addChanged(d, handoff.FileStatus{Path: p, Status: "?"})
	}
	if now.Truncated && len(now.Untracked) >= MaxListed {
		d.Truncated = true
	}
	return d, nil
}

// resolveCmd asks for the commit hash names, printing nothing when the
// repository has none (parseResolved reads it).
func resolveCmd(hash string) []string {
	return []string{"rev-list", "--no-walk", "--ignore-missing", "--end-of-options", hash}
}

// diffCmd is the diff of the worktree against commit: names and status
// only, paths from the root.
func diffCmd(commit string) []string {
	return []string{"diff", "--name-status", "-z", "-M", "--no-relative", "--no-ext-diff", "--end-of-options", commit, "--"}
}

// parseResolved reads what `git rev-list --no-walk --ignore-missing` said
// of hash: the commit it names in this repository (the hash itself, or the
// commit an annotated tag points to), or "" when the repository has no
// commit by that full name. --ignore-missing makes an unknown name empty
// output rather than a failure, and without --objects rev-list prints
// nothing for a blob or a tree, so only a failure to run git is an error.
func parseResolved(r git.Result, hash string) (string, error) {
	if r.Err != nil {
		return "", r.Err
	}
	c := strings.TrimSpace(string(r.Out))
	// In a SHA-256 repository a 40-digit name is an abbreviation, which
	// git would expand: only a full name of this repository's kind counts.
	if !handoff.ValidCommit(c) || len(c) != len(hash) {
		return "", nil
	}
	return c, nil
}

// parseLeftRight reads `git rev-list --left-right --count` output.
func parseLeftRight(out []byte) (left, right int, ok bool) {
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return 0, 0, false
	}
	l, err1 := strconv.Atoi(f[0])
	r, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || l < 0 || r < 0 {
		return 0, 0, false
	}
	return l, r, true
}

// parseNameStatus adds the entries of `git diff --name-status -z` output to
// d.Changed: a status field, then one path, or two (from, to) for a rename
// or copy, each NUL-terminated.
func parseNameStatus(out []byte, d *handoff.Drift) error {
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		code := string(fields[i])
		if code == "" {
			if i == len(fields)-1 {
				break
			}
			return errors.New("git diff: unexpected empty field")
		}
		n := 1
		if code[0] == 'R' || code[0] == 'C' {
			n = 2
		}
		if i+n >= len(fields) || len(fields[i+n]) == 0 {
			return fmt.Errorf("git diff: truncated entry %q", handoff.Clip(code, 80))
		}
		fs := handoff.FileStatus{Status: code[:1], Path: string(fields[i+n])}
		if n == 2 {
			fs.From = string(fields[i+1])
		}
		i += n
		addChanged(d, fs)
	}
	return nil
}

// addChanged appends fs to d.Changed unless the list is full.
func addChanged(d *handoff.Drift, fs handoff.FileStatus) {
	if len(d.Changed) >= driftListLimit {
		d.Truncated = true
		return
	}
	d.Changed = append(d.Changed, fs)
}

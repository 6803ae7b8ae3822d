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
)

// MaxDriftCommits caps Drift.NewCommits.
const MaxDriftCommits = 50

// The relations of HEAD now to the handoff's HEAD, as Drift.Relation gives
// them.
const (
	// DriftSame: HEAD is the handoff's commit.
	DriftSame = "same"
	// DriftAhead: the handoff's commit is an ancestor of HEAD; new commits
	// were made on top of it.
	DriftAhead = "ahead"
	// DriftBehind: HEAD is an ancestor of the handoff's commit.
	DriftBehind = "behind"
	// DriftDiverged: each side has commits the other lacks.
	DriftDiverged = "diverged"
	// DriftUnknown: the handoff has no usable HEAD, or its commit is not
	// in this repository (not fetched, or another repository).
	DriftUnknown = "unknown"
	// DriftUnborn: the repository has no commits now.
	DriftUnborn = "unborn"
)

// Bounds used by Since: the exported constants, held in variables so that
// tests can lower them.
var (
	driftCommitLimit = MaxDriftCommits
	driftListLimit   = MaxListed
)

// driftNameLimit clips the branch and HEAD copied from the handoff, which
// come from an imported bundle and are reported, never passed to git.
const driftNameLimit = 1000

// Drift is how a worktree has moved since a handoff's git snapshot.
type Drift struct {
	// Now is the worktree now, as State reads it.
	Now *handoff.GitState `json:"now"`
	// BranchThen and BranchNow are the branches checked out then and now;
	// "" means detached (or, for BranchThen, that the handoff has no git
	// state). BranchThen is the handoff's, clipped.
	BranchThen string `json:"branch_then"`
	BranchNow  string `json:"branch_now"`
	// HeadThen is the HEAD the handoff names, as it names it (clipped); it
	// may be anything, and is used with git only when it is a full
	// lower-case commit hash. HeadNow is "" in a repository with no commits.
	HeadThen string `json:"head_then"`
	HeadNow  string `json:"head_now"`
	// Relation is how HEAD now stands to HEAD then: DriftSame, DriftAhead,
	// DriftBehind, DriftDiverged, DriftUnknown or DriftUnborn. Unknown
	// wins over unborn: when the handoff's commit cannot be used, nothing
	// is compared.
	Relation string `json:"relation"`
	// NewCommits are the commits reachable from HEAD now but not from the
	// handoff's commit (then..now), newest first, at most MaxDriftCommits.
	NewCommits []handoff.Commit `json:"new_commits,omitempty"`
	// NewCommitCount is how many such commits there are, even when
	// NewCommits is cut.
	NewCommitCount int `json:"new_commit_count"`
	// MissingCommitCount counts the commits reachable from the handoff's
	// commit but no longer from HEAD (now..then): work a reset, a rebase or
	// a branch switch left behind. With no commits now, it counts all of
	// the handoff's history.
	MissingCommitCount int `json:"missing_commit_count"`
	// Changed lists the paths that differ between the handoff's commit and
	// the worktree now, whether committed since or dirty now, as
	// `git diff --name-status` gives them (renames detected, From set),
	// then the untracked paths of Now with status "?" (a wholly untracked
	// directory is one entry ending in "/"). At most MaxListed entries;
	// empty when Relation is DriftUnknown.
	Changed []handoff.FileStatus `json:"changed,omitempty"`
	// Truncated is set when Changed was cut at its bound, or when Now's
	// untracked list, from which Changed is completed, was.
	Truncated bool `json:"truncated,omitempty"`
	// SameRoot reports whether the handoff's worktree root is the path of
	// the worktree now. It says where the work sits, not which repository
	// it is: a clone elsewhere has another root, and the commit check
	// behind Relation is what tells whether the history is shared.
	SameRoot bool `json:"same_root"`
}

// Since reads the worktree that contains dir and tells how it has moved
// since then, a handoff's git snapshot. then may come from an imported
// bundle: none of its strings reaches git except a HEAD that is exactly a
// full lower-case hex commit hash, and that only after --end-of-options.
// A nil then, a missing or malformed HEAD, or a commit this repository
// does not have gives Relation DriftUnknown, not an error. When dir is not
// in a git worktree the error wraps ErrNotGitRepo.
func Since(ctx context.Context, dir string, then *handoff.GitState) (*Drift, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// Everything that does not wait for another answer runs in one round:
	// State's reads, and with a usable HEAD then, the diff against it
	// (--no-relative: paths from the root whatever the directory and
	// diff.relative say; -M: renames found whatever diff.renames says) and
	// the check that the commit exists. The diff is used only if it does.
	cmds := stateCmds
	known := then != nil && isCommitHash(then.Head)
	if known {
		cmds = append(slices.Clone(stateCmds),
			diffCmd(then.Head),
			[]string{"rev-list", "--no-walk", "--ignore-missing", "--end-of-options", then.Head})
	}
	g := Git{Dir: abs}
	res := g.runAll(ctx, cmds...)
	now, err := parseState(abs, res[:len(stateCmds)])
	if err != nil {
		return nil, err
	}
	d := &Drift{Now: now, BranchNow: now.Branch, HeadNow: now.Head, Relation: DriftUnknown}
	if then == nil {
		return d, nil
	}
	d.BranchThen = handoff.Clip(then.Branch, driftNameLimit)
	d.HeadThen = handoff.Clip(then.Head, driftNameLimit)
	d.SameRoot = then.Root != "" && then.Root == now.Root
	if !known {
		return d, nil
	}
	diff := res[len(stateCmds)]
	base, err := parseResolved(res[len(stateCmds)+1], then.Head)
	if err != nil || base == "" {
		return d, err
	}

	switch {
	case now.Head == "":
		d.Relation = DriftUnborn
		out, err := g.run(ctx, "rev-list", "--count", "--end-of-options", base)
		if err != nil {
			return nil, err
		}
		if d.MissingCommitCount, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
			return nil, fmt.Errorf("git rev-list: unexpected output %q", handoff.Clip(string(out), 80))
		}
	case now.Head == base:
		d.Relation = DriftSame
	default:
		// The counts and the new commits (used only if there are any) in
		// one more round.
		res := g.runAll(ctx,
			[]string{"rev-list", "--left-right", "--count", "--end-of-options", base + "..." + now.Head},
			[]string{"log", "-n", strconv.Itoa(driftCommitLimit), "-z", logFormat, "--end-of-options", base + ".." + now.Head})
		if res[0].err != nil {
			return nil, res[0].err
		}
		missing, added, ok := parseLeftRight(res[0].out)
		if !ok {
			return nil, fmt.Errorf("git rev-list: unexpected output %q", handoff.Clip(string(res[0].out), 80))
		}
		d.MissingCommitCount, d.NewCommitCount = missing, added
		switch {
		case missing == 0 && added == 0:
			d.Relation = DriftSame
		case missing == 0:
			d.Relation = DriftAhead
		case added == 0:
			d.Relation = DriftBehind
		default:
			d.Relation = DriftDiverged
		}
		if added > 0 {
			if res[1].err != nil {
				return nil, res[1].err
			}
			d.NewCommits = parseLog(res[1].out)
		}
	}

	if base != then.Head {
		// The name was an annotated tag's hash: diff against the commit
		// itself.
		diff.out, diff.err = g.run(ctx, diffCmd(base)...)
	}
	if diff.err != nil {
		return nil, diff.err
	}
	if err := parseNameStatus(diff.out, d); err != nil {
		return nil, err
	}
	for _, p := range now.Untracked {
		d.addChanged(handoff.FileStatus{Path: p, Status: "?"})
	}
	if now.Truncated && len(now.Untracked) >= MaxListed {
		d.Truncated = true
	}
	return d, nil
}

// isCommitHash reports whether s is a full SHA-1 or SHA-256 object name
// in lower-case hex, the only form of a handoff's HEAD given to git.
func isCommitHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
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
func parseResolved(r gitResult, hash string) (string, error) {
	if r.err != nil {
		return "", r.err
	}
	c := strings.TrimSpace(string(r.out))
	// In a SHA-256 repository a 40-digit name is an abbreviation, which
	// git would expand: only a full name of this repository's kind counts.
	if !isCommitHash(c) || len(c) != len(hash) {
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
func parseNameStatus(out []byte, d *Drift) error {
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
		d.addChanged(fs)
	}
	return nil
}

// addChanged appends fs to d.Changed unless the list is full.
func (d *Drift) addChanged(fs handoff.FileStatus) {
	if len(d.Changed) >= driftListLimit {
		d.Truncated = true
		return
	}
	d.Changed = append(d.Changed, fs)
}

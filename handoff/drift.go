package handoff

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

// Drift is how a worktree has moved since a handoff's git snapshot, as
// capture.Since reads it.
type Drift struct {
	// Now is the worktree now.
	Now *GitState `json:"now"`
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
	// handoff's commit (then..now), newest first, at most
	// capture.MaxDriftCommits.
	NewCommits []Commit `json:"new_commits,omitempty"`
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
	// directory is one entry ending in "/"). At most capture.MaxListed
	// entries; empty when Relation is DriftUnknown.
	Changed []FileStatus `json:"changed,omitempty"`
	// Truncated is set when Changed was cut at its bound, or when Now's
	// untracked list, from which Changed is completed, was.
	Truncated bool `json:"truncated,omitempty"`
	// SameRoot reports whether the handoff's worktree root is the path of
	// the worktree now. It says where the work sits, not which repository
	// it is: a clone elsewhere has another root, and the commit check
	// behind Relation is what tells whether the history is shared.
	SameRoot bool `json:"same_root"`
}

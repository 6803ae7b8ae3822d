// Package handoff defines the handoff record: what one coding session hands
// to the next. It owns the record type, ids, and the field rules that go
// beyond what the JSON Schema can say. It imports nothing of ours.
package handoff

import "time"

// SchemaVersion is the version of the record format this code writes and
// the newest it reads. It is stored in every record as schema_version.
const SchemaVersion = 1

// Record is one handoff. Its JSON form is the contract described by the
// embedded schema (schema/handoff.schema.json) and docs/FORMAT.md.
type Record struct {
	SchemaVersion int       `json:"schema_version"`
	ID            ID        `json:"id"`
	CreatedAt     time.Time `json:"created_at"`
	// Tool is the agent that produced the session: claude-code, codex,
	// gemini, cursor, copilot, or another lower-case name.
	Tool    string  `json:"tool"`
	Project Project `json:"project"`
	Title   string  `json:"title"`
	Summary string  `json:"summary,omitempty"`
	// Decisions are settled choices, each with its reason where known.
	Decisions []string `json:"decisions,omitempty"`
	// NextSteps are in the order they should be done.
	NextSteps     []string `json:"next_steps,omitempty"`
	OpenQuestions []string `json:"open_questions,omitempty"`
	Tags          []string `json:"tags,omitempty"`
	// Git is the state of the project's worktree when the handoff was made;
	// nil when the handoff was saved without git state.
	Git *GitState `json:"git,omitempty"`
	// Files are the files the session touched.
	Files []FileTouched `json:"files,omitempty"`
	// Session is what was read from the agent's own transcript, if anything.
	Session *Session `json:"session,omitempty"`
	Source  Source   `json:"source"`
	// Attachments name blobs stored beside the record by content hash.
	Attachments []Attachment `json:"attachments,omitempty"`
	// Redactions count the secrets removed before the record was stored.
	Redactions []Redaction `json:"redactions,omitempty"`
}

// Project identifies the code the session worked on.
type Project struct {
	// Path is the absolute path on the machine that made the handoff.
	Path string `json:"path"`
	// Name is a short human name, by default the last element of Path.
	Name string `json:"name"`
	// Remote is the URL of the repository's main remote, with any
	// credentials removed.
	Remote string `json:"remote,omitempty"`
	// RootCommit is the repository's root commit (the oldest of its
	// roots reachable from HEAD), which names the project on every
	// machine whatever its path (Identity).
	RootCommit string `json:"root_commit,omitempty"`
	// Kind is the project's language or ecosystem (go, node, python…).
	Kind string `json:"kind,omitempty"`
	// Checks are commands that build or test the project.
	Checks []Check `json:"checks,omitempty"`
}

// Check is one way to verify the project: a purpose and a shell command.
type Check struct {
	Purpose string `json:"purpose"` // build, test, lint, run
	Command string `json:"command"`
}

// GitState is a snapshot of a git worktree.
type GitState struct {
	Root string `json:"root"`
	// Branch is empty when HEAD is detached.
	Branch   string `json:"branch,omitempty"`
	Head     string `json:"head,omitempty"` // full commit hash; empty in a repository with no commits
	Upstream string `json:"upstream,omitempty"`
	Ahead    int    `json:"ahead"`
	Behind   int    `json:"behind"`
	// Staged and Unstaged list changed paths with their one-letter status
	// (M, A, D, R, C, T, U); Untracked lists new files git does not ignore.
	Staged    []FileStatus `json:"staged,omitempty"`
	Unstaged  []FileStatus `json:"unstaged,omitempty"`
	Untracked []string     `json:"untracked,omitempty"`
	// Truncated is set when any list was cut at its limit.
	Truncated     bool     `json:"truncated,omitempty"`
	RecentCommits []Commit `json:"recent_commits,omitempty"`
}

// FileStatus is one changed path and its status letter.
type FileStatus struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	// From is the old path of a rename or copy.
	From string `json:"from,omitempty"`
}

// Commit is one entry of the recent history.
type Commit struct {
	Hash    string    `json:"hash"`
	Subject string    `json:"subject"`
	Author  string    `json:"author"`
	Date    time.Time `json:"date"`
}

// FileTouched is a file the session edited, created or deleted.
type FileTouched struct {
	Path string `json:"path"`
	// Action is edited, created, deleted or renamed.
	Action string `json:"action"`
	// From is the path a renamed file had before.
	From string `json:"from,omitempty"`
	// Edits counts the edits the agent made to the file.
	Edits int `json:"edits,omitempty"`
	// Git tells how the file stands in git now: dirty, committed, or
	// untracked; empty when unknown.
	Git string `json:"git,omitempty"`
	// By names who changed the file when it was not the session's own
	// agent: "subagent", or "subagent " and the subagent's id.
	By string `json:"by,omitempty"`
}

// Session is the digest of an agent transcript.
type Session struct {
	Agent        string `json:"agent"`
	ID           string `json:"id,omitempty"`
	AgentVersion string `json:"agent_version,omitempty"`
	// AgentVersionSource says where AgentVersion came from: the
	// transcript, or nowhere (unknown: Gemini CLI records no version).
	// Empty in a record made by hand.
	AgentVersionSource string     `json:"agent_version_source,omitempty"`
	StartedAt          *time.Time `json:"started_at,omitempty"`
	LastActivity       *time.Time `json:"last_activity,omitempty"`
	// Requests are the user's requests in order; the last one is kept in
	// full, earlier ones may be shortened.
	Requests         []string  `json:"requests,omitempty"`
	LastAgentMessage string    `json:"last_agent_message,omitempty"`
	Commands         []Command `json:"commands,omitempty"`
	// LastFailure is the last command that failed, with its output.
	LastFailure       *Command `json:"last_failure,omitempty"`
	Todos             []Todo   `json:"todos,omitempty"`
	CompactionSummary string   `json:"compaction_summary,omitempty"`
	Tokens            *Tokens  `json:"tokens,omitempty"`
	// SkippedRecords counts transcript lines of unknown types.
	SkippedRecords int `json:"skipped_records,omitempty"`
	// Plan is the last plan the agent put to the user for approval (the
	// plan mode of Claude Code, Codex CLI or Gemini CLI), in its own words.
	Plan string `json:"plan,omitempty"`
	// PlanStatus is what the user said to the plan: approved, rejected
	// or pending (the Plan* constants); set whenever Plan is.
	PlanStatus string `json:"plan_status,omitempty"`
	// PullRequests are the pull requests the agent linked the session to.
	PullRequests []PullRequest `json:"pull_requests,omitempty"`
	// FailedEdits are the files whose edit, write or patch the agent's
	// tool refused or failed, and that no later edit of the session
	// changed: nothing was written to them.
	FailedEdits []FailedEdit `json:"failed_edits,omitempty"`
}

// FailedEdit is a file the agent's edit tool failed to change: the edit
// did not apply (its text was not found, the patch did not verify), or
// the tool refused it (the file was not read first, a create over a file
// that exists). It is no change of the file.
type FailedEdit struct {
	Path string `json:"path"`
	// Error is the tool's answer, shortened.
	Error string `json:"error,omitempty"`
	// Count is how many edits of the file failed.
	Count int `json:"count,omitempty"`
	// By names who tried the edit when it was not the session's own
	// agent: "subagent", or "subagent " and the subagent's id.
	By string `json:"by,omitempty"`
}

// PullRequest is a pull request a session was linked to.
type PullRequest struct {
	URL string `json:"url"`
	// Number is the pull request's number in its repository, when known.
	Number int `json:"number,omitempty"`
	// Repository is "owner/name", when known.
	Repository string `json:"repository,omitempty"`
}

// Where an agent's version came from (Session.AgentVersionSource).
const (
	VersionFromTranscript = "transcript" // the agent wrote it in the transcript
	VersionUnknown        = "unknown"    // the transcript records none
)

// Plan statuses (Session.PlanStatus).
const (
	PlanApproved = "approved" // the user approved it
	PlanRejected = "rejected" // the user refused it: it is not the way forward
	PlanPending  = "pending"  // put to the user, not answered (or the answer is not in the transcript)
)

// Command statuses (Command.Status).
const (
	StatusOK          = "ok"          // it ran and succeeded
	StatusFailed      = "failed"      // it ran and failed
	StatusBlocked     = "blocked"     // a hook stopped it before it ran; counts as a failure
	StatusRejected    = "rejected"    // the user or a permission rule refused it: it did not run
	StatusInterrupted = "interrupted" // stopped by the user while it ran, or cancelled
	StatusBackground  = "background"  // moved to the background; its outcome is not in the transcript
	StatusUnknown     = "unknown"     // the transcript does not say how it ended
)

// Command is a shell command the agent ran.
type Command struct {
	Command string `json:"command"`
	// ExitCode is nil when the transcript does not say how it ended.
	ExitCode *int   `json:"exit_code,omitempty"`
	Output   string `json:"output,omitempty"`
	// Count is how many times the same command ran.
	Count int `json:"count,omitempty"`
	// Status is how its latest run ended: ok, failed, blocked, rejected,
	// interrupted, background or unknown (the Status constants).
	Status string `json:"status,omitempty"`
	// By names who ran it when it was not the session's own agent:
	// "subagent", or "subagent " and the subagent's id.
	By string `json:"by,omitempty"`
	// Runs is how each of its last runs ended (at most MaxRuns, oldest
	// first, each a Status), set when they did not all end alike: a
	// command run again after it failed shows that it failed before.
	Runs []string `json:"runs,omitempty"`
}

// MaxRuns bounds Command.Runs.
const MaxRuns = 10

// Todo is one item of the agent's task list.
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"` // pending, in_progress, completed
}

// Tokens totals the model tokens the session used.
type Tokens struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read,omitempty"`
	CacheWrite int64 `json:"cache_write,omitempty"`
}

// Source kinds.
const (
	SourceHand       = "hand"
	SourceTranscript = "transcript"
	SourceImport     = "import"
	SourceLegacy     = "legacy"
)

// Source says where a record came from.
type Source struct {
	Kind string `json:"kind"`
	// Machine is the host name of the machine that made the handoff.
	Machine string `json:"machine,omitempty"`
	// Transcript is the path of the transcript read, for kind transcript.
	Transcript string `json:"transcript,omitempty"`
	// Import is set for records that arrived in a bundle.
	Import *Provenance `json:"import,omitempty"`
	// LegacyID is the id an earlier version gave the record
	// (20260312-101112, 20260312-101112-002), for kind legacy, so the
	// record can still be found by it.
	LegacyID string `json:"legacy_id,omitempty"`
}

// Provenance records how an imported record was checked.
type Provenance struct {
	BundleID   string    `json:"bundle_id"`
	ImportedAt time.Time `json:"imported_at"`
	// Verification is verified (by a key in the trust store), pinned (trusted
	// on first use: the key was pinned by this import), untrusted or unsigned.
	Verification string `json:"verification"`
	// Signer is the trusted principal, when verified.
	Signer string `json:"signer,omitempty"`
	// Fingerprint is the signing key's SHA256 fingerprint, when signed.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Withdrawn is decided when the record is read (Source.Recheck),
	// never stored: it was verified at import, and the trust store no
	// longer binds its signer to its key (a device removed, a key no
	// longer trusted).
	Withdrawn bool `json:"-"`
	// BundleCreatedAt is the signed manifest's created_at: when the
	// sender made this version of the record. It orders two versions of
	// one record from one key whose session's activity is the same (words
	// added by hand). A bundle made again carries none.
	BundleCreatedAt *time.Time `json:"bundle_created_at,omitempty"`
}

// Attachment names a blob by content hash.
type Attachment struct {
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
}

// Redaction counts the secrets of one kind removed from the record.
type Redaction struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

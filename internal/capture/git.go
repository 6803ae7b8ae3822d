// Package capture reads what the machine already knows about a coding
// session and makes a record of it: the state of the git worktree, drift
// since, the project's kind and checks, and the agent's own session, which
// it finds, recognises and reads through the agents table (each agent's
// reader is in its folder under internal/agents, or in
// internal/transcript). Everything it reads is treated as untrusted and
// bounded.
package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/git"
)

// Bounds on what is read from git.
const (
	// MaxListed caps each list of paths in a GitState.
	MaxListed = 1000
	// RecentCommits is how many commits of history a GitState keeps.
	RecentCommits = 5
)

// logFormat is the git log format parseLog reads: hash, subject, author
// and date, separated by unit separators.
const logFormat = "--format=%H%x1f%s%x1f%an%x1f%aI"

// ErrNotGitRepo is wrapped when a directory is not inside a git worktree;
// it is git.ErrNotGitRepo.
var ErrNotGitRepo = git.ErrNotGitRepo

// ErrNoGit is wrapped when the git command cannot be found; it is
// git.ErrNoGit.
var ErrNoGit = git.ErrNoGit

// reader is the git runner for reading the worktree at dir, which we did
// not create: no call through it runs a program the repository's
// configuration or attributes name (git.Runner.Untrusted). When that
// cannot be promised, or git is missing, the error says so; any other
// failure means dir is no git worktree (or an unreadable one), and wraps
// ErrNotGitRepo.
func reader(ctx context.Context, dir string) (git.Runner, error) {
	c, cached := ctx.Value(readerCacheKey{}).(*sync.Map)
	if cached {
		if g, ok := c.Load(dir); ok {
			return g.(git.Runner), nil
		}
	}
	// Most worktrees define no filter or diff driver: their files say so
	// without starting git (UntrustedQuick); the others are listed by git.
	g, _, quick := git.Runner{Dir: dir}.UntrustedQuick()
	if !quick {
		var err error
		if g, err = (git.Runner{Dir: dir}).Untrusted(ctx); err != nil {
			return g, notARepo(ctx, dir, err)
		}
	}
	if cached {
		c.Store(dir, g)
	}
	return g, nil
}

// notARepo classifies a failed git read of dir: git missing, an unsafe
// configuration, a timeout or an interrupt are themselves; git saying
// "not a git repository" wraps ErrNotGitRepo; anything else is a worktree
// git cannot read (dubious ownership, a damaged index, …) and stays an
// error, so that no caller stores a handoff without git state by mistake.
func notARepo(ctx context.Context, dir string, err error) error {
	switch {
	case errors.Is(err, ErrNoGit), errors.Is(err, git.ErrUnsafeConfig):
		return err
	case ctx.Err() != nil && !errors.Is(err, git.ErrTimeout):
		return fmt.Errorf("%s: reading the git state: %w", dir, ctx.Err())
	case errors.Is(err, git.ErrTimeout):
		return fmt.Errorf("%s: reading the git state: %w", dir, err)
	case strings.Contains(err.Error(), "not a git repository"):
		return fmt.Errorf("%s: %w", dir, ErrNotGitRepo)
	}
	return fmt.Errorf("%s: reading the git state: %w", dir, err)
}

// Root returns the top directory of the git worktree that contains dir,
// wrapping ErrNotGitRepo when there is none.
func Root(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	// A worktree whose files define no filter or diff driver is read
	// without starting git (UntrustedQuick); for the others, the reader's
	// driver listing and the rev-parse run in one round. With a reader
	// cache in ctx the reader is kept for the root, where the reads that
	// follow (State, SinceAtRoot) start at once.
	if ctx.Err() != nil {
		return "", notARepo(ctx, abs, ctx.Err())
	}
	g, root, quick := git.Runner{Dir: abs}.UntrustedQuick()
	if !quick {
		var gerr error
		var top []byte
		g, gerr, top, err = git.Runner{Dir: abs}.UntrustedBeside(ctx, "rev-parse", "--show-toplevel")
		if gerr != nil {
			return "", notARepo(ctx, abs, gerr)
		}
		if err != nil {
			return "", notARepo(ctx, abs, err)
		}
		root = strings.TrimSpace(string(top))
	}
	if c, ok := ctx.Value(readerCacheKey{}).(*sync.Map); ok {
		g.Dir = root
		c.Store(root, g)
	}
	return root, nil
}

type readerCacheKey struct{}

// WithReaderCache returns a context under which the untrusted git reader
// made for a worktree (its driver listing: one git process) is made once
// and reused by the reads that follow. For a command that lives a moment,
// such as a hook, never a server: a repository configuration changed after
// the first read would not be seen.
func WithReaderCache(ctx context.Context) context.Context {
	if _, ok := ctx.Value(readerCacheKey{}).(*sync.Map); ok {
		return ctx
	}
	return context.WithValue(ctx, readerCacheKey{}, &sync.Map{})
}

// ProjectRoot is the project a command in dir works on: the top of the
// git worktree holding dir, or dir itself (made absolute) when it is in
// none, git is not installed or git cannot read it; a timeout or an
// interrupt is an error. dir must exist and be a directory.
func ProjectRoot(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("project: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("project %s is not a directory", abs)
	}
	root, err := Root(ctx, abs)
	switch {
	case err == nil:
		return root, nil
	case errors.Is(err, git.ErrTimeout) || ctx.Err() != nil:
		return "", err
	}
	// Not a worktree, no git, or a worktree git will not read for us (a
	// repository owned by another user, say): the directory is the
	// project. Reading its git state, which save and capture do, still
	// fails with git's reason.
	return abs, nil
}

// State reads the git state of the worktree that contains dir.
func State(ctx context.Context, dir string) (*handoff.GitState, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// The three reads are independent: run at once, they cost one git
	// start-up of waiting instead of three (session-start hooks wait).
	g, err := reader(ctx, abs)
	if err != nil {
		return nil, err
	}
	return parseState(ctx, abs, g.RunAll(ctx, stateCmds...))
}

// Previous returns the newest handoff made at the worktree whose top
// directory is top, or nil: what Worktree may take the history from.
type Previous func(top string) *handoff.Record

// Worktree reads what a save records of the worktree holding dir: its
// state, the URL of its origin remote (or first remote, credentials
// removed; Remote) and its root commit (RootCommit), in one round of git
// processes where the worktree's files allow it: its top directory and
// its remote read from the configuration files without starting git
// (git.Runner.UntrustedQuick, QuickRemote), then status, log and the
// root commit's rev-list at once. Otherwise it reads them as State,
// Remote and RootCommit do, one after the other.
//
// When prev gives a handoff made in this worktree at the commit HEAD
// names now (read from the repository's files, git.Runner.QuickHead),
// its recent commits and root commit are this one's too (a commit's
// history is part of its hash; a shallow clone, whose boundary a fetch
// moves, is read again): git status alone is started, and should HEAD
// have moved meanwhile, log and rev-list after it.
func Worktree(ctx context.Context, dir string, prev Previous) (st *handoff.GitState, remote, root string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", "", err
	}
	g, top, quick := git.Runner{Dir: abs}.UntrustedQuick()
	url, urlQuick := g.QuickRemote()
	if !quick || !urlQuick || ctx.Err() != nil {
		if st, err = State(ctx, abs); err != nil {
			return nil, "", "", err
		}
		remote = Remote(ctx, st.Root)
		if st.Head != "" {
			root = RootCommit(ctx, st.Root)
		}
		return st, remote, root, nil
	}
	g.Dir = top
	if head, ok := g.QuickHead(); ok && prev != nil && !g.QuickShallow() {
		if p := prev(top); sameHistory(p, top, head) {
			res := g.RunAll(ctx, stateCmds[1])
			if st, err = parseStatusAt(ctx, top, res[0]); err != nil {
				return nil, "", "", err
			}
			if st.Head == head {
				st.RecentCommits = slices.Clone(p.Git.RecentCommits)
				return st, git.StripCredentials(url), p.Project.RootCommit, nil
			}
		}
	}
	rootDone := make(chan string, 1)
	go func() {
		r := g
		r.Timeout = rootCommitTimeout
		out, err := r.Run(ctx, "rev-list", "--max-parents=0", "HEAD", "--")
		if err != nil {
			out = nil
		}
		rootDone <- rootCommit(out)
	}()
	res := g.RunAll(ctx, stateCmds[1], stateCmds[2])
	root = <-rootDone
	if st, err = parseStatusAt(ctx, top, res[0]); err != nil {
		return nil, "", "", err
	}
	if st.Head == "" {
		// No commit yet: the log fails, and there is no root.
		return st, git.StripCredentials(url), "", nil
	}
	if res[1].Err != nil {
		return nil, "", "", res[1].Err
	}
	st.RecentCommits = parseLog(res[1].Out)
	return st, git.StripCredentials(url), root, nil
}

// sameHistory reports whether p is a handoff made here, in the worktree
// whose top is top, at the commit head, with its recent commits and root
// commit read.
func sameHistory(p *handoff.Record, top, head string) bool {
	return p != nil && p.Git != nil && p.Git.Root == top && p.Git.Head == head &&
		(p.Source.Kind == handoff.SourceHand || p.Source.Kind == handoff.SourceTranscript) &&
		len(p.Git.RecentCommits) > 0 && handoff.ValidCommit(p.Project.RootCommit)
}

// stateCmds are the reads State makes, in the order parseState takes
// their results.
var stateCmds = [][]string{
	{"rev-parse", "--show-toplevel"},
	{"status", "--porcelain=v2", "--branch", "-z"},
	{"log", "-n", strconv.Itoa(RecentCommits), "-z", logFormat},
}

// parseState builds the state of the worktree at abs from the results of
// stateCmds.
func parseState(ctx context.Context, abs string, res []git.Result) (*handoff.GitState, error) {
	if err := res[0].Err; err != nil {
		return nil, notARepo(ctx, abs, err)
	}
	st := &handoff.GitState{Root: strings.TrimSpace(string(res[0].Out))}
	if res[1].Err != nil {
		return nil, res[1].Err
	}
	if err := parseStatus(res[1].Out, st); err != nil {
		return nil, err
	}
	// In a repository with no commits the log fails; status says so.
	if st.Head != "" {
		if res[2].Err != nil {
			return nil, res[2].Err
		}
		st.RecentCommits = parseLog(res[2].Out)
	}
	return st, nil
}

// parseStatusAt builds the state of the worktree whose top is root from
// the status alone (no recent commits).
func parseStatusAt(ctx context.Context, root string, status git.Result) (*handoff.GitState, error) {
	if status.Err != nil {
		return nil, notARepo(ctx, root, status.Err)
	}
	st := &handoff.GitState{Root: root}
	if err := parseStatus(status.Out, st); err != nil {
		return nil, err
	}
	return st, nil
}

// Remote returns the URL of the repository's origin remote (or its first
// remote) with any user name or password removed, or "" if there is none.
func Remote(ctx context.Context, dir string) string {
	g, err := reader(ctx, dir)
	if err != nil {
		return ""
	}
	out, err := g.Run(ctx, "remote")
	if err != nil {
		return ""
	}
	names := strings.Fields(string(out))
	if len(names) == 0 {
		return ""
	}
	name := names[0]
	for _, n := range names {
		if n == "origin" {
			name = n
		}
	}
	u, err := g.Run(ctx, "remote", "get-url", "--", name)
	if err != nil {
		return ""
	}
	return git.StripCredentials(strings.TrimSpace(string(u)))
}

func parseStatus(out []byte, st *handoff.GitState) error {
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		line := string(fields[i])
		if line == "" {
			continue
		}
		switch {
		case strings.HasPrefix(line, "# branch.oid "):
			if oid := strings.TrimPrefix(line, "# branch.oid "); oid != "(initial)" {
				st.Head = oid
			}
		case strings.HasPrefix(line, "# branch.head "):
			if b := strings.TrimPrefix(line, "# branch.head "); b != "(detached)" {
				st.Branch = b
			}
		case strings.HasPrefix(line, "# branch.upstream "):
			st.Upstream = strings.TrimPrefix(line, "# branch.upstream ")
		case strings.HasPrefix(line, "# branch.ab "):
			var a, b int
			if _, err := fmt.Sscanf(strings.TrimPrefix(line, "# branch.ab "), "+%d -%d", &a, &b); err == nil {
				st.Ahead, st.Behind = a, b
			}
		case strings.HasPrefix(line, "1 "), strings.HasPrefix(line, "u "):
			n := 9
			if line[0] == 'u' {
				n = 11
			}
			parts := strings.SplitN(line, " ", n)
			if len(parts) != n {
				return fmt.Errorf("git status: unexpected line %q", handoff.Clip(line, 80))
			}
			addChange(st, parts[1], parts[n-1], "")
		case strings.HasPrefix(line, "2 "):
			parts := strings.SplitN(line, " ", 10)
			if len(parts) != 10 || i+1 >= len(fields) {
				return fmt.Errorf("git status: unexpected line %q", handoff.Clip(line, 80))
			}
			i++
			addChange(st, parts[1], parts[9], string(fields[i]))
		case strings.HasPrefix(line, "? "):
			st.Untracked = appendBounded(st, st.Untracked, line[2:])
		}
	}
	return nil
}

// addChange files one changed path under staged and/or unstaged according
// to its two-letter XY status.
func addChange(st *handoff.GitState, xy, path, from string) {
	if len(xy) != 2 {
		return
	}
	if xy[0] == 'U' || xy[1] == 'U' || xy == "AA" || xy == "DD" {
		st.Unstaged = appendStatus(st, st.Unstaged, handoff.FileStatus{Path: path, Status: "U"})
		return
	}
	if xy[0] != '.' {
		st.Staged = appendStatus(st, st.Staged, handoff.FileStatus{Path: path, Status: string(xy[0]), From: from})
	}
	if xy[1] != '.' {
		st.Unstaged = appendStatus(st, st.Unstaged, handoff.FileStatus{Path: path, Status: string(xy[1])})
	}
}

func appendStatus(st *handoff.GitState, list []handoff.FileStatus, fs handoff.FileStatus) []handoff.FileStatus {
	if len(list) >= MaxListed {
		st.Truncated = true
		return list
	}
	return append(list, fs)
}

func appendBounded(st *handoff.GitState, list []string, s string) []string {
	if len(list) >= MaxListed {
		st.Truncated = true
		return list
	}
	return append(list, s)
}

func parseLog(out []byte) []handoff.Commit {
	var commits []handoff.Commit
	for _, rec := range bytes.Split(out, []byte{0}) {
		parts := strings.Split(strings.TrimSpace(string(rec)), "\x1f")
		if len(parts) != 4 {
			continue
		}
		date, err := time.Parse(time.RFC3339, parts[3])
		if err != nil {
			continue
		}
		commits = append(commits, handoff.Commit{Hash: parts[0], Subject: handoff.Clip(parts[1], 1000), Author: handoff.Clip(parts[2], 500), Date: date.UTC()})
	}
	return commits
}

// rootCommitTimeout bounds the walk to the root commit: in a history of
// millions of commits without a commit-graph it can take seconds, and a
// record without a root commit is still matched by its remote.
const rootCommitTimeout = 2 * time.Second

// Identity reads what names the repository at dir on every machine
// (handoff.Identity): its root commit and the keys of all its remotes, in
// two git calls run together. What cannot be read is left empty.
func Identity(ctx context.Context, dir string) handoff.Identity {
	var id handoff.Identity
	g, err := reader(ctx, dir)
	if err != nil {
		return id
	}
	g.Timeout = rootCommitTimeout
	res := g.RunAll(ctx,
		[]string{"rev-list", "--max-parents=0", "HEAD", "--"},
		[]string{"config", "--get-regexp", `^remote\..*\.url$`})
	if res[0].Err == nil {
		id.RootCommit = rootCommit(res[0].Out)
	}
	if res[1].Err == nil {
		for line := range strings.Lines(string(res[1].Out)) {
			_, url, _ := strings.Cut(strings.TrimSpace(line), " ")
			if k := handoff.RemoteKey(url); k != "" && !slices.Contains(id.RemoteKeys, k) {
				id.RemoteKeys = append(id.RemoteKeys, k)
			}
		}
	}
	return id
}

// RootCommit returns the root commit of the repository at dir
// (handoff.Project.RootCommit), or "" when it cannot be read in time.
func RootCommit(ctx context.Context, dir string) string {
	g, err := reader(ctx, dir)
	if err != nil {
		return ""
	}
	g.Timeout = rootCommitTimeout
	out, err := g.Run(ctx, "rev-list", "--max-parents=0", "HEAD", "--")
	if err != nil {
		return ""
	}
	return rootCommit(out)
}

// rootCommit picks the root commit from rev-list's listing of HEAD's
// roots, newest first: the last, the oldest, so a history that merged
// another project keeps the name it had before.
func rootCommit(out []byte) string {
	fields := strings.Fields(string(out))
	if len(fields) == 0 || !handoff.ValidCommit(fields[len(fields)-1]) {
		return ""
	}
	return fields[len(fields)-1]
}

// IdentityFunc is Identity of the repository at dir, read when called:
// what store.LatestForProject asks for only when a handoff made on
// another machine may be the project's. Nil for an empty dir.
func IdentityFunc(ctx context.Context, dir string) func() handoff.Identity {
	if dir == "" {
		return nil
	}
	return func() handoff.Identity { return Identity(ctx, dir) }
}

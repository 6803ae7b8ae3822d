// Package capture reads what the machine already knows about a coding
// session: the state of the git worktree and the agent's own
// transcript (Claude Code, Codex CLI, Gemini CLI). Everything it reads is
// treated as untrusted and bounded.
package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// Bounds on what is read from git.
const (
	// MaxListed caps each list of paths in a GitState.
	MaxListed = 1000
	// RecentCommits is how many commits of history a GitState keeps.
	RecentCommits = 5
	// gitOutputLimit caps what one git command may print.
	gitOutputLimit = 8 << 20
	// GitTimeout bounds a git call, unless Git.Timeout says otherwise.
	GitTimeout = 15 * time.Second
	// NetworkTimeout is the Git.Timeout for calls that talk to a remote
	// (fetch, push, ls-remote): long enough for a large inbox over a slow
	// link, short enough that a dead one ends.
	NetworkTimeout = 10 * time.Minute
)

// urlCredentials matches the user information of a URL in git's messages
// ("https://user:token@host/…"), which must never reach an error.
var urlCredentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]+@`)

// logFormat is the git log format parseLog reads: hash, subject, author
// and date, separated by unit separators.
const logFormat = "--format=%H%x1f%s%x1f%an%x1f%aI"

// ErrNotGitRepo is wrapped when a directory is not inside a git worktree.
var ErrNotGitRepo = errors.New("not a git worktree")

// ErrNoGit is wrapped when the git command cannot be found.
var ErrNoGit = errors.New("git is not installed")

// Git runs the system git against one directory.
type Git struct {
	Dir string
	// Timeout bounds each call; zero means GitTimeout.
	Timeout time.Duration
}

// Run runs git with args in g.Dir, as run does, for callers outside this
// package that write as well as read (publishing memory, a shared inbox):
// bounded in time and output, never prompting for credentials, with the
// first line of git's own error message in the error.
func (g Git) Run(ctx context.Context, args ...string) ([]byte, error) {
	return g.run(ctx, args...)
}

// run runs git with args in g.Dir and returns its standard output.
// Repository configuration that would make a read run programs
// (core.fsmonitor) is switched off, and optional locks are not taken, so
// reading the state of a worktree never changes it.
func (g Git) run(ctx context.Context, args ...string) ([]byte, error) {
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = GitTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	full := append([]string{"-c", "core.fsmonitor=false", "-c", "core.quotepath=false", "-C", g.Dir}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(cmd.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		// A partial clone must not fetch a missing object because a
		// handoff named it (git 2.44 and later; older ones ignore it).
		"GIT_NO_LAZY_FETCH=1")
	var stdout limitedBuffer
	stdout.limit = gitOutputLimit
	var stderr limitedBuffer
	stderr.limit = 4096
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if errors.Is(err, exec.ErrNotFound) {
		return nil, ErrNoGit
	}
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("git %s: timed out after %s", args[0], timeout)
	}
	if err != nil {
		msg := urlCredentials.ReplaceAllString(strings.TrimSpace(firstLine(stderr.String())), "$1")
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	if stdout.over {
		return nil, fmt.Errorf("git %s: output over %d bytes", args[0], gitOutputLimit)
	}
	return stdout.Bytes(), nil
}

// Root returns the top directory of the git worktree that contains dir,
// wrapping ErrNotGitRepo when there is none.
func Root(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	top, err := Git{Dir: abs}.run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		if errors.Is(err, ErrNoGit) {
			return "", err
		}
		return "", fmt.Errorf("%s: %w", abs, ErrNotGitRepo)
	}
	return strings.TrimSpace(string(top)), nil
}

// ProjectRoot is the project a command in dir works on: the top of the
// git worktree holding dir, or dir itself (made absolute) when it is in
// none or git is not installed. dir must exist and be a directory.
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
	if errors.Is(err, ErrNotGitRepo) || errors.Is(err, ErrNoGit) {
		return abs, nil
	}
	return root, err
}

// State reads the git state of the worktree that contains dir.
func State(ctx context.Context, dir string) (*handoff.GitState, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// The three reads are independent: run at once, they cost one git
	// start-up of waiting instead of three (session-start hooks wait).
	return parseState(abs, Git{Dir: abs}.runAll(ctx, stateCmds...))
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
func parseState(abs string, res []gitResult) (*handoff.GitState, error) {
	if err := res[0].err; err != nil {
		if errors.Is(err, ErrNoGit) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", abs, ErrNotGitRepo)
	}
	st := &handoff.GitState{Root: strings.TrimSpace(string(res[0].out))}
	if res[1].err != nil {
		return nil, res[1].err
	}
	if err := parseStatus(res[1].out, st); err != nil {
		return nil, err
	}
	// In a repository with no commits the log fails; status says so.
	if st.Head != "" {
		if res[2].err != nil {
			return nil, res[2].err
		}
		st.RecentCommits = parseLog(res[2].out)
	}
	return st, nil
}

// gitResult is the outcome of one git command run by runAll.
type gitResult struct {
	out []byte
	err error
}

// runAll runs git commands concurrently and returns their results in
// order. Only commands that read and do not depend on each other belong
// here.
func (g Git) runAll(ctx context.Context, cmds ...[]string) []gitResult {
	res := make([]gitResult, len(cmds))
	var wg sync.WaitGroup
	for i, args := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i].out, res[i].err = g.run(ctx, args...)
		}()
	}
	wg.Wait()
	return res
}

// Remote returns the URL of the repository's origin remote (or its first
// remote) with any user name or password removed, or "" if there is none.
func Remote(ctx context.Context, dir string) string {
	g := Git{Dir: dir}
	out, err := g.run(ctx, "remote")
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
	u, err := g.run(ctx, "remote", "get-url", "--", name)
	if err != nil {
		return ""
	}
	return StripCredentials(strings.TrimSpace(string(u)))
}

// StripCredentials removes a user's password or token from a remote URL.
// scp-style addresses (git@host:path) keep their user, which is not secret.
func StripCredentials(raw string) string {
	if !strings.Contains(raw, "://") {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable remote URL)"
	}
	if u.User != nil {
		if _, hasPass := u.User.Password(); hasPass || u.Scheme == "https" || u.Scheme == "http" {
			u.User = nil
		}
	}
	return u.String()
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

type limitedBuffer struct {
	// buf is a named field, not embedded: an embedded bytes.Buffer would
	// give the type a ReadFrom that io.Copy prefers, bypassing Write and
	// so the limit.
	buf   bytes.Buffer
	limit int
	over  bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.buf.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Bytes returns what was kept.
func (b *limitedBuffer) Bytes() []byte { return b.buf.Bytes() }

// String returns what was kept.
func (b *limitedBuffer) String() string { return b.buf.String() }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Package git is the one place session-handoff runs the system git.
//
// What it promises, for every call made through a Runner:
//
//   - Output is bounded: standard output past Runner.Limit (OutputLimit
//     by default) makes the call fail rather than be read on, and only
//     the start of standard error is kept.
//   - Time is bounded: each call ends at Runner.Timeout (DefaultTimeout
//     by default; NetworkTimeout for fetch, ls-remote and push).
//   - Git never prompts: not for credentials, not on the terminal.
//   - No credential reaches an error: the user information of any URL in
//     git's message is removed, and StripCredentials does the same for a
//     remote URL shown to the user.
//   - The repository is the one named by Runner.Dir: variables of the
//     environment that would point git at another repository, index or
//     configuration (GIT_DIR, GIT_CONFIG_PARAMETERS, …) are not passed on.
//   - A Runner made by Untrusted, for reading a worktree we did not
//     create, runs no program that repository's configuration or
//     attributes name (see untrusted.go for how).
//   - Options are never taken from data: the arguments are passed to git
//     as given, so a caller that passes a revision or a path taken from
//     data puts "--end-of-options" (revisions) or "--" (paths) before it.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/session-handoff/session-handoff/internal/proc"
)

// Bounds on a git call.
const (
	// OutputLimit caps what one git command may print, unless
	// Runner.Limit says otherwise.
	OutputLimit = 8 << 20
	// DefaultTimeout bounds a git call, unless Runner.Timeout says
	// otherwise.
	DefaultTimeout = 15 * time.Second
	// NetworkTimeout is the Runner.Timeout for calls that talk to a remote
	// (fetch, push, ls-remote): long enough for a large inbox over a slow
	// link, short enough that a dead one ends.
	NetworkTimeout = 10 * time.Minute
	// stderrLimit caps what is kept of git's standard error, from which
	// only the first line is used.
	stderrLimit = 4096
)

// ErrNotGitRepo is wrapped when a directory is not inside a git worktree.
var ErrNotGitRepo = errors.New("not a git worktree")

// ErrTimeout is wrapped when git did not finish in time (its own limit or
// the caller's deadline); it is never taken for ErrNotGitRepo.
var ErrTimeout = errors.New("timed out")

// ErrNoGit is wrapped when the git command cannot be found.
var ErrNoGit = errors.New("git is not installed")

// Runner runs the system git against one directory.
type Runner struct {
	// Dir is the directory git runs in (git -C Dir).
	Dir string
	// Timeout bounds each call; zero means DefaultTimeout.
	Timeout time.Duration
	// Limit bounds the standard output of each call; zero means
	// OutputLimit.
	Limit int
	// Env holds variables ("NAME=value") added to the environment of each
	// call, after the ones the package sets.
	Env []string
	// Stdin is the standard input of each call (none when nil).
	Stdin io.Reader

	// untrusted and guard are set by Untrusted: guard holds the global
	// options that switch off every program the repository could name.
	untrusted bool
	guard     []string
	// quick is set by UntrustedQuick: the files it read.
	quick *quickFiles
}

// Result is the outcome of one git command run by RunAll.
type Result struct {
	Out []byte
	Err error
}

// Run runs git with args in r.Dir and returns its standard output,
// bounded in time and output, never prompting for credentials, with the
// first line of git's own error message (credentials removed) in the
// error.
func (r Runner) Run(ctx context.Context, args ...string) ([]byte, error) {
	return r.run(ctx, r.guard, r.harden(args))
}

// ErrOutputLimit is wrapped when a git command printed more than its
// Runner's Limit.
var ErrOutputLimit = errors.New("output over the limit")

// RunTo is Run with git's standard output written to w as it comes
// instead of kept: past r.Limit bytes the call stops and fails with an
// error wrapping ErrOutputLimit (what was written by then stays
// written). It returns how many bytes were written.
func (r Runner) RunTo(ctx context.Context, w io.Writer, args ...string) (int64, error) {
	sw := &streamWriter{w: w, limit: int64(r.limit())}
	_, err := r.runWith(ctx, r.guard, r.harden(args), sw)
	return sw.n, err
}

// streamWriter passes what git prints to w, up to limit bytes; past
// them, or once w fails, it fails, which ends git's output.
type streamWriter struct {
	w     io.Writer
	limit int64
	n     int64
	over  bool
}

func (s *streamWriter) Write(p []byte) (int, error) {
	if s.n+int64(len(p)) > s.limit {
		s.over = true
		return 0, ErrOutputLimit
	}
	n, err := s.w.Write(p)
	s.n += int64(n)
	return n, err
}

// limit is r.Limit, or OutputLimit.
func (r Runner) limit() int {
	if r.Limit <= 0 {
		return OutputLimit
	}
	return r.Limit
}

// outputLimitError is the error of a call whose output went past its
// limit; it wraps ErrOutputLimit.
type outputLimitError struct {
	sub   string
	limit int
}

func (e *outputLimitError) Error() string {
	return fmt.Sprintf("git %s: output over %d bytes", e.sub, e.limit)
}

func (e *outputLimitError) Unwrap() error { return ErrOutputLimit }

// RunAll runs git commands concurrently, as Run does, and returns their
// results in order. Only commands that read and do not depend on each
// other belong here.
func (r Runner) RunAll(ctx context.Context, cmds ...[]string) []Result {
	return r.runAll(ctx, r.guard, cmds)
}

// runAll runs cmds concurrently, each with the global options pre.
func (r Runner) runAll(ctx context.Context, pre []string, cmds [][]string) []Result {
	res := make([]Result, len(cmds))
	var wg sync.WaitGroup
	for i, args := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i].Out, res[i].Err = r.run(ctx, pre, r.harden(args))
		}()
	}
	wg.Wait()
	return res
}

// run runs git with the global options pre, then args. Optional locks are
// not taken, so reading the state of a worktree never changes it.
func (r Runner) run(ctx context.Context, pre, args []string) ([]byte, error) {
	return r.runWith(ctx, pre, args, nil)
}

// runWith is run with standard output written to sw instead of kept,
// when sw is not nil.
func (r Runner) runWith(ctx context.Context, pre, args []string, sw *streamWriter) ([]byte, error) {
	if len(args) == 0 {
		return nil, errors.New("git: no command")
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := r.limit()
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	full := make([]string, 0, len(pre)+len(args)+6)
	full = append(full, "-c", "core.fsmonitor=false", "-c", "core.quotepath=false")
	full = append(full, pre...)
	full = append(full, "-C", r.Dir)
	full = append(full, args...)
	cmd := proc.Command(ctx, "git", full...)
	cmd.Env = append(cleanEnv(cmd.Environ()), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		// A partial clone must not fetch a missing object because a
		// handoff named it (git 2.44 and later; older ones ignore it).
		"GIT_NO_LAZY_FETCH=1")
	if r.untrusted {
		cmd.Env = append(cmd.Env, untrustedEnv...)
	}
	cmd.Env = append(cmd.Env, r.Env...)
	stdout := limitedBuffer{limit: limit}
	stderr := limitedBuffer{limit: stderrLimit}
	cmd.Stdin = r.Stdin
	cmd.Stdout = &stdout
	if sw != nil {
		cmd.Stdout = sw
	}
	cmd.Stderr = &stderr
	err := proc.Result(cmd.Run())
	if sw != nil && sw.over {
		return nil, &outputLimitError{sub: args[0], limit: limit}
	}
	if errors.Is(err, exec.ErrNotFound) {
		return nil, ErrNoGit
	}
	if ctx.Err() == context.DeadlineExceeded {
		if parent.Err() != nil {
			return nil, fmt.Errorf("git %s: %w (the caller's time was up)", args[0], ErrTimeout)
		}
		return nil, fmt.Errorf("git %s: %w after %s", args[0], ErrTimeout, timeout)
	}
	if err != nil {
		msg := StripMessage(strings.TrimSpace(firstLine(stderr.String())))
		if msg == "" {
			msg = err.Error()
		}
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return nil, &exitError{msg: fmt.Sprintf("git %s: %s", args[0], msg), code: code}
	}
	if stdout.over {
		return nil, &outputLimitError{sub: args[0], limit: limit}
	}
	return stdout.Bytes(), nil
}

// exitError is the error of a git that ran and failed; code is its exit
// status (-1 when it was killed).
type exitError struct {
	msg  string
	code int
}

func (e *exitError) Error() string { return e.msg }

// elsewhere are the variables of the environment that point git at a
// repository, index, object store or configuration other than the one
// Runner.Dir names (git(1), "ENVIRONMENT VARIABLES"; git-config(1),
// "ENVIRONMENT"), or name a program to run (GIT_EXTERNAL_DIFF, the
// pagers). Inherited from whatever started us (a git hook sets GIT_DIR and
// GIT_INDEX_FILE), they would make a call read or write another
// repository, or run a program no caller chose; they are not passed on.
// GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n> are dropped by prefix.
var elsewhere = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_COMMON_DIR": true, "GIT_NAMESPACE": true, "GIT_PREFIX": true,
	"GIT_CONFIG": true, "GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true, "PAGER": true,
	"GIT_ATTR_SOURCE": true, "GIT_GRAFT_FILE": true, "GIT_REPLACE_REF_BASE": true,
}

// cleanEnv returns env without the variables in elsewhere.
func cleanEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if elsewhere[name] || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// urlCredentials matches the user information of a URL in git's messages
// ("https://user:token@host/…"), which must never reach an error.
var urlCredentials = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]+@`) })

// queryCredentials matches a URL query parameter whose name says it holds
// a secret (access_token, private_token, api_key, X-Amz-Signature,
// password, …) up to its value.
// A fragment ("#token=…") is treated as a query: git ignores it, but a
// pasted URL may carry one.
var queryCredentials = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)([?&#][^=&?#\s]*(?:token|key|secret|pass|pwd|auth|sig|credential)[^=&?#\s]*=)[^&#\s'"]*`)
})

// StripMessage removes the user information of every URL in a message of
// git's ("https://user:token@host/…" becomes "https://host/…"), and the
// values of query parameters that hold credentials ("?access_token=…"
// becomes "?access_token=REDACTED").
func StripMessage(msg string) string {
	return queryCredentials().ReplaceAllString(urlCredentials().ReplaceAllString(msg, "$1"), "${1}REDACTED")
}

// StripCredentials removes a user's password or token from a remote URL:
// the user information of an http(s) URL (or any with a password), and the
// value of a query parameter whose name says it holds a credential
// (access_token, private_token, key, signature, …), in the query or the
// fragment. scp-style addresses
// (git@host:path) keep their user, which is not secret.
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
	if u.RawQuery != "" {
		u.RawQuery = queryCredentials().ReplaceAllString("?"+u.RawQuery, "${1}REDACTED")[1:]
	}
	if u.Fragment != "" {
		u.Fragment = queryCredentials().ReplaceAllString("#"+u.Fragment, "${1}REDACTED")[1:]
		u.RawFragment = ""
	}
	return u.String()
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

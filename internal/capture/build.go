package capture

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// ErrNoSession is wrapped when no transcript matches what was asked for.
var ErrNoSession = errors.New("no agent session found")

// Options say which session to capture and how.
type Options struct {
	// Agent is the agent whose session to read; empty means any (auto).
	Agent Agent
	// Session is "latest" (or empty), a session id or unique id prefix, or
	// the path of a transcript file.
	Session string
	// Project is the directory the session worked in.
	Project string
	// NoGit captures without git state.
	NoGit bool
	// Env looks up environment variables (where agents keep sessions).
	Env func(string) string
	// Limits bound the transcript reader.
	Limits Limits
	// Redactor removes secrets from everything captured; nil means no
	// redaction, which callers must only allow when asked explicitly.
	Redactor *redact.Redactor
	// AttachTranscript also writes a redacted copy of the transcript to
	// TranscriptCopy, for the caller to store as an attachment.
	AttachTranscript bool
	TranscriptCopy   io.Writer
	// SessionIDOnly reads Session as "latest" or a session id, never as a
	// file: the MCP server's capture names a session of the agent, and a
	// request from an agent must not make it read a file it names.
	SessionIDOnly bool
}

// Result is a captured handoff and what went into it.
type Result struct {
	Record  *handoff.Record
	Digest  *Digest
	Session SessionInfo
	// Report says what was redacted, where.
	Report *redact.Report
	// UntouchedDirty are files dirty in git that the agent did not touch.
	UntouchedDirty []handoff.FileStatus
}

// Build reads the chosen session's transcript and the project's worktree
// and returns a handoff record built from them, redacted. It stores
// nothing.
func Build(ctx context.Context, opts Options, now time.Time) (*Result, error) {
	// One capture is one moment: each worktree's git reader is made once.
	ctx = WithReaderCache(ctx)
	project, err := ProjectDir(opts.Project)
	if err != nil {
		return nil, err
	}
	sess, err := chooseSession(opts, project)
	if err != nil {
		return nil, err
	}
	dig, err := ReadSession(sess, opts.Limits)
	if err != nil {
		return nil, err
	}
	if dig.Subagent {
		return nil, subagentError(sess.Path, dig)
	}
	if dig.Empty() {
		// An empty handoff stored with exit 0 would hide the mistake.
		d, _ := DetectFile(sess.Path)
		return nil, fmt.Errorf("%s: %w: %d lines, %d records of no known type, nothing of a %s session (it looks like %s)",
			sess.Path, ErrNothingToCapture, dig.Stats.Lines, dig.Stats.Unknown, sess.Agent, cmp.Or(d.What, "nothing known"))
	}
	res := &Result{Digest: dig, Session: sess, Report: &redact.Report{}}

	title := dig.Title
	if strings.TrimSpace(title) == "" {
		title = fmt.Sprintf("%s session %s", sess.Agent, handoff.Shorten(sess.ID, 40))
	}
	rec, err := handoff.New(now, string(sess.Agent), handoff.Clip(title, handoff.MaxTitle))
	if err != nil {
		return nil, err
	}
	s := dig.Session
	rec.Session = &s
	rec.Files = withoutAgentFiles(dig.Files, sess.Agent, project, opts.Env)
	for _, q := range dig.Decisions {
		if len(rec.Decisions) < handoff.MaxItems && strings.TrimSpace(q) != "" {
			rec.Decisions = append(rec.Decisions, q)
		}
	}
	dig.NoteInto(rec)
	rec.Source = handoff.Source{Kind: handoff.SourceTranscript, Transcript: sess.Path}
	rec.Source.Machine = paths.Hostname()
	if err := FromWorktree(ctx, rec, project, opts.NoGit); err != nil {
		return nil, err
	}
	if wt := dig.Worktree; wt != "" && rec.Git != nil {
		// The session moved into a git worktree (Claude Code's
		// worktree-state): its edits are there, and so is the git state
		// that tells how they stand. The digest's paths stay relative to
		// the session's first directory.
		if fi, err := os.Stat(wt); err == nil && fi.IsDir() {
			if st, err := State(ctx, wt); err == nil {
				rec.Git = st
			}
		}
	}
	if st := rec.Git; st != nil {
		files, err := ReconcileWithGit(ctx, rec.Files, st, dig.CWD, transcript.SessionStart(s))
		if err != nil {
			return nil, err
		}
		rec.Files = files
		if sameTree(dig.CWD, st.Root) {
			// Only the worktree the session ran in can say that a file it
			// made is gone, or what its commands did; a transcript captured
			// into another project (--session FILE --project DIR) keeps its
			// files.
			rec.Files = ReconcileShell(dropVanished(files, st.Root), s.Commands, st, dig.CWD)
		}
		res.UntouchedDirty = UntouchedDirty(rec.Files, st)
	}
	if kind, checks, err := DetectProject(rec.Project.Path); err == nil {
		rec.Project.Kind, rec.Project.Checks = kind, checks
	}
	if opts.Redactor != nil {
		redactRecord(opts.Redactor, rec, res.Report)
	}
	if opts.AttachTranscript {
		if err := copyTranscript(opts, sess.Path, res.Report); err != nil {
			return nil, err
		}
	}
	rec.Redactions = res.Report.Redactions()
	if err := rec.Normalize(); err != nil {
		return nil, err
	}
	res.Record = rec
	return res, nil
}

// ErrNothingToCapture is wrapped when a transcript yields no request,
// message, command, edit, todo or summary.
var ErrNothingToCapture = errors.New("nothing to capture")

// sameTree reports whether the session's directory cwd is root or under it.
func sameTree(cwd, root string) bool {
	if cwd == "" || root == "" {
		return false
	}
	rel, err := filepath.Rel(root, filepath.Clean(cwd))
	return err == nil && filepath.IsLocal(rel) || rel == "."
}

// dropVanished leaves out the files the session created that are gone:
// git knows nothing of them (not dirty, untracked, committed or tracked)
// and the worktree at root has no such file. Made and removed within the
// session (by a command the transcript does not spell as a plain rm), they
// changed nothing. files are as Reconcile returns them.
func dropVanished(files []handoff.FileTouched, root string) []handoff.FileTouched {
	out := files[:0:0]
	for _, f := range files {
		if f.Action == "created" && f.Git == "" && !filepath.IsAbs(f.Path) && filepath.IsLocal(filepath.FromSlash(f.Path)) {
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(f.Path))); errors.Is(err, fs.ErrNotExist) {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// chooseSession finds the transcript named by opts.Session.
func chooseSession(opts Options, project string) (SessionInfo, error) {
	ref := opts.Session
	if ref != "" && ref != "latest" && !opts.SessionIDOnly {
		info, err := os.Stat(ref)
		if err == nil && !info.Mode().IsRegular() {
			// A path that exists but is no transcript file: say what it is
			// rather than look for a session with that id.
			return SessionInfo{}, fmt.Errorf("%s is %s, not a transcript file", ref, fileKind(info.Mode()))
		}
		if err == nil {
			// The file says which agent wrote it; --from, when given,
			// must agree.
			agent, err := checkDetected(ref, opts.Agent)
			if err != nil {
				return SessionInfo{}, err
			}
			abs, _ := filepath.Abs(ref)
			return SessionInfo{Agent: agent, Path: abs, ID: strings.TrimSuffix(filepath.Base(ref), filepath.Ext(ref))}, nil
		}
	}
	agents := Agents
	if opts.Agent != "" {
		agents = []Agent{opts.Agent}
	}
	var all []SessionInfo
	for _, a := range agents {
		found, err := FindSessions(a, opts.Env)
		if err != nil {
			return SessionInfo{}, fmt.Errorf("find %s sessions: %w", a, err)
		}
		all = append(all, found...)
	}
	var matches []SessionInfo
	if ref == "" || ref == "latest" {
		matches = transcript.MatchProject(all, project)
	} else {
		for _, s := range all {
			if strings.HasPrefix(strings.ToLower(s.ID), strings.ToLower(ref)) {
				matches = append(matches, s)
			}
		}
		if len(matches) > 1 {
			ids := make([]string, 0, 3)
			for i, m := range matches {
				if i == 3 {
					break
				}
				ids = append(ids, m.ID)
			}
			return SessionInfo{}, fmt.Errorf("session %q is ambiguous: %s", handoff.Shorten(ref, 40), strings.Join(ids, ", "))
		}
	}
	if len(matches) == 0 {
		what := "for " + project
		if ref != "" && ref != "latest" {
			what = fmt.Sprintf("with id %q", handoff.Shorten(ref, 40))
		}
		return SessionInfo{}, fmt.Errorf("%w %s", ErrNoSession, what)
	}
	newest := matches[0]
	for _, m := range matches[1:] {
		if m.LastActivity.After(newest.LastActivity) {
			newest = m
		}
	}
	return newest, nil
}

// fileKind names what a file that is not a regular file is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// redactRecord removes secrets from every text field the transcript filled.
func redactRecord(r *redact.Redactor, rec *handoff.Record, rep *redact.Report) {
	rec.Title = r.String(rec.Title, "title", rep)
	rec.Summary = r.String(rec.Summary, "summary", rep)
	for i := range rec.Decisions {
		rec.Decisions[i] = r.String(rec.Decisions[i], fmt.Sprintf("decision %d", i+1), rep)
	}
	for i := range rec.OpenQuestions {
		rec.OpenQuestions[i] = r.String(rec.OpenQuestions[i], fmt.Sprintf("open question %d", i+1), rep)
	}
	s := rec.Session
	if s == nil {
		return
	}
	for i := range s.Requests {
		s.Requests[i] = r.String(s.Requests[i], fmt.Sprintf("request %d", i+1), rep)
	}
	s.LastAgentMessage = r.String(s.LastAgentMessage, "last agent message", rep)
	s.CompactionSummary = r.String(s.CompactionSummary, "compaction summary", rep)
	s.Plan = r.String(s.Plan, "plan", rep)
	for i := range s.PullRequests {
		s.PullRequests[i].URL = r.String(s.PullRequests[i].URL, fmt.Sprintf("pull request %d", i+1), rep)
	}
	for i := range s.Commands {
		c := &s.Commands[i]
		c.Command = r.String(c.Command, fmt.Sprintf("command %d", i+1), rep)
		c.Output = r.String(c.Output, fmt.Sprintf("command %d output", i+1), rep)
	}
	if f := s.LastFailure; f != nil {
		f.Command = r.String(f.Command, "last failure", rep)
		f.Output = r.String(f.Output, "last failure output", rep)
	}
	for i := range s.Todos {
		s.Todos[i].Content = r.String(s.Todos[i].Content, fmt.Sprintf("todo %d", i+1), rep)
	}
	for i := range s.FailedEdits {
		s.FailedEdits[i].Error = r.String(s.FailedEdits[i].Error, fmt.Sprintf("failed edit %d", i+1), rep)
	}
}

// copyTranscript writes a redacted copy of the transcript for attaching.
func copyTranscript(opts Options, path string, rep *redact.Report) error {
	if opts.TranscriptCopy == nil {
		return errors.New("no destination for the transcript copy")
	}
	f, _, err := safefile.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// An agent that keeps its sessions in a database (OpenCode) keeps
	// every session in it: the copy would carry them all.
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	if sqlitefile.HasHeader(head[:n]) {
		return fmt.Errorf("%s is a database holding every session of the agent, not this one alone: it is not attached (capture without --attach-transcript)", path)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	// The model's private reasoning never leaves the agent's file: the
	// copy is filtered as the record is (SECURITY.md, "Private
	// reasoning"), then redacted.
	pr, pw := io.Pipe()
	go func() {
		_, err := transcript.WithoutReasoning(pw, f, agents.Reasoning(), transcript.Limits{MaxFile: limitsOrDefault(opts.Limits).MaxFile})
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	if opts.Redactor == nil {
		_, err = io.Copy(opts.TranscriptCopy, pr)
	} else {
		err = opts.Redactor.Copy(opts.TranscriptCopy, pr, "transcript", rep)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func limitsOrDefault(l Limits) Limits {
	if l.MaxFile <= 0 {
		l.MaxFile = DefaultMaxFile
	}
	return l
}

// withoutAgentFiles is files without those the agent keeps for itself in
// its own directories (Claude Code's ~/.claude/plans/<slug>.md, memory
// files, Gemini CLI's plans under ~/.gemini/tmp): they are not the
// project's, unless the project itself lies inside such a directory.
func withoutAgentFiles(files []handoff.FileTouched, agent Agent, project string, env func(string) string) []handoff.FileTouched {
	if env == nil {
		env = os.Getenv
	}
	home, err := paths.Home(env)
	if err != nil {
		return files
	}
	info, err := entry(agent)
	if err != nil {
		return files
	}
	var own, underHome []string
	for _, d := range info.Dirs(home, env) {
		if !transcript.UnderDir(project, d) {
			own = append(own, d)
		}
		// The same directory in another machine's home: a transcript
		// written there (synced, received) names its plans under
		// /Users/NAME/.claude (issue 45).
		if rel, err := filepath.Rel(home, d); err == nil && filepath.IsLocal(rel) {
			underHome = append(underHome, filepath.ToSlash(rel))
		}
	}
	if len(own) == 0 {
		return files
	}
	return slices.DeleteFunc(slices.Clone(files), func(f handoff.FileTouched) bool {
		if filepath.IsAbs(f.Path) && slices.ContainsFunc(own, func(d string) bool { return transcript.UnderDir(f.Path, d) }) {
			return true
		}
		return !transcript.UnderDir(f.Path, project) && slices.ContainsFunc(underHome, func(rel string) bool { return inSomeHome(f.Path, rel) })
	})
}

// someHome matches the home directories of the systems agents run on:
// /home/NAME, /Users/NAME, /root, /var/root, C:/Users/NAME.
var someHome = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(/home/[^/]+|/Users/[^/]+|/root|/var/root|[A-Za-z]:/Users/[^/]+)$`)
})

// windowsPath matches an absolute Windows path, written on another
// machine.
var windowsPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z]:\\`) })

// inSomeHome says whether p lies under rel (an agent's directory relative
// to a home, "/"-separated) in some user's home directory.
func inSomeHome(p, rel string) bool {
	if windowsPath().MatchString(p) {
		p = strings.ReplaceAll(p, `\`, "/")
	}
	p = filepath.ToSlash(p)
	i := strings.Index(p, "/"+rel+"/")
	return i > 0 && someHome().MatchString(p[:i])
}

package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/changes"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
)

// captureOptions are capture's flags.
type captureOptions struct {
	from     string // an agent, or auto
	session  string // latest, an id or prefix, or a transcript file
	project  string
	notes    noteOptions
	noGit    bool
	attach   bool
	noRedact bool
	dryRun   bool
	json     bool
	quiet    bool // no score advice
	changes  changesFlags
}

func newCaptureCmd(a *app) *cobra.Command {
	var opts captureOptions
	cmd := &cobra.Command{
		Use:   "capture --from " + agents.Choices(capture.AgentNames(), "auto") + " [--session latest|ID|FILE] [--project DIR] [--title …] [--next …] [--attach-transcript] [--dry-run] [--json]",
		Short: "build a handoff from an agent's transcript and the git worktree",
		Long: `Reads what the machine already knows: the agent's own transcript (the
user's requests, the last in full; the agent's last message; files edited
and created; commands with their exit status and the last failure in full;
open todos; the compaction summary; token totals) and the project's git
state, kind and build and test commands. Files the agent touched are
reconciled with git (still dirty, committed since, untracked). Whatever you
add with --title, --summary, --next, --decision and --question is kept as
you wrote it.

Secrets are redacted from everything captured before it is stored, and the
redaction is reported (kind, count, where); --no-redact must be given
explicitly to keep them. Your own patterns go in the file redact-patterns
in the keys directory, one "KIND REGEXP" per line. --attach-transcript stores the (redacted)
transcript as an attachment, so an export carries it. --with-changes
attaches the worktree's uncommitted changes as changes.patch, as save
--help says. --dry-run prints what would be saved and stores nothing.`,
		Example: `  session-handoff capture --from claude-code --next "Run the race tests"
  session-handoff capture --from codex --session ~/.codex/sessions/2026/11/23/rollout-….jsonl --dry-run
  session-handoff capture --from auto --attach-transcript --json`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runCapture(a, &opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.from, "from", "auto", "the agent: "+strings.Join(capture.AgentNames(), ", ")+", or auto (the newest session of any)")
	f.StringVar(&opts.session, "session", "latest", "latest, a session id (or prefix), or a transcript file")
	f.StringVar(&opts.project, "project", ".", "the project directory")
	opts.notes.bind(f, "title (default: the session's own)")
	f.BoolVar(&opts.noGit, "no-git", false, "capture without git state")
	f.BoolVar(&opts.attach, "attach-transcript", false, "store the redacted transcript as an attachment")
	f.BoolVar(&opts.noRedact, "no-redact", false, "keep secrets (RISK: they will be stored and exported)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print what would be saved; store nothing")
	f.BoolVar(&opts.quiet, "quiet", false, "do not print the score and what to add")
	f.BoolVar(&opts.json, "json", false, "print the record and the redaction report as JSON")
	opts.changes.bind(f, a)
	cmd.RegisterFlagCompletionFunc("from", fixedCompletion(append([]string{"auto"}, capture.AgentNames()...)...))
	return cmd
}

func runCapture(a *app, opts *captureOptions) error {
	if err := opts.notes.check(); err != nil {
		return err
	}
	copts, err := a.captureOptions(opts)
	if err != nil {
		return err
	}
	var staged *os.File
	if copts.AttachTranscript {
		f, err := os.CreateTemp("", "session-handoff-transcript-")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		staged, copts.TranscriptCopy = f, f
	}
	res, err := capture.Build(a.ctx, copts, time.Now())
	if errors.Is(err, capture.ErrNoSession) {
		return withHint(err, "run 'session-handoff sessions --project \"\"' to see what capture can see, or pass --session FILE")
	}
	if errors.Is(err, capture.ErrNotGitRepo) {
		return withHint(err, "pass --no-git to capture without git state")
	}
	if err != nil {
		return err
	}
	// What the user says wins over what the transcript says, and over
	// what was saved earlier in the session: the notes go in last.
	notes, err := opts.notes.read(a)
	if err != nil {
		return err
	}
	if opts.dryRun {
		if err := noteError(notes.Apply(res.Record)); err != nil {
			return err
		}
	} else if err := noteError(notes.Check()); err != nil {
		return err
	}
	if opts.noRedact {
		a.warn("--no-redact: secrets in the transcript are kept")
	}
	var m *changes.Made
	if opts.changes.with && res.Record.Git != nil {
		if m, err = a.makeChanges(res.Record.Git.Root, opts.changes); err != nil {
			return err
		}
		defer m.Close()
	}
	updated := false
	if !opts.dryRun {
		if updated, err = a.saveCaptured(res.Record, notes, staged, m); err != nil {
			return err
		}
	}
	a.sayChanges(res.Record, m)
	a.warnIncomplete(res.Record, opts.quiet)
	if opts.json {
		return a.writeJSON(map[string]any{"saved": !opts.dryRun, "record": res.Record, "score": handoff.Assess(res.Record, nil),
			"session":    map[string]any{"agent": res.Session.Agent, "id": res.Session.ID, "path": res.Session.Path},
			"redactions": res.Report, "stats": res.Digest.Stats, "untouched_dirty": res.UntouchedDirty})
	}
	printCaptured(a, opts, res, updated)
	return nil
}

// captureOptions turns the flags into what capture.Build takes.
func (a *app) captureOptions(opts *captureOptions) (capture.Options, error) {
	var agent capture.Agent
	if opts.from != "auto" {
		ag, err := capture.ParseAgent(opts.from)
		if err != nil {
			return capture.Options{}, usagef("--from %q: want %s", handoff.Shorten(opts.from, 40), agents.OrList(append(capture.AgentNames(), "auto")...))
		}
		agent = ag
	}
	copts := capture.Options{Agent: agent, Session: opts.session, Project: opts.project, NoGit: opts.noGit, Env: a.getenv,
		AttachTranscript: opts.attach && !opts.dryRun}
	if !opts.noRedact {
		r, err := a.redactor()
		if err != nil {
			return capture.Options{}, err
		}
		copts.Redactor = r
	}
	return copts, nil
}

// saveCaptured stores rec with notes, and first the staged transcript and
// the changes m as its attachments when there are. A session already
// captured or saved into is one record, updated (FORMAT.md §3.1), which
// updated reports.
func (a *app) saveCaptured(rec *handoff.Record, notes handoff.Notes, staged *os.File, m *changes.Made) (updated bool, err error) {
	s, err := a.openStore()
	if err != nil {
		return false, err
	}
	if staged != nil {
		if _, err := staged.Seek(0, 0); err != nil {
			return false, err
		}
		if err := attachTranscript(s, rec, staged); err != nil {
			return false, err
		}
	}
	if m != nil {
		if err := attachChanges(s, rec, m); err != nil {
			return false, err
		}
	}
	return s.SaveSessionCapture(rec, notes)
}

func attachTranscript(s *store.Store, rec *handoff.Record, f *os.File) error {
	sum, size, err := s.PutBlob(f, capture.DefaultMaxFile)
	if err != nil {
		return fmt.Errorf("store transcript: %w", err)
	}
	rec.Attachments = append(rec.Attachments, handoff.Attachment{Name: "transcript.jsonl", MediaType: "application/x-ndjson", Size: size, SHA256: sum})
	return nil
}

// printCaptured says what capture made: the record (on a dry run) or its
// id, the session it came from, and what was redacted.
func printCaptured(a *app, opts *captureOptions, res *capture.Result, updated bool) {
	rec := res.Record
	if opts.dryRun {
		a.printRecord(rec)
	} else {
		verb := "saved"
		if updated {
			verb = "updated"
		}
		fmt.Fprintf(a.stdout, "%s %s  %s\n", verb, rec.ID, cell(rec.Title, 200))
		render.PeopleNextSteps(a.stdout, rec)
		render.PeopleSession(a.stdout, rec)
		fmt.Fprintln(a.stdout)
	}
	// The title and the session id come from the transcript: cleaned, so
	// an escape sequence in them cannot drive the terminal.
	fmt.Fprintf(a.stdout, "from %s session %s (%d lines", res.Session.Agent, cell(res.Session.ID, 80), res.Digest.Stats.Lines)
	if n := rec.Session.SkippedRecords; n > 0 {
		fmt.Fprintf(a.stdout, ", %d skipped", n)
	}
	fmt.Fprintln(a.stdout, ")")
	if dirty := res.UntouchedDirty; len(dirty) > 0 {
		paths := make([]string, 0, len(dirty))
		for _, f := range dirty {
			paths = append(paths, cell(f.Path, 80))
		}
		fmt.Fprintf(a.stdout, "dirty but not touched by the agent: %s\n", strings.Join(paths, ", "))
	}
	if red := rec.Redactions; len(red) > 0 {
		parts := make([]string, len(red))
		for i, r := range red {
			parts[i] = fmt.Sprintf("%d %s", r.Count, r.Kind)
		}
		fmt.Fprintf(a.stdout, "redacted: %s\n", strings.Join(parts, ", "))
	} else if !opts.noRedact {
		fmt.Fprintln(a.stdout, "redacted: nothing found")
	}
}

// redactor builds the redactor with the built-in rules and the user's own
// patterns from the keys directory.
func (a *app) redactor() (*redact.Redactor, error) {
	kr, err := a.keyring()
	if err != nil {
		return nil, err
	}
	return redact.LoadUserPatterns(kr.Dir)
}

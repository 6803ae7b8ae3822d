package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

func init() {
	register(&command{
		name:    "capture",
		summary: "build a handoff from an agent's transcript and the git worktree",
		usage:   "capture --from claude-code|codex|gemini|auto [--session latest|ID|FILE] [--project DIR] [--title …] [--next …] [--attach-transcript] [--dry-run] [--json]",
		help: `Reads what the machine already knows: the agent's own transcript (the
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
transcript as an attachment, so an export carries it. --dry-run prints
what would be saved and stores nothing.`,
		example: `  session-handoff capture --from claude-code --next "Run the race tests"
  session-handoff capture --from codex --session ~/.codex/sessions/2026/11/23/rollout-….jsonl --dry-run
  session-handoff capture --from auto --attach-transcript --json`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeFlag(fs, a)
			keysDir := keysFlag(fs, a)
			from := fs.String("from", "auto", "the agent: claude-code, codex, gemini, or auto (the newest session of any)")
			session := fs.String("session", "latest", "latest, a session id (or prefix), or a transcript file")
			project := fs.String("project", ".", "the project directory")
			var notes noteOptions
			notes.bind(fs, "title (default: the session's own)")
			noGit := fs.Bool("no-git", false, "capture without git state")
			attach := fs.Bool("attach-transcript", false, "store the redacted transcript as an attachment")
			noRedact := fs.Bool("no-redact", false, "keep secrets (RISK: they will be stored and exported)")
			dryRun := fs.Bool("dry-run", false, "print what would be saved; store nothing")
			asJSON := fs.Bool("json", false, "print the record and the redaction report as JSON")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", handoff.Shorten(args[0], 40))
				}
				if err := notes.check(); err != nil {
					return err
				}
				var agent capture.Agent
				if *from != "auto" {
					ag, err := capture.ParseAgent(*from)
					if err != nil {
						return usagef("--from %q: want claude-code, codex, gemini or auto", handoff.Shorten(*from, 40))
					}
					agent = ag
				}
				opts := capture.Options{Agent: agent, Session: *session, Project: *project, NoGit: *noGit, Env: a.getenv,
					AttachTranscript: *attach && !*dryRun}
				if !*noRedact {
					r, err := a.redactor(*keysDir)
					if err != nil {
						return err
					}
					opts.Redactor = r
				}
				var staged *os.File
				if opts.AttachTranscript {
					f, err := os.CreateTemp("", "session-handoff-transcript-")
					if err != nil {
						return err
					}
					defer os.Remove(f.Name())
					defer f.Close()
					staged, opts.TranscriptCopy = f, f
				}
				res, err := capture.Build(a.ctx, opts, time.Now())
				if errors.Is(err, capture.ErrNoSession) {
					return withHint(err, "run 'session-handoff sessions --project \"\"' to see what capture can see, or pass --session FILE")
				}
				if errors.Is(err, capture.ErrNotGitRepo) {
					return withHint(err, "pass --no-git to capture without git state")
				}
				if err != nil {
					return err
				}
				rec := res.Record
				// What the user says wins over what the transcript says.
				if err := notes.apply(a, rec); err != nil {
					return err
				}
				if *noRedact {
					fmt.Fprintln(a.stderr, "session-handoff: warning: --no-redact: secrets in the transcript are kept")
				}
				if !*dryRun {
					s, err := a.openStore()
					if err != nil {
						return err
					}
					if staged != nil {
						if _, err := staged.Seek(0, 0); err != nil {
							return err
						}
						sum, size, err := s.PutBlob(staged, capture.DefaultMaxFile)
						if err != nil {
							return fmt.Errorf("store transcript: %w", err)
						}
						rec.Attachments = append(rec.Attachments, handoff.Attachment{Name: "transcript.jsonl", MediaType: "application/x-ndjson", Size: size, SHA256: sum})
					}
					if err := s.Save(rec); err != nil {
						return err
					}
				}
				a.warnIncomplete(rec)
				if *asJSON {
					return a.writeJSON(map[string]any{"saved": !*dryRun, "record": rec, "score": handoff.Assess(rec, nil), "session": map[string]any{"agent": res.Session.Agent, "id": res.Session.ID, "path": res.Session.Path},
						"redactions": res.Report, "stats": res.Digest.Stats, "untouched_dirty": res.UntouchedDirty})
				}
				if *dryRun {
					printRecord(a.stdout, rec, time.Now())
				} else {
					fmt.Fprintf(a.stdout, "saved %s  %s\n", rec.ID, rec.Title)
				}
				fmt.Fprintf(a.stdout, "from %s session %s (%d lines", res.Session.Agent, res.Session.ID, res.Digest.Stats.Lines)
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
				} else if !*noRedact {
					fmt.Fprintln(a.stdout, "redacted: nothing found")
				}
				return nil
			}
		},
	})
}

// redactor builds the redactor with the built-in rules and the user's own.
func (a *app) redactor(keysDir string) (*redact.Redactor, error) {
	kr, err := a.keyring()
	if err != nil {
		return nil, err
	}
	path := kr.Files().RedactPatterns()
	var extra []redact.Pattern
	data, err := safefile.ReadRegular(path, redact.MaxPatternsFile)
	switch {
	case err == nil:
		if extra, err = redact.ParsePatterns(data, path); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	r, err := redact.New(extra)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

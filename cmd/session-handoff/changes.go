package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/changes"
	"github.com/session-handoff/session-handoff/store"
)

// withChangesEnv makes --with-changes the default of save, capture and
// export when set to 1.
const withChangesEnv = "SESSION_HANDOFF_WITH_CHANGES"

// changesFlags are --with-changes and --allow-secrets-in-changes.
type changesFlags struct {
	with         bool
	allowSecrets bool
}

func (c *changesFlags) bind(f *pflag.FlagSet, a *app) {
	f.BoolVar(&c.with, "with-changes", a.getenv(withChangesEnv) == "1",
		"carry the worktree's uncommitted changes as a git patch (default on when $"+withChangesEnv+"=1)")
	f.BoolVar(&c.allowSecrets, "allow-secrets-in-changes", false, "carry the changes even when a secret is found in them (RISK: recipients see it)")
}

// makeChanges makes the patch of the worktree at root and scans it for
// secrets: one found refuses it, unless allowed. Code is never altered:
// a patch travels exactly as git made it, or not at all. nil when the
// worktree has nothing uncommitted.
func (a *app) makeChanges(root string, c changesFlags) (*changes.Made, error) {
	m, err := changes.Make(a.ctx, root)
	switch {
	case errors.Is(err, changes.ErrHostile):
		return nil, withHint(err, "commit those files first, or go without --with-changes")
	case errors.Is(err, changes.ErrTooLarge):
		return nil, withHint(err, "commit them, or go without --with-changes (--with-changes=false)")
	}
	if err != nil || m == nil {
		return nil, err
	}
	r, err := a.redactor()
	if err != nil {
		m.Close()
		return nil, err
	}
	if _, err := m.Secrets(r); err != nil {
		if !errors.Is(err, changes.ErrSecrets) {
			m.Close()
			return nil, err
		}
		if !c.allowSecrets {
			m.Close()
			return nil, withHint(fmt.Errorf("%w: they were not attached", err),
				"remove the secret from the change, or pass --allow-secrets-in-changes to carry it as it is")
		}
		a.warn("--allow-secrets-in-changes: %v travel as they are", err)
	}
	for _, l := range m.LeftOut {
		a.warn("left out of the changes: %s", cell(l, 300))
	}
	return m, nil
}

// attachChanges stores the patch m as a blob of s, with its headers
// sidecar, and as rec's attachment.
func attachChanges(s *store.Store, rec *handoff.Record, m *changes.Made) error {
	r, err := m.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	sum, size, err := s.PutBlob(r, changes.MaxPatch)
	if err != nil {
		return fmt.Errorf("store the changes: %w", err)
	}
	at := handoff.Attachment{Name: changes.Name, MediaType: changes.MediaType, Size: size, SHA256: sum}
	rec.Attachments = append(rec.Attachments, at)
	return changes.KeepHeaders(s, at)
}

// changesBlob is the patch open reads (changes.Made.Open) as a blob for
// a bundle.
func changesBlob(open func() (io.ReadCloser, error)) (bundle.BlobSource, error) {
	src, err := bundle.FirstPass(func(w io.Writer) error {
		r, err := open()
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = io.Copy(w, r)
		return err
	})
	if err != nil {
		return src, err
	}
	src.Name, src.MediaType = changes.Name, changes.MediaType
	src.Open = open
	return src, nil
}

// sayChanges tells, on stderr, what happens to rec's uncommitted files:
// carried (how many) or staying on this machine.
func (a *app) sayChanges(rec *handoff.Record, m *changes.Made) {
	switch {
	case m != nil:
		fmt.Fprintf(a.stderr, "the handoff carries %d changed file(s) (%s)\n", len(m.Summary.Files), changes.Name)
		if n := len(m.Untracked); n > 0 {
			shown := m.Untracked[:min(n, 10)]
			more := ""
			if n > len(shown) {
				more = fmt.Sprintf(" and %d more", n-len(shown))
			}
			fmt.Fprintf(a.stderr, "  untracked files among them: %s%s\n", cellList(shown), more)
		}
	case rec.Git.Uncommitted() > 0:
		fmt.Fprintf(a.stderr, "%d uncommitted file(s) stay on this machine (--with-changes carries them)\n", rec.Git.Uncommitted())
	}
}

// carriedChanges is what rec carries of its worktree's uncommitted
// changes: nil when none, or when they cannot be read or checked (said
// on stderr).
// The patch is read as a stream, never held.
func (a *app) carriedChanges(s *store.Store, rec *handoff.Record) *changes.Summary {
	sum, err := changes.CarriedSummary(s, rec)
	if err != nil {
		a.warn("%v", err)
	}
	return sum
}

// printCarried says, for show, what rec carries of the worktree's
// uncommitted state, and whether the worktree holds those changes: the
// one it was made in for a handoff made here, else the current
// directory's.
func (a *app) printCarried(s *store.Store, rec *handoff.Record) {
	sum := a.carriedChanges(s, rec)
	_, carries := rec.Changes()
	switch {
	case sum == nil && carries:
		// Over the size a patch may have (a bundle may bring one), or
		// damaged: there, unread (the warning said why), never absent.
		fmt.Fprintf(a.stdout, "the handoff carries uncommitted changes whose changes.patch could not be read: 'session-handoff apply --dry-run %s' says why\n", rec.ID)
	case sum != nil:
		root, err := a.projectRoot(".")
		if (rec.Source.Kind == handoff.SourceHand || rec.Source.Kind == handoff.SourceTranscript) && rec.Git != nil {
			root, err = rec.Git.Root, nil
		}
		st := changes.CannotTell
		if err == nil {
			_, st, _ = changes.CarriedState(s, rec, root)
		}
		switch st {
		case changes.AllApplied:
			fmt.Fprintf(a.stdout, "the handoff carries %d changed file(s), applied in this worktree\n", len(sum.Files))
		case changes.NoneApplied:
			fmt.Fprintf(a.stdout, "the handoff carries %d changed file(s), not applied: 'session-handoff apply --dry-run %s' shows what apply would do\n", len(sum.Files), rec.ID)
		default:
			fmt.Fprintf(a.stdout, "the handoff carries %d changed file(s); whether this worktree has them cannot be told at a glance: 'session-handoff apply --dry-run %s' says\n", len(sum.Files), rec.ID)
		}
	case rec.Git.Uncommitted() > 0 && rec.Source.Kind == handoff.SourceImport:
		fmt.Fprintf(a.stdout, "%d uncommitted file(s) stayed on the machine the handoff was made on (--with-changes carries them)\n", rec.Git.Uncommitted())
	}
}

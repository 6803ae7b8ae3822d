package store

import (
	"slices"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// maxSessionLookups bounds the handoffs of the project read to find the
// ones an earlier capture or save made of the same session.
const maxSessionLookups = 50

// SaveSessionCapture stores rec, the capture of an agent session by a
// hook or the MCP server: one record per agent session, whatever wrote to
// it (docs/FORMAT.md, "One record per agent session"). The session's
// records on this machine, in this project and for this tool, are the
// earlier captures of the same session and the handoffs saved by hand
// (save, or the agent's handoff_save) since the session started that no
// other session holds. rec takes what those saves wrote (a capture never
// replaces it: handoff.Record.AdoptWritten), and the oldest one's id; it
// replaces that record and enters the store again, so it is the latest,
// and the session's other records are removed. A crash between the two
// leaves a record too many, which the session's next capture folds in.
// notes, what the caller was told along with the capture, are applied
// last: they are the newest words on the session.
func (s *Store) SaveSessionCapture(rec *handoff.Record, notes handoff.Notes) (updated bool, err error) {
	if rec.Session == nil || rec.Session.ID == "" {
		if err := notes.Apply(rec); err != nil {
			return false, err
		}
		return false, s.Save(rec)
	}
	entries, err := s.List(Filter{Project: rec.Project.Path, Tool: rec.Tool, Limit: maxSessionLookups})
	if err != nil {
		return false, err
	}
	var same []*handoff.Record
	for _, e := range entries {
		if e.ProjectPath != rec.Project.Path || (e.Source != handoff.SourceTranscript && e.Source != handoff.SourceHand) {
			continue
		}
		old, err := s.Get(e.ID)
		if err != nil || old.Source.Machine != rec.Source.Machine || !sameSession(old, rec) {
			continue
		}
		same = append(same, old)
	}
	slices.SortStableFunc(same, func(a, b *handoff.Record) int { return a.CreatedAt.Compare(b.CreatedAt) })
	for _, old := range same {
		if old.Source.Kind == handoff.SourceHand {
			rec.AdoptWritten(old)
		} else {
			rec.KeepAttachments(old)
		}
	}
	if err := notes.Apply(rec); err != nil {
		return false, err
	}
	if !notes.Empty() {
		// Someone wrote part of it: a later capture keeps what they wrote.
		rec.Source.Kind = handoff.SourceHand
	}
	if len(same) == 0 {
		return false, s.Save(rec)
	}
	rec.ID, rec.CreatedAt = same[0].ID, same[0].CreatedAt
	if _, err := s.Put(rec, true); err != nil {
		return false, err
	}
	for _, old := range same[1:] {
		if err := s.Remove(old.ID); err != nil {
			return true, err
		}
	}
	return true, nil
}

// sameSession reports whether old, a record of the same project, tool and
// machine, is one of the session rec captures: a record of that session,
// or one saved by hand without a session while it ran, between its first
// and its last transcript line (the result of the save's own tool call
// comes after it; a minute's slack for clocks that round).
func sameSession(old, rec *handoff.Record) bool {
	if old.Session != nil {
		return old.Session.ID == rec.Session.ID
	}
	started, last := rec.Session.StartedAt, rec.Session.LastActivity
	return old.Source.Kind == handoff.SourceHand && started != nil && last != nil &&
		!old.CreatedAt.Before(*started) && !old.CreatedAt.After(last.Add(sessionSlack))
}

// sessionSlack is how long after a session's last transcript line a save
// still counts as made during it.
const sessionSlack = time.Minute

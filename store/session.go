package store

import "github.com/session-handoff/session-handoff/handoff"

// maxSessionLookups bounds the handoffs of the project read to find the
// one an earlier capture made of the same session.
const maxSessionLookups = 50

// SaveSessionCapture stores rec, the capture of an agent session by a
// hook or the MCP server: one handoff per session, not one per event or
// call (issue 18). When an earlier capture on this machine took the same
// session of the same project (a PreCompact, then the SessionEnd), that
// handoff is replaced, keeping its id; it then enters the store again,
// so it is the latest.
func (s *Store) SaveSessionCapture(rec *handoff.Record) (updated bool, err error) {
	if rec.Session == nil || rec.Session.ID == "" {
		return false, s.Save(rec)
	}
	entries, err := s.List(Filter{Project: rec.Project.Path, Tool: rec.Tool, Limit: maxSessionLookups})
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if e.Source != handoff.SourceTranscript || e.ProjectPath != rec.Project.Path {
			continue
		}
		old, err := s.Get(e.ID)
		if err != nil || old.Session == nil || old.Session.ID != rec.Session.ID || old.Source.Machine != rec.Source.Machine {
			continue
		}
		rec.ID, rec.CreatedAt = old.ID, old.CreatedAt
		_, err = s.Put(rec, true)
		return true, err
	}
	return false, s.Save(rec)
}

package main

import (
	"errors"
	"fmt"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/legacy"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/store"
)

// listEntries is list's query: store.Search (the query in every text
// field), and an --id that names no current id read as an id an earlier
// version gave (store.ListLegacy).
func listEntries(s *store.Store, f store.Filter) ([]store.Entry, error) {
	if f.IDPrefix != "" && !handoff.ValidPrefix(f.IDPrefix) {
		return s.ListLegacy(f)
	}
	entries, err := s.Search(f)
	if err != nil || len(entries) > 0 || f.IDPrefix == "" {
		return entries, err
	}
	return s.ListLegacy(f)
}

// writeFullRecords prints the records of entries as one JSON array.
func (a *app) writeFullRecords(s *store.Store, entries []store.Entry) error {
	recs := make([]*handoff.Record, 0, len(entries))
	for _, e := range entries {
		rec, err := s.Get(e.ID)
		if errors.Is(err, store.ErrNotFound) {
			continue // removed since the index was read
		}
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	return a.writeJSON(recs)
}

// noticeLegacyStore says once, on stderr, that an earlier version's store
// (handoffs.json in the configuration directory) is there and how to bring
// it in; a marker file in the configuration directory keeps it from being
// said again. doctor says it every time.
func (a *app) noticeLegacyStore() {
	kr, err := a.keyring()
	if err != nil {
		return
	}
	found := legacy.FindOldStore(paths.OldStores(a.getenv))
	if found == "" || !legacy.FirstNotice(kr.Dir) {
		return
	}
	fmt.Fprintf(a.stderr, "note: %s holds handoffs of session-handoff v0.7.5 or earlier; bring them in with: session-handoff import --legacy %s ('session-handoff doctor' says it again)\n", handoff.CleanText(found), handoff.CleanText(found))
}

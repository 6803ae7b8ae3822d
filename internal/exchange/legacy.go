package exchange

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/legacy"
	"github.com/session-handoff/session-handoff/store"
)

// ImportLegacy stores records converted from an earlier version's files
// (package legacy). Every record is checked against the store before any
// is written, so a conflict stores nothing. A record already imported from
// the same legacy item (same derived id and title) counts as Already. It
// returns how many records had each outcome.
func ImportLegacy(s *store.Store, recs []*handoff.Record, onConflict Conflict) (map[Outcome]int, error) {
	return ImportLegacyAt(s, recs, onConflict, time.Now())
}

// ImportLegacyAt is ImportLegacy with the time of the import given: a
// record dated (or whose id is dated) more than MaxClockSkew after now is
// refused (ErrFuture), and nothing is stored.
func ImportLegacyAt(s *store.Store, recs []*handoff.Record, onConflict Conflict, now time.Time) (map[Outcome]int, error) {
	for _, rec := range recs {
		if err := checkDate(rec, now); err != nil {
			return nil, err
		}
	}
	counts := map[Outcome]int{}
	var toStore []*handoff.Record
	var replace []bool
	for _, rec := range recs {
		existing, err := s.Get(rec.ID)
		switch {
		case err == nil && existing.Source.Kind == handoff.SourceLegacy && sameRecord(existing, rec):
			counts[Already]++
			continue
		case err == nil && onConflict == ConflictSkip:
			counts[Skipped]++
			continue
		case err == nil && onConflict == ConflictReplace:
			toStore, replace = append(toStore, rec), append(replace, true)
		case err == nil:
			return nil, fmt.Errorf("%w: %s", ErrConflict, rec.ID)
		case errors.Is(err, store.ErrNotFound):
			toStore, replace = append(toStore, rec), append(replace, false)
		default:
			return nil, err
		}
	}
	for i, rec := range toStore {
		replaced, err := s.Put(rec, replace[i])
		if err != nil {
			return counts, fmt.Errorf("store legacy record %s: %w", rec.ID, err)
		}
		if replaced {
			counts[Replaced]++
		} else {
			counts[Imported]++
		}
	}
	return counts, nil
}

// sameRecord reports whether a and b hold the same content.
func sameRecord(a, b *handoff.Record) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// LegacyImport is what ImportLegacyFile did.
type LegacyImport struct {
	Kind     legacy.Kind
	Records  int
	Outcomes map[Outcome]int
	// Warnings say what the earlier version would have refused (see
	// legacy.Result).
	Warnings []string
}

// ImportLegacyFile converts data, a file an earlier version wrote (the
// old handoffs.json store, a version 2 or 3 JSON bundle), and stores its
// records as unsigned legacy records: their signatures proved nothing.
// passphrase is asked for only by an encrypted bundle.
func ImportLegacyFile(ctx context.Context, s *store.Store, data []byte, name string, passphrase func() ([]byte, error), onConflict Conflict) (*LegacyImport, error) {
	res, err := legacy.ReadContext(ctx, data, name, passphrase)
	if err != nil {
		return nil, err
	}
	counts, err := ImportLegacy(s, res.Records, onConflict)
	if err != nil {
		return nil, err
	}
	return &LegacyImport{Kind: res.Kind, Records: len(res.Records), Outcomes: counts, Warnings: res.Warnings}, nil
}

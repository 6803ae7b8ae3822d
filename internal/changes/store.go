package changes

import (
	"fmt"
	"io"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// Carried returns the patch rec carries (its changes.patch attachment),
// read from s with its size bounded, and what Check read from it; nil
// and no error when rec carries none.
func Carried(s *store.Store, rec *handoff.Record) ([]byte, *Summary, error) {
	at, ok := rec.Changes()
	if !ok {
		return nil, nil, nil
	}
	if at.Size > MaxPatch {
		return nil, nil, fmt.Errorf("%s: over %d bytes", Name, MaxPatch)
	}
	r, _, err := s.OpenBlob(at.SHA256)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", Name, err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, MaxPatch+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", Name, err)
	}
	sum, err := Check(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", Name, err)
	}
	return data, sum, nil
}

// CarriedSummary is what Carried checks of rec's patch, read from the
// store as a stream: its memory does not grow with the patch. nil when
// rec carries none.
func CarriedSummary(s *store.Store, rec *handoff.Record) (*Summary, error) {
	at, ok := rec.Changes()
	if !ok {
		return nil, nil
	}
	if at.Size > MaxPatch {
		return nil, fmt.Errorf("%s: over %d bytes", Name, MaxPatch)
	}
	r, _, err := s.OpenBlob(at.SHA256)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	defer r.Close()
	sum, err := CheckReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return sum, nil
}

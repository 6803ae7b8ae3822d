package exchange

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// A record dated far in the future would stay "latest" for ever: import
// refuses it, naming the date; a clock a few hours ahead is fine.
func TestImportRefusesARecordFromTheFuture(t *testing.T) {
	alice, bob := newParty(t, "alice@test"), newParty(t, "bob@test")
	trustParty(t, bob, alice)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), now.Add(MaxClockSkew + time.Minute)} {
		rec, err := handoff.New(at, "codex", "squatter")
		if err != nil {
			t.Fatal(err)
		}
		rec.Project = handoff.Project{Path: "/p", Name: "p"}
		b := sealed(t, alice, bob, rec, "")
		_, err = Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), Policy{}, now)
		if !errors.Is(err, ErrFuture) || !strings.Contains(err.Error(), at.Format(time.RFC3339)) {
			t.Fatalf("record of %s: %v", at, err)
		}
		if _, err := ImportLegacyAt(bob.store, []*handoff.Record{rec}, ConflictFail, now); !errors.Is(err, ErrFuture) {
			t.Fatalf("legacy record of %s: %v", at, err)
		}
	}
	if list, _ := bob.store.List(store.Filter{}); len(list) != 0 {
		t.Fatalf("stored %d records from the future", len(list))
	}
	rec, _ := handoff.New(now.Add(MaxClockSkew-time.Minute), "codex", "a fast clock")
	rec.Project = handoff.Project{Path: "/p", Name: "p"}
	if _, err := Import(bytes.NewReader(sealed(t, alice, bob, rec, "")), bob.store, bob.keys, bob.readOptions(t), Policy{}, now); err != nil {
		t.Fatalf("a clock less than a day ahead: %v", err)
	}
}

// A record id carries a time of its own (its first 48 bits), which the
// sender chooses apart from created_at: an id more than a day ahead is
// refused like a date, by import and legacy import alike, and the error
// names the id's time.
func TestImportRefusesAnIDFromTheFuture(t *testing.T) {
	alice, bob := newParty(t, "alice@test"), newParty(t, "bob@test")
	trustParty(t, bob, alice)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ahead, err := handoff.NewID(now.Add(MaxClockSkew + time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []handoff.ID{"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", ahead} {
		rec, err := handoff.New(now, "codex", "squatter by id")
		if err != nil {
			t.Fatal(err)
		}
		rec.ID = id
		rec.Project = handoff.Project{Path: "/p", Name: "p"}
		b := sealed(t, alice, bob, rec, "")
		_, err = Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), Policy{}, now)
		if !errors.Is(err, ErrFuture) || !strings.Contains(err.Error(), id.Time().Format(time.RFC3339)) || !strings.Contains(err.Error(), "its id") {
			t.Fatalf("id %s: %v", id, err)
		}
		if _, err := ImportLegacyAt(bob.store, []*handoff.Record{rec}, ConflictFail, now); !errors.Is(err, ErrFuture) {
			t.Fatalf("legacy record with id %s: %v", id, err)
		}
	}
	if list, _ := bob.store.List(store.Filter{}); len(list) != 0 {
		t.Fatalf("stored %d records with ids from the future", len(list))
	}
	near, _ := handoff.NewID(now.Add(MaxClockSkew - time.Minute))
	rec, _ := handoff.New(now, "codex", "an id less than a day ahead")
	rec.ID = near
	rec.Project = handoff.Project{Path: "/p", Name: "p"}
	if _, err := Import(bytes.NewReader(sealed(t, alice, bob, rec, "")), bob.store, bob.keys, bob.readOptions(t), Policy{}, now); err != nil {
		t.Fatalf("an id less than a day ahead: %v", err)
	}
}

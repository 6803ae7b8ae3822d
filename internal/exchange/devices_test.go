package exchange

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/store"
)

// The versions of one record a device sends as its session goes on arrive
// in any order, and more than once: ConflictNewer keeps the newest, once;
// an older version after it changes nothing, and a record from another
// signer under the same id is still a conflict.
func TestConflictNewerKeepsTheNewestVersion(t *testing.T) {
	laptop, desktop, other := newParty(t, "me@laptop"), newParty(t, "me@desktop"), newParty(t, "bob@test")
	trustParty(t, desktop, laptop)
	trustParty(t, desktop, other)
	v1 := newRecord(t, "first capture")
	at1 := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	v1.Session = &handoff.Session{Agent: "codex", ID: "s1", LastActivity: &at1}
	v2 := *v1
	at2 := at1.Add(30 * time.Minute)
	v2.Title, v2.Session = "second capture", &handoff.Session{Agent: "codex", ID: "s1", LastActivity: &at2}
	pol := Policy{OnConflict: ConflictNewer}
	imp := func(from party, rec *handoff.Record, bid string) (*ImportResult, error) {
		return Import(bytes.NewReader(sealed(t, from, desktop, rec, bid)), desktop.store, desktop.keys, desktop.readOptions(t), pol, time.Now())
	}
	steps := []struct {
		rec  *handoff.Record
		bid  string
		want Outcome
	}{
		{&v2, "22222222222222222222222222222222", Imported},
		{v1, "11111111111111111111111111111111", Skipped}, // older, arriving late
		{&v2, "22222222222222222222222222222222", Already},
		{&v2, "33333333333333333333333333333333", Already}, // the same version re-sent
	}
	for i, s := range steps {
		res, err := imp(laptop, s.rec, s.bid)
		if err != nil || res.Outcome != s.want {
			t.Fatalf("step %d: %v, %v; want %s", i, res, err, s.want)
		}
	}
	got, err := desktop.store.Get(v1.ID)
	if err != nil || got.Title != "second capture" {
		t.Fatalf("stored %v, %v; want the second capture", got, err)
	}
	// In the other order: the newer replaces.
	desktop2 := newParty(t, "me@desktop2")
	trustParty(t, desktop2, laptop)
	for i, rec := range []*handoff.Record{v1, &v2} {
		res, err := Import(bytes.NewReader(sealed(t, laptop, desktop2, rec, strings.Repeat(string(rune('4'+i)), 32))), desktop2.store, desktop2.keys, desktop2.readOptions(t), pol, time.Now())
		if want := []Outcome{Imported, Replaced}[i]; err != nil || res.Outcome != want {
			t.Fatalf("in order, step %d: %v, %v; want %s", i, res, err, want)
		}
	}
	newer := v2
	at3 := at2.Add(time.Minute)
	newer.Title, newer.Session = "another signer's", &handoff.Session{Agent: "codex", ID: "s1", LastActivity: &at3}
	if _, err := imp(other, &newer, "66666666666666666666666666666666"); !errors.Is(err, ErrConflict) {
		t.Fatalf("another signer's newer version: %v, want a conflict", err)
	}
}

// Policy.Signers takes only the keys it lists: a bundle verified by
// another trusted key, and one by an untrusted key, are refused.
func TestPolicySignersRefusesOthers(t *testing.T) {
	laptop := newParty(t, "me@laptop")
	fp := laptop.info.Fingerprint
	pol := Policy{Signers: []string{fp}}
	for _, c := range []struct {
		v    bundle.Verification
		want error
	}{
		{bundle.Verification{Status: bundle.StatusVerified, Fingerprint: fp}, nil},
		{bundle.Verification{Status: bundle.StatusVerified, Fingerprint: "SHA256:other"}, ErrRefusedNotListed},
		{bundle.Verification{Status: bundle.StatusUntrusted, Fingerprint: fp}, ErrRefusedNotListed},
		{bundle.Verification{Status: bundle.StatusUnsigned}, ErrRefusedNotListed},
	} {
		pol.AllowUntrusted, pol.AllowUnsigned = true, true
		if err := pol.Allows(c.v); !errors.Is(err, c.want) && !(c.want == nil && err == nil) {
			t.Errorf("%+v: %v, want %v", c.v, err, c.want)
		}
	}
}

// A stranger's bundle that names itself as one of my devices is not
// trusted on first use: only pairing makes a key "me".
func TestTOFURefusesADeviceName(t *testing.T) {
	mallory, me := newParty(t, "me@laptop"), newParty(t, "me@desktop")
	rec := newRecord(t, "trust me, I am you")
	_, err := Import(bytes.NewReader(sealed(t, mallory, me, rec, "77777777777777777777777777777777")), me.store, me.keys, me.readOptions(t), Policy{TOFU: true}, time.Now())
	if !errors.Is(err, people.ErrMine) {
		t.Fatalf("TOFU of a device name: %v", err)
	}
	ts, err := me.keys.TrustStore()
	if err != nil || len(ts.Entries()) != 0 {
		t.Fatalf("the trust store holds %v, %v", ts.Entries(), err)
	}
}

// Two versions of one record in one receive (ImportMany, one store
// batch), in either order: the newest is stored, once.
func TestConflictNewerInOneBatch(t *testing.T) {
	laptop := newParty(t, "me@laptop")
	v1 := newRecord(t, "first capture")
	at1 := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	v1.Session = &handoff.Session{Agent: "codex", ID: "s1", LastActivity: &at1}
	v2 := *v1
	at2 := at1.Add(30 * time.Minute)
	v2.Title, v2.Session = "second capture", &handoff.Session{Agent: "codex", ID: "s1", LastActivity: &at2}
	for _, order := range [][]*handoff.Record{{v1, &v2}, {&v2, v1}} {
		desktop := newParty(t, "me@desktop")
		trustParty(t, desktop, laptop)
		var inputs [][]byte
		for i, rec := range order {
			inputs = append(inputs, sealed(t, laptop, desktop, rec, strings.Repeat(string(rune('a'+i)), 32)))
		}
		res, err := ImportMany(ManyOptions{N: len(inputs),
			Open:  func(i int) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(inputs[i])), nil },
			Store: desktop.store, Keys: desktop.keys, Read: desktop.readOptions(t),
			Policy: Policy{OnConflict: ConflictNewer, Signers: []string{laptop.info.Fingerprint}}, Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if r.ReadErr != nil || r.Err != nil {
				t.Fatalf("order %q, bundle %d: %v, %v", order[0].Title, i, r.ReadErr, r.Err)
			}
		}
		got, err := desktop.store.Get(v1.ID)
		if err != nil || got.Title != "second capture" {
			t.Fatalf("order %q: stored %v, %v; want the second capture", order[0].Title, got, err)
		}
		if list, _ := desktop.store.List(store.Filter{}); len(list) != 1 {
			t.Fatalf("order %q: the store lists %d records", order[0].Title, len(list))
		}
	}
}

// Words added to a synced record by hand (capture --next, an agent's
// save) leave its session's activity as it was: the version whose bundle
// was made later replaces the copy; an older bundle, or another version
// made at the same time, is skipped. Before, any version with the same
// activity was skipped, and the words were lost.
func TestConflictNewerOrdersVersionsOfTheSameActivity(t *testing.T) {
	laptop, desktop := newParty(t, "me@laptop"), newParty(t, "me@desktop")
	trustParty(t, desktop, laptop)
	v1 := newRecord(t, "a capture")
	at := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	v1.Session = &handoff.Session{Agent: "codex", ID: "s1", LastActivity: &at}
	v2 := *v1
	v2.NextSteps = []string{"Write the migration by hand"}
	v3 := v2
	v3.NextSteps = []string{"Another version made at the same time"}
	t1 := at.Add(time.Minute)
	t2 := t1.Add(time.Minute)
	pol := Policy{OnConflict: ConflictNewer}
	for i, s := range []struct {
		rec  *handoff.Record
		bid  string
		made time.Time
		want Outcome
	}{
		{v1, "11111111111111111111111111111111", t1, Imported},
		{&v2, "22222222222222222222222222222222", t2, Replaced},
		{v1, "33333333333333333333333333333333", t1, Skipped},  // the older bundle, late
		{&v3, "44444444444444444444444444444444", t2, Skipped}, // the same time: the copy stays
		{&v2, "55555555555555555555555555555555", t2.Add(time.Second), Already},
	} {
		res, err := Import(bytes.NewReader(sealedAt(t, laptop, desktop, s.rec, s.bid, s.made)), desktop.store, desktop.keys, desktop.readOptions(t), pol, time.Now())
		if err != nil || res.Outcome != s.want {
			t.Fatalf("step %d: %v, %v; want %s", i, res, err, s.want)
		}
	}
	got, err := desktop.store.Get(v1.ID)
	if err != nil || len(got.NextSteps) != 1 || got.NextSteps[0] != "Write the migration by hand" {
		t.Fatalf("stored %v, %v; want the version with the words added", got, err)
	}
	if p := got.Source.Import; p.BundleCreatedAt == nil || !p.BundleCreatedAt.Equal(t2) {
		t.Fatalf("provenance %+v: want the bundle's time %s", p, t2)
	}
	// Exported again, the copy carries no time of its own bundle.
	var buf bytes.Buffer
	m, err := Export(context.Background(), &buf, desktop.store, got, ExportOptions{NoEncrypt: true, Producer: bundle.Producer{Name: "session-handoff", Version: "test"}})
	if err != nil || m.Record.Source.Import == nil || m.Record.Source.Import.BundleCreatedAt != nil {
		t.Fatalf("exported %+v, %v", m, err)
	}
}

package exchange

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
)

// sealed writes rec as a bundle signed by from and encrypted to to, under
// the bundle id given (a sender chooses it freely).
func sealed(t *testing.T, from, to party, rec *handoff.Record, bundleID string) []byte {
	t.Helper()
	return sealedAt(t, from, to, rec, bundleID, time.Now().UTC().Truncate(time.Millisecond))
}

// sealedAt is sealed with the bundle made at made.
func sealedAt(t *testing.T, from, to party, rec *handoff.Record, bundleID string, made time.Time) []byte {
	t.Helper()
	r, _, err := crypto.ParseRecipient(to.info.AgeRecipient)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := from.keys.SigningKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &bundle.Manifest{Format: bundle.Format, Version: bundle.Version, BundleID: bundleID,
		CreatedAt: made, Producer: bundle.Producer{Name: "session-handoff", Version: "test"}, Record: rec}
	var buf bytes.Buffer
	err = bundle.Write(&buf, m, nil, bundle.WriteOptions{SigningKeys: []*crypto.SigningKey{sk},
		Recipients: []crypto.RecipientInfo{{Recipient: r, Canonical: to.info.AgeRecipient}}})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func trustParty(t *testing.T, in, who party) {
	t.Helper()
	pub, err := crypto.ParsePublicKey(who.info.SigningKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := crypto.UpdateTrustStore(in.keys.TrustPath(), func(ts *crypto.TrustStore) error { return ts.Add(who.info.Name, pub) }); err != nil {
		t.Fatal(err)
	}
}

func newRecord(t *testing.T, title string) *handoff.Record {
	t.Helper()
	rec, err := handoff.New(time.Now(), "codex", title)
	if err != nil {
		t.Fatal(err)
	}
	rec.Project = handoff.Project{Path: "/p", Name: "p"}
	rec.Source = handoff.Source{Kind: handoff.SourceHand}
	return rec
}

// A bundle from another key reusing a stored record's id and even its
// bundle id never takes the record over, trusted or not; only an explicit
// --on-conflict replace does, and the refusal names both signers.
func TestImportNeverHandsARecordToAnotherSigner(t *testing.T) {
	alice, bob, mallory := newParty(t, "alice@test"), newParty(t, "bob@test"), newParty(t, "mallory@test")
	trustParty(t, bob, alice)
	trustParty(t, bob, mallory)
	rec := newRecord(t, "alice's plan")
	const bid = "0123456789abcdef0123456789abcdef"
	if _, err := Import(bytes.NewReader(sealed(t, alice, bob, rec, bid)), bob.store, bob.keys, bob.readOptions(t), Policy{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	forged := *rec
	forged.Title = "mallory's plan"
	for _, fr := range []*handoff.Record{&forged, rec} { // other content, then the very same content
		b := sealed(t, mallory, bob, fr, bid)
		for _, pol := range []Policy{{}, {AllowUntrusted: true, TOFU: true}} {
			_, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), pol, time.Now())
			if !errors.Is(err, ErrConflict) {
				t.Fatalf("another signer's record under a stored id: %v", err)
			}
			for _, want := range []string{"alice@test", "mallory@test", alice.info.Fingerprint, mallory.info.Fingerprint} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not name %q: %v", want, err)
				}
			}
		}
		got, err := bob.store.Get(rec.ID)
		if err != nil || got.Title != "alice's plan" || got.Source.Import.Signer != "alice@test" {
			t.Fatalf("record taken over: %+v %v", got, err)
		}
		pol := Policy{OnConflict: ConflictSkip}
		if res, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), pol, time.Now()); err != nil || res.Outcome != Skipped {
			t.Fatalf("skip: %+v %v", res, err)
		}
	}
	// Asked for exactly that, the replacement is made.
	b := sealed(t, mallory, bob, &forged, bid)
	res, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), Policy{OnConflict: ConflictReplace}, time.Now())
	if err != nil || res.Outcome != Replaced || res.Record.Source.Import.Signer != "mallory@test" {
		t.Fatalf("replace: %+v %v", res, err)
	}
}

// A record saved on this machine is not replaced by an imported one, even
// of the same content.
func TestImportDoesNotReplaceALocalRecord(t *testing.T) {
	alice, bob := newParty(t, "alice@test"), newParty(t, "bob@test")
	trustParty(t, bob, alice)
	rec := newRecord(t, "mine")
	if err := bob.store.Save(rec); err != nil {
		t.Fatal(err)
	}
	_, err := Import(bytes.NewReader(sealed(t, alice, bob, rec, "11111111111111111111111111111111")), bob.store, bob.keys, bob.readOptions(t), Policy{}, time.Now())
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "from this machine") || !strings.Contains(err.Error(), "alice@test") {
		t.Fatalf("local record: %v", err)
	}
	if got, _ := bob.store.Get(rec.ID); got.Source.Kind != handoff.SourceHand {
		t.Fatalf("local record replaced: %+v", got.Source)
	}
}

// The same record re-sent by the same signer in a new bundle (another
// bundle id: a second export, the inbox) is already imported, not a
// conflict; another record of that signer under the id still is.
func TestImportOfAResentRecordIsAlready(t *testing.T) {
	alice, bob := newParty(t, "alice@test"), newParty(t, "bob@test")
	trustParty(t, bob, alice)
	rec := newRecord(t, "plan")
	if _, err := Import(bytes.NewReader(sealed(t, alice, bob, rec, "22222222222222222222222222222222")), bob.store, bob.keys, bob.readOptions(t), Policy{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	again := sealed(t, alice, bob, rec, "33333333333333333333333333333333")
	res, err := bundle.Read(bytes.NewReader(again), withTrust(t, bob))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := Preview(res, bob.store, bob.keys, Policy{}, time.Now()); err != nil || out != Already {
		t.Fatalf("preview of a re-sent record: %v %v", out, err)
	}
	got, err := Import(bytes.NewReader(again), bob.store, bob.keys, bob.readOptions(t), Policy{}, time.Now())
	if err != nil || got.Outcome != Already {
		t.Fatalf("re-sent record: %+v %v", got, err)
	}
	if stored, _ := bob.store.Get(rec.ID); stored.Source.Import.BundleID != "22222222222222222222222222222222" {
		t.Fatalf("already imported record rewritten: %+v", stored.Source.Import)
	}
	changed := *rec
	changed.Summary = "more"
	b := sealed(t, alice, bob, &changed, "44444444444444444444444444444444")
	if _, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), Policy{}, time.Now()); !errors.Is(err, ErrConflict) {
		t.Fatalf("changed record: %v", err)
	}
	res, err = bundle.Read(bytes.NewReader(b), withTrust(t, bob))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Preview(res, bob.store, bob.keys, Policy{}, time.Now()); !errors.Is(err, ErrConflict) {
		t.Fatalf("preview of a changed record: %v", err)
	}
}

func withTrust(t *testing.T, p party) bundle.ReadOptions {
	t.Helper()
	o := p.readOptions(t)
	ts, err := p.keys.TrustStore()
	if err != nil {
		t.Fatal(err)
	}
	o.Trusted = ts
	return o
}

// TOFU never pins a name that looks like a trusted one.
func TestTOFURefusesALookAlikeSigner(t *testing.T) {
	alice, bob := newParty(t, "alice@test"), newParty(t, "bob@test")
	trustParty(t, bob, alice)
	for _, name := range []string{"Alice@test", "аlice@test", "a1ice@test"} {
		mallory := newParty(t, name)
		b := sealed(t, mallory, bob, newRecord(t, "hi"), "")
		_, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), Policy{TOFU: true}, time.Now())
		if !errors.Is(err, crypto.ErrLookAlike) {
			t.Fatalf("TOFU of %+q: %v", name, err)
		}
	}
	ts, _ := bob.keys.TrustStore()
	if len(ts.Keys()) != 1 {
		t.Fatalf("trust store has %d keys", len(ts.Keys()))
	}
}

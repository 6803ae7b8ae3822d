package exchange

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

type party struct {
	keys  Keyring
	store *store.Store
	info  *KeyInfo
}

func newParty(t testing.TB, name string) party {
	t.Helper()
	dir := t.TempDir()
	kr := Keyring{Dir: filepath.Join(dir, "config")}
	info, err := kr.Generate(name, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	return party{kr, s, info}
}

func (p party) readOptions(t *testing.T) bundle.ReadOptions {
	ids, recips, err := p.keys.Identities(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return bundle.ReadOptions{Identities: ids, Recipients: recips}
}

// export makes a bundle from alice to bob of a record that lies about its
// own source, with one attachment.
func export(t *testing.T, alice, bob party) []byte {
	t.Helper()
	rec, err := handoff.New(time.Now(), "codex", "hello")
	if err != nil {
		t.Fatal(err)
	}
	rec.Project = handoff.Project{Path: "/p", Name: "p"}
	// A forger's claim: the bundle says it was verified by someone.
	rec.Source = handoff.Source{Kind: handoff.SourceImport, Import: &handoff.Provenance{BundleID: "x", ImportedAt: time.Now().UTC(), Verification: "verified", Signer: "root@everything"}}
	if err := alice.store.Save(rec); err != nil {
		t.Fatal(err)
	}
	att := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(att, []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _, err := crypto.ParseRecipient(bob.info.AgeRecipient)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := alice.keys.SigningKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, err = Export(context.Background(), &buf, alice.store, rec, ExportOptions{SigningKey: sk, Attach: []string{att},
		Recipients: []crypto.RecipientInfo{{Recipient: r, Canonical: bob.info.AgeRecipient}},
		Producer:   bundle.Producer{Name: "session-handoff", Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestImportReplacesClaimedSourceAndIsIdempotent(t *testing.T) {
	alice, bob := newParty(t, "alice@test"), newParty(t, "bob@test")
	b := export(t, alice, bob)

	if _, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), Policy{}, time.Now()); !errors.Is(err, ErrRefusedUntrusted) {
		t.Fatalf("untrusted bundle: %v", err)
	}
	if list, _ := bob.store.List(store.Filter{}); len(list) != 0 {
		t.Fatal("refused import stored something")
	}
	res, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), Policy{AllowUntrusted: true}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got, err := bob.store.Get(res.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := got.Source.Import
	if p == nil || p.Verification != "untrusted" || p.Signer != "" || p.BundleID == "x" {
		t.Fatalf("stored provenance believes the bundle: %+v", p)
	}
	if len(got.Attachments) != 1 {
		t.Fatalf("attachments: %+v", got.Attachments)
	}
	rc, size, err := bob.store.OpenBlob(got.Attachments[0].SHA256)
	if err != nil || size != 8 {
		t.Fatalf("blob: %v %d", err, size)
	}
	rc.Close()
	again, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), Policy{AllowUntrusted: true}, time.Now())
	if err != nil || again.Outcome != Already {
		t.Fatalf("second import: %v %v", again, err)
	}
	// Trusting alice since: the same bundle now upgrades the provenance.
	alicePub, err := crypto.ParsePublicKey(alice.info.SigningKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := crypto.UpdateTrustStore(bob.keys.TrustPath(), func(ts *crypto.TrustStore) error { return ts.Add("alice@test", alicePub) }); err != nil {
		t.Fatal(err)
	}
	up, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), Policy{}, time.Now())
	if err != nil || up.Outcome != Replaced || up.Record.Source.Import.Verification != "verified" || up.Record.Source.Import.Signer != "alice@test" {
		t.Fatalf("upgrade: %+v %v", up, err)
	}
}

func TestImportConflictWithADifferentRecord(t *testing.T) {
	alice, bob := newParty(t, "alice@test"), newParty(t, "bob@test")
	b := export(t, alice, bob)
	list, _ := alice.store.List(store.Filter{})
	mine, _ := alice.store.Get(list[0].ID)
	mine.Title = "bob's own, same id"
	mine.Source = handoff.Source{Kind: handoff.SourceHand}
	if err := bob.store.Save(mine); err != nil {
		t.Fatal(err)
	}
	pol := Policy{AllowUntrusted: true}
	if _, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), pol, time.Now()); !errors.Is(err, ErrConflict) {
		t.Fatalf("conflict: %v", err)
	}
	pol.OnConflict = ConflictSkip
	if res, err := Import(bytes.NewReader(b), bob.store, bob.keys, bob.readOptions(t), pol, time.Now()); err != nil || res.Outcome != Skipped {
		t.Fatalf("skip: %v %v", res, err)
	}
	if got, _ := bob.store.Get(mine.ID); got.Title != "bob's own, same id" {
		t.Fatal("skip replaced the record")
	}
}

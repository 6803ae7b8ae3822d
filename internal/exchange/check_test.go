package exchange

import (
	"bytes"
	"testing"

	"github.com/session-handoff/session-handoff/crypto"
)

func TestCheckVerdicts(t *testing.T) {
	alice, bob, carol := newParty(t, "alice@test"), newParty(t, "bob@test"), newParty(t, "carol@test")
	b := export(t, alice, bob)

	_, rep, err := Check(bytes.NewReader(b), bob.keys, bob.readOptions(t))
	if err != nil || rep.Result != VerdictUntrusted || rep.Manifest == nil || !rep.ForMe {
		t.Fatalf("untrusted signer: %+v, %v", rep, err)
	}
	key, err := crypto.ParsePublicKey(alice.info.SigningKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := bob.keys.Trust("alice@test", key, true); err != nil {
		t.Fatal(err)
	}
	_, rep, err = Check(bytes.NewReader(b), bob.keys, bob.readOptions(t))
	if err != nil || rep.Result != VerdictVerified || rep.Verification == nil || rep.Verification.Principals[0] != "alice@test" {
		t.Fatalf("trusted signer: %+v, %v", rep, err)
	}
	// Carol holds no identity the bundle was encrypted to: not checked.
	_, rep, _ = Check(bytes.NewReader(b), carol.keys, carol.readOptions(t))
	if rep.Result != VerdictUnchecked || rep.Kind != "no_identity" || rep.Manifest != nil || rep.ForMe {
		t.Fatalf("not for carol: %+v", rep)
	}
	// A damaged bundle is invalid, with a reason.
	bad := append([]byte(nil), b...)
	bad[len(bad)/2] ^= 0xff
	_, rep, _ = Check(bytes.NewReader(bad), bob.keys, bob.readOptions(t))
	if rep.Result != VerdictInvalid || rep.Reason == "" || rep.Error == "" {
		t.Fatalf("damaged: %+v", rep)
	}
	_, rep, _ = Check(bytes.NewReader([]byte("not a bundle")), bob.keys, bob.readOptions(t))
	if rep.Result != VerdictInvalid || rep.Kind == "" {
		t.Fatalf("garbage: %+v", rep)
	}
}

// Check reports the name a bundle claims for its signer, and the keys the
// trust store binds that name to when none of them signed.
func TestCheckClaimedSigner(t *testing.T) {
	alice, bob, impostor := newParty(t, "alice@test"), newParty(t, "bob@test"), newParty(t, "alice@test")
	key, err := crypto.ParsePublicKey(alice.info.SigningKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := bob.keys.Trust("alice@test", key, true); err != nil {
		t.Fatal(err)
	}
	_, rep, err := Check(bytes.NewReader(export(t, alice, bob)), bob.keys, bob.readOptions(t))
	if err != nil || rep.ClaimedSigner != "alice@test" || len(rep.ClaimPinnedTo) != 0 {
		t.Fatalf("alice: claimed %q, pinned to %v, %v", rep.ClaimedSigner, rep.ClaimPinnedTo, err)
	}
	_, rep, err = Check(bytes.NewReader(export(t, impostor, bob)), bob.keys, bob.readOptions(t))
	if err != nil || rep.Result != VerdictUntrusted || rep.ClaimedSigner != "alice@test" ||
		len(rep.ClaimPinnedTo) != 1 || rep.ClaimPinnedTo[0] != key.Fingerprint() {
		t.Fatalf("impostor: %s, claimed %q, pinned to %v, %v", rep.Result, rep.ClaimedSigner, rep.ClaimPinnedTo, err)
	}
}

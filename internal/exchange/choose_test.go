package exchange

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/people"
)

func TestChooseEncryption(t *testing.T) {
	for _, c := range []struct {
		to, pass, none bool
		want           Encryption
		err            error
	}{
		{false, false, false, 0, ErrNoEncryption},
		{true, false, false, EncryptToRecipients, nil},
		{false, true, false, EncryptToPassphrase, nil},
		{false, false, true, EncryptNot, nil},
		{true, true, false, 0, ErrEncryptionConflict},
		{true, false, true, 0, ErrEncryptionConflict},
		{false, true, true, 0, ErrEncryptionConflict},
		{true, true, true, 0, ErrEncryptionConflict},
	} {
		got, err := ChooseEncryption(c.to, c.pass, c.none)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("ChooseEncryption(%v, %v, %v) = %v, %v; want %v, %v", c.to, c.pass, c.none, got, err, c.want, c.err)
		}
	}
}

func TestRedactAttachmentsAndParseConflict(t *testing.T) {
	if RedactAttachments(nil, false) || !RedactAttachments([]string{"f"}, false) || RedactAttachments([]string{"f"}, true) {
		t.Error("RedactAttachments: redacts only attachments, unless told not to")
	}
	for _, ok := range []string{"fail", "skip", "replace"} {
		if c, err := ParseConflict(ok); err != nil || string(c) != ok {
			t.Errorf("ParseConflict(%q) = %q, %v", ok, c, err)
		}
	}
	for _, bad := range []string{"", "Fail", "overwrite"} {
		if _, err := ParseConflict(bad); err == nil {
			t.Errorf("ParseConflict(%q) accepted", bad)
		}
	}
}

func TestTrustKeyAndUntrust(t *testing.T) {
	p := newParty(t, "alice@test")
	line := p.info.SigningKey // "ssh-ed25519 AAAA… alice@test"
	file := filepath.Join(t.TempDir(), "alice.pub")
	if err := os.WriteFile(file, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		arg, principal, want string
		bad                  bool
	}{
		{line, "", "alice@test", false},
		{file, "", "alice@test", false},
		{line, "alice@work", "alice@work", false},
		{line, "has space", "", true},
		{"ssh-ed25519 AAAAnotakey x", "", "", true},
		{filepath.Join(t.TempDir(), "missing.pub"), "", "", true},
	} {
		key, name, err := TrustKey(c.arg, c.principal)
		if c.bad != (err != nil) || name != c.want {
			t.Errorf("TrustKey(%q, %q) = %q, %v", c.arg, c.principal, name, err)
		}
		if err == nil && key.Fingerprint() != p.info.Fingerprint {
			t.Errorf("TrustKey(%q): fingerprint %s, want %s", c.arg, key.Fingerprint(), p.info.Fingerprint)
		}
	}
	key, _, err := crypto.ParsePublicKeyLine(line)
	if err != nil {
		t.Fatal(err)
	}
	var bad *BadPrincipalError
	if _, _, err := TrustKey(line, "has space"); !errors.As(err, &bad) {
		t.Errorf("a bad principal: %v, want a *BadPrincipalError", err)
	}
	noComment := "ssh-ed25519 " + string(bytes.Fields([]byte(line))[1])
	if _, _, err := TrustKey(noComment, ""); !errors.Is(err, ErrNoPrincipal) {
		t.Errorf("a line without a comment and no principal: %v", err)
	}

	kr := Keyring{Dir: t.TempDir()}
	if _, err := kr.Untrust("alice@test"); !errors.Is(err, ErrNotTrusted) {
		t.Errorf("Untrust on no trust store: %v", err)
	}
	if _, err := os.Stat(kr.TrustPath()); !errors.Is(err, os.ErrNotExist) {
		t.Error("Untrust created a trust store")
	}
	if err := kr.Trust("alice@test", key, true); err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Untrust("bob@test"); !errors.Is(err, ErrNotTrusted) {
		t.Errorf("Untrust of someone else: %v", err)
	}
	if n, err := kr.Untrust("alice@test"); n != 1 || err != nil {
		t.Errorf("Untrust(alice) = %d, %v", n, err)
	}
	ts, err := kr.TrustStore()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ts.Lookup(key); ok {
		t.Error("alice is still trusted")
	}
}

func TestKeyArg(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "k")
	if err := os.WriteFile(f, []byte("# comment\n\n  age1abc  \nage1second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("# only\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := KeyArg("AGE1xyz", "age1"); got != "AGE1xyz" || err != nil {
		t.Errorf("inline key: %q, %v", got, err)
	}
	if got, err := KeyArg(f, "age1", "ssh-"); got != "age1abc" || err != nil {
		t.Errorf("key file: %q, %v", got, err)
	}
	if _, err := KeyArg(empty, "age1"); err == nil {
		t.Error("a file with no key was accepted")
	}
	if _, err := KeyArg(filepath.Join(dir, "none"), "age1"); err == nil {
		t.Error("a missing file was accepted")
	}
}

func TestAddPersonAndTrustOf(t *testing.T) {
	carol := newParty(t, "carol@lab")
	kr := Keyring{Dir: t.TempDir()}
	p, err := people.New("carol@lab", carol.info.AgeRecipient, carol.info.SigningKey)
	if err != nil {
		t.Fatal(err)
	}
	noKey, err := people.New("dave@lab", carol.info.AgeRecipient, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kr.AddPerson(noKey, true); !errors.Is(err, ErrNoSigningKey) {
		t.Errorf("trusting a person without a signing key: %v", err)
	}
	if b, _ := people.Load(kr.Dir); len(b.List()) != 0 {
		t.Error("a refused add wrote the address book")
	}
	if added, err := kr.AddPerson(p, false); !added || err != nil {
		t.Fatalf("AddPerson = %v, %v", added, err)
	}
	ts, err := kr.TrustStore()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := TrustOf(ts, p); err != nil || got.Fingerprint != carol.info.Fingerprint || got.TrustedAs != "" {
		t.Errorf("before trust: %+v, %v", got, err)
	}
	if added, err := kr.AddPerson(p, true); added || err != nil {
		t.Fatalf("AddPerson again with trust = %v, %v", added, err)
	}
	if ts, err = kr.TrustStore(); err != nil {
		t.Fatal(err)
	}
	if got, _ := TrustOf(ts, p); got.TrustedAs != "carol@lab" {
		t.Errorf("after trust: %+v", got)
	}
	if got, err := TrustOf(ts, noKey); err != nil || got != (PersonTrust{}) {
		t.Errorf("no signing key: %+v, %v", got, err)
	}
	// Another key under a pinned name is refused.
	other := newParty(t, "carol@lab")
	p2, err := people.New("carol@lab", other.info.AgeRecipient, other.info.SigningKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kr.AddPerson(p2, true); err == nil {
		t.Error("a second key for carol was accepted")
	}
}

package devices

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/paths"
)

func newDevice(t *testing.T, name string) Device {
	t.Helper()
	sk, err := crypto.GenerateSigningKey(name)
	if err != nil {
		t.Fatal(err)
	}
	id, err := crypto.GenerateAgeIdentity()
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(name, id.Recipient().String(), sk.Public().AuthorizedLine("comment"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A pairing text reads back as the device it was made of, also when a
// paste wrapped it; one changed character anywhere is caught.
func TestPairingTextRoundTrip(t *testing.T) {
	d := newDevice(t, "laptop")
	text := d.PairingText()
	for _, in := range []string{text, "  " + text[:40] + "\n  " + text[40:] + "\n"} {
		got, err := ParsePairingText(in)
		if err != nil || got != d {
			t.Fatalf("ParsePairingText(%q) = %+v, %v", in, got, err)
		}
	}
	for i := len(PairingPrefix); i < len(text); i++ {
		c := byte('A')
		if text[i] == 'A' {
			c = 'B'
		}
		bad := text[:i] + string(c) + text[i+1:]
		if _, err := ParsePairingText(bad); !errors.Is(err, ErrPairingText) {
			t.Fatalf("a changed character at %d: %v", i, err)
		}
	}
	for _, bad := range []string{"", "session-handoff-pair:", "age1xyz", strings.Repeat("x", MaxPairingText+1), text[:len(text)-9]} {
		if _, err := ParsePairingText(bad); err == nil {
			t.Errorf("ParsePairingText(%.40q) accepted", bad)
		}
	}
}

// Both machines compute the same code, whichever pairs first; another key
// on either side changes it.
func TestCodeIsSymmetric(t *testing.T) {
	a, b, c := newDevice(t, "a"), newDevice(t, "b"), newDevice(t, "c")
	if Code(a, b) != Code(b, a) {
		t.Fatal("the code depends on the side")
	}
	if Code(a, b) == Code(a, c) {
		t.Fatal("another key, the same code")
	}
}

// Add lists the device and trusts its key as me@NAME; pairing again is a
// no-op, a name or keys taken differently are refused; Remove takes both
// the listing and the trust away.
func TestAddRemove(t *testing.T) {
	dir := t.TempDir()
	d, other := newDevice(t, "laptop"), newDevice(t, "phone")
	for i, want := range []bool{true, false} {
		added, err := Add(dir, d)
		if err != nil || added != want {
			t.Fatalf("Add %d: %v, %v", i, added, err)
		}
	}
	renamed := other
	renamed.Name = "laptop"
	if _, err := Add(dir, renamed); !errors.Is(err, ErrExists) {
		t.Fatalf("a name taken by other keys: %v", err)
	}
	again := d
	again.Name = "laptop2"
	if _, err := Add(dir, again); !errors.Is(err, ErrExists) {
		t.Fatalf("keys paired under another name: %v", err)
	}
	trusted := func() bool {
		ts, err := crypto.LoadTrustStore(paths.ConfigDir(dir).Trust())
		if err != nil {
			t.Fatal(err)
		}
		key, _ := crypto.ParsePublicKey(d.SigningKey)
		names, ok := ts.Lookup(key)
		return ok && len(names) == 1 && names[0] == "me@laptop"
	}
	if !trusted() {
		t.Fatal("the device's key is not trusted as me@laptop")
	}
	gone, err := Remove(dir, "laptop")
	if err != nil || gone != d {
		t.Fatalf("Remove: %+v, %v", gone, err)
	}
	if trusted() {
		t.Fatal("the removed device's key is still trusted")
	}
	l, err := Load(dir)
	if err != nil || len(l.All()) != 0 {
		t.Fatalf("after Remove: %v, %v", l, err)
	}
	if _, err := Remove(dir, "laptop"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("Remove twice: %v", err)
	}
}

// A damaged devices file is an error naming it and the line.
func TestLoadDamaged(t *testing.T) {
	dir := t.TempDir()
	path := paths.ConfigDir(dir).Devices()
	if err := os.WriteFile(path, []byte(header+"\nlaptop\tage1nope\tssh-ed25519 x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Fatalf("Load: %v", err)
	}
}

package devices

import (
	"errors"
	"math"
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
		got, added, err := Add(dir, d, false)
		if err != nil || added != want || got != d {
			t.Fatalf("Add %d: %+v, %v, %v", i, got, added, err)
		}
	}
	renamed := other
	renamed.Name = "laptop"
	if _, _, err := Add(dir, renamed, false); !errors.Is(err, ErrExists) {
		t.Fatalf("a name taken by other keys: %v", err)
	}
	// The same keys under the name their text gives now: the same device,
	// paired already (the name in a text is the other machine's
	// suggestion); under a name the user chose, refused.
	again := d
	again.Name = "laptop2"
	if got, added, err := Add(dir, again, false); err != nil || added || got != d {
		t.Fatalf("keys paired under another name, the text's: %+v, %v, %v", got, added, err)
	}
	if _, _, err := Add(dir, again, true); !errors.Is(err, ErrExists) {
		t.Fatalf("keys paired under another name, the user's: %v", err)
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

// The pairing code carries CodeBits bits: its alphabet and length give
// that many, every character of it varies with the keys, and CodeBits is
// enough that grinding two fake devices to one code (a collision of two
// searches, 2^(CodeBits/2) key pairs each) is out of reach at the rate
// SECURITY.md measures (80,000 key pairs in 18 s of one core).
func TestCodeSpace(t *testing.T) {
	if CodeBits < 100 {
		t.Fatalf("CodeBits = %d", CodeBits)
	}
	a := newDevice(t, "a")
	code := Code(a, newDevice(t, "b"))
	groups := strings.Split(code, "-")
	chars := strings.Join(groups, "")
	if bits := len(chars) * 5; len(codeAlphabet) != 32 || bits != CodeBits {
		t.Fatalf("%q: %d characters of an alphabet of %d: %d bits, want %d", code, len(chars), len(codeAlphabet), bits, CodeBits)
	}
	for _, g := range groups {
		if len(g) != 4 {
			t.Fatalf("%q: groups of 4 are what a person compares", code)
		}
	}
	seen := make([]map[rune]bool, len(chars))
	for i := range seen {
		seen[i] = map[rune]bool{}
	}
	for range 200 {
		c := strings.ReplaceAll(Code(a, newDevice(t, "x")), "-", "")
		for i, r := range c {
			if !strings.ContainsRune(codeAlphabet, r) {
				t.Fatalf("%q: %q is not of the alphabet", c, r)
			}
			seen[i][r] = true
		}
	}
	for i, s := range seen {
		if len(s) < 16 {
			t.Fatalf("character %d took %d values in 200 codes: it carries no 5 bits", i, len(s))
		}
	}
	const perSecond = 80000 / 18 // key pairs one core makes, measured
	years := math.Pow(2, CodeBits/2) / perSecond / (365 * 24 * 3600)
	if years < 1000 {
		t.Fatalf("a collision costs %.0f core-years", years)
	}
}

// A swapped text (the attacker's keys in place of the other machine's, on
// either side) gives each machine a different code.
func TestCodeSwappedText(t *testing.T) {
	a, b := newDevice(t, "laptop"), newDevice(t, "desktop")
	fa, fb := newDevice(t, "laptop"), newDevice(t, "desktop")
	if Code(a, fb) == Code(b, fa) {
		t.Fatal("a swapped pair of texts, the same code on both machines")
	}
	if Code(a, fb) == Code(a, b) || Code(fa, b) == Code(a, b) {
		t.Fatal("a swapped text, the code of the true pair")
	}
	evil := b
	evil.Recipient = fb.Recipient // the keys that read, swapped alone
	if Code(a, evil) == Code(a, b) {
		t.Fatal("a swapped recipient, the same code")
	}
}

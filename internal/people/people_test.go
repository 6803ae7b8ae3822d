package people

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

const (
	ageKey = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"
)

func sshKey(t *testing.T) string {
	t.Helper()
	k, err := crypto.GenerateSigningKey("bob@desk")
	if err != nil {
		t.Fatal(err)
	}
	return k.Public().AuthorizedLine("bob@desk")
}

func TestAddListRemoveRoundTrip(t *testing.T) {
	dir := t.TempDir()
	sk := sshKey(t)
	err := Update(dir, func(b *Book) error {
		p, err := New("bob@desk", strings.ToUpper(ageKey), sk)
		if err != nil {
			return err
		}
		_, err = b.Add(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := b.Lookup("bob@desk")
	if !ok || p.Recipient != ageKey || p.SigningKey != strings.TrimSuffix(sk, " bob@desk") {
		t.Fatalf("lookup: %+v", p)
	}
	byR, byS := b.Names()
	if byR[crypto.RecipientHash(ageKey)] != "bob@desk" || byS[p.SignerHash()] != "bob@desk" {
		t.Fatalf("names: %v %v", byR, byS)
	}
	r, label, err := b.Resolve("bob@desk")
	if err != nil || r.Canonical != ageKey || label != "bob@desk" {
		t.Fatalf("resolve name: %v %q %v", r.Canonical, label, err)
	}
	if r, _, err := b.Resolve(ageKey); err != nil || r.Canonical != ageKey {
		t.Fatalf("resolve raw key: %v", err)
	}
	if _, _, err := b.Resolve("carol@lab"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("unknown name: %v", err)
	}
	// Same entry again: no-op; other keys under the name: refused.
	err = Update(dir, func(b *Book) error {
		p, _ := New("bob@desk", ageKey, sk)
		if added, err := b.Add(p); added || err != nil {
			t.Errorf("re-add: %v %v", added, err)
		}
		p.SigningKey = ""
		_, err := b.Add(p)
		return err
	})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("add with other keys: %v", err)
	}
	if err := Update(dir, func(b *Book) error { return b.Remove("bob@desk") }); err != nil {
		t.Fatal(err)
	}
	if err := Update(dir, func(b *Book) error { return b.Remove("bob@desk") }); !errors.Is(err, ErrUnknown) {
		t.Fatalf("second rm: %v", err)
	}
	if b, _ := Load(dir); len(b.List()) != 0 {
		t.Fatal("not removed")
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	for _, tc := range []struct{ name, recipient, key, want string }{
		{"bob desk", ageKey, "", "whitespace"},
		{"bob,desk", ageKey, "", "contains ','"},
		{"#bob", ageKey, "", "starts with #"},
		{"", ageKey, "", "empty"},
		{"bob", "age1nope", "", "malformed"},
		{"bob", "AGE-SECRET-KEY-1XYZ", "", "secret key"},
		{"bob", ageKey, "ssh-ed25519 AAAAnope", "signing key of bob"},
	} {
		if _, err := New(tc.name, tc.recipient, tc.key); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %q, %q) = %v, want %q", tc.name, tc.recipient, tc.key, err, tc.want)
		}
	}
}

func TestLoadRefusesDamagedFile(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{"bob\t" + ageKey + "\n", ":1: not a session-handoff address book"},
		{header + "\nbob\n", ":2: want NAME"},
		{header + "\nbob\t" + ageKey + "\nbob\t" + ageKey + "\n", ":3: bob is listed twice"},
		{header + "\nbob\tage1bad\n", ":2: recipient of bob"},
	} {
		dir := t.TempDir()
		testsys.Check(t, os.WriteFile(Path(dir), []byte(tc.content), 0o600))
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.content, err, tc.want)
		}
	}
}

// Concurrent writers lose nothing.
func TestConcurrentAdds(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			err := Update(dir, func(b *Book) error {
				p, err := New("p"+string(rune('a'+i)), ageKey, "")
				if err != nil {
					return err
				}
				_, err = b.Add(p)
				return err
			})
			if err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if b, err := Load(dir); err != nil || len(b.List()) != 20 {
		t.Fatalf("%d people, %v", len(b.List()), err)
	}
}

// The address book keeps the format users' files hold, byte for byte.
func TestFileFormat(t *testing.T) {
	dir := t.TempDir()
	sk := sshKey(t)
	err := Update(dir, func(b *Book) error {
		for _, p := range [][3]string{{"zoe", ageKey, ""}, {"bob@desk", ageKey, sk}} {
			pp, err := New(p[0], p[1], p[2])
			if err != nil {
				return err
			}
			if _, err := b.Add(pp); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	want := "session-handoff-people 1\n# NAME<TAB>RECIPIENT[<TAB>SIGNING-KEY]; managed by 'session-handoff people'\n" +
		"bob@desk\t" + ageKey + "\t" + strings.TrimSuffix(sk, " bob@desk") + "\nzoe\t" + ageKey + "\n"
	if string(data) != want {
		t.Fatalf("address book:\n%q\nwant\n%q", data, want)
	}
}

func TestAddRefusesALookAlikeName(t *testing.T) {
	b := &Book{}
	p, err := New("alice@laptop", "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(p); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Alice@laptop", "аlice@laptop", "alice@1aptop"} {
		q := p
		q.Name = name
		if _, err := b.Add(q); !errors.Is(err, crypto.ErrLookAlike) {
			t.Errorf("Add(%+q): %v", name, err)
		}
	}
	if _, err := New("alice\u200b@laptop", p.Recipient, ""); err == nil {
		t.Error("New accepted an invisible character in a name")
	}
}

package crypto

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

func b64Of(t testing.TB, k *SigningKey) string {
	t.Helper()
	return strings.Fields(k.Public().String())[1]
}

func sampleAllowedSigners(t testing.TB) (string, []*SigningKey) {
	t.Helper()
	keys := []*SigningKey{seededKey(t, 1), seededKey(t, 2), seededKey(t, 3), seededKey(t, 4), seededKey(t, 5), seededKey(t, 6)}
	rsa := strings.TrimSpace(string(readTestdata(t, "rsa_plain.pub")))
	ecdsa := strings.TrimSpace(string(readTestdata(t, "ecdsa_plain.pub")))
	lines := []string{
		"# team keys",
		"",
		"alice@example.com,alice ssh-ed25519 " + b64Of(t, keys[0]) + " alice laptop",
		"bob@example.com " + rsa,
		`carol@example.com namespaces="git,session-handoff" ssh-ed25519 ` + b64Of(t, keys[1]),
		`dave@example.com namespaces="git" ssh-ed25519 ` + b64Of(t, keys[2]),
		"*@example.com cert-authority ssh-ed25519 " + b64Of(t, keys[3]),
		"   erin@example.com " + ecdsa,
		`frank@example.com valid-before="20000101Z" ssh-ed25519 ` + b64Of(t, keys[4]),
		`"grace hopper,grace" valid-after=20000101,no-touch-required ssh-ed25519 ` + b64Of(t, keys[5]) + "  # trailing",
		"  # indented comment",
	}
	return strings.Join(lines, "\n") + "\n", keys
}

func TestParseTrustStore(t *testing.T) {
	text, keys := sampleAllowedSigners(t)
	s, err := ParseTrustStore([]byte(text), "allowed_signers")
	if err != nil {
		t.Fatal(err)
	}
	entries := s.Entries()
	if len(entries) != 8 {
		t.Fatalf("%d entries, want 8", len(entries))
	}
	type want struct {
		principals []string
		keyType    string
		usable     bool
		line       int
	}
	wants := []want{
		{[]string{"alice@example.com", "alice"}, "ssh-ed25519", true, 3},
		{[]string{"bob@example.com"}, "ssh-rsa", false, 4},
		{[]string{"carol@example.com"}, "ssh-ed25519", true, 5},
		{[]string{"dave@example.com"}, "ssh-ed25519", false, 6},         // other namespace
		{[]string{"*@example.com"}, "ssh-ed25519", false, 7},            // cert-authority
		{[]string{"erin@example.com"}, "ecdsa-sha2-nistp256", false, 8}, // not ed25519
		{[]string{"frank@example.com"}, "ssh-ed25519", false, 9},        // expired
		{[]string{"grace hopper", "grace"}, "ssh-ed25519", false, 10},   // unknown option
	}
	for i, w := range wants {
		e := entries[i]
		if !slices.Equal(e.Principals, w.principals) || e.KeyType != w.keyType || e.Usable != w.usable || e.Line != w.line {
			t.Errorf("entry %d = %+v, want %+v", i, e, w)
		}
		if !strings.HasPrefix(e.Fingerprint, "SHA256:") {
			t.Errorf("entry %d has no fingerprint", i)
		}
	}
	if entries[0].Comment != "alice laptop" || entries[0].Fingerprint != keys[0].Public().Fingerprint() {
		t.Errorf("entry 0 = %+v", entries[0])
	}
	if got, want := entries[1].Fingerprint, "SHA256:VL/keEeG4cnhJAgqbVF8RniDw+IdoiVLg9cN3djQpH4"; got != want {
		t.Errorf("rsa fingerprint = %s, want %s (ssh-keygen -lf)", got, want)
	}
	if got := s.Keys(); len(got) != 2 || got[0] != keys[0].Public() || got[1] != keys[1].Public() {
		t.Errorf("Keys = %v", got)
	}
	if p, ok := s.Lookup(keys[0].Public()); !ok || !slices.Equal(p, []string{"alice@example.com", "alice"}) {
		t.Errorf("Lookup(alice) = %v, %v", p, ok)
	}
	for _, k := range keys[2:] {
		if p, ok := s.Lookup(k.Public()); ok {
			t.Errorf("Lookup of an unusable key = %v", p)
		}
	}
	// The store writes back exactly what it read.
	if got := string(s.Marshal()); got != text {
		t.Errorf("Marshal changed the file:\n%s\nwant:\n%s", got, text)
	}
}

func TestTrustStoreValidity(t *testing.T) {
	k := seededKey(t, 1)
	text := `a valid-after="20300101Z",valid-before=20300201Z ssh-ed25519 ` + b64Of(t, k) + "\n"
	s, err := ParseTrustStore([]byte(text), "f")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		now  string
		want bool
	}{{"2029-12-31T23:59:59Z", false}, {"2030-01-01T00:00:00Z", true}, {"2030-01-31T00:00:00Z", true}, {"2030-02-01T00:00:00Z", false}} {
		now, _ := time.Parse(time.RFC3339, tc.now)
		s.now = func() time.Time { return now }
		if _, ok := s.Lookup(k.Public()); ok != tc.want {
			t.Errorf("at %s: usable = %v, want %v", tc.now, ok, tc.want)
		}
	}
}

func TestParseTrustStoreErrors(t *testing.T) {
	k := seededKey(t, 1)
	b64 := b64Of(t, k)
	rsaB64 := strings.Fields(string(readTestdata(t, "rsa_plain.pub")))[1]
	tests := []struct {
		line, want string
	}{
		{"alice ssh-dss AAAAB3NzaC1kc3MAAACBAP", "allowed_signers:3: unsupported key type ssh-dss"},
		{"alice ssh-ed448 AAAA", "allowed_signers:3: unsupported key type ssh-ed448"},
		{"alice", "allowed_signers:3: missing key"},
		{"alice ssh-ed25519", "allowed_signers:3: missing ssh-ed25519 key data"},
		{"alice ssh-ed25519 !!!", "allowed_signers:3: public key is not valid base64"},
		{"alice ssh-ed25519 " + rsaB64, `allowed_signers:3: public key labelled ssh-ed25519 contains a "ssh-rsa" key`},
		{"alice ssh-rsa " + b64, `allowed_signers:3: key labelled ssh-rsa contains a "ssh-ed25519" key`},
		{`alice namespaces="git ssh-ed25519 ` + b64, "allowed_signers:3: unterminated quote"},
		{`alice namespaces ssh-ed25519 ` + b64, "allowed_signers:3: option namespaces needs a value"},
		{`alice valid-after=2024 ssh-ed25519 ` + b64, "allowed_signers:3: option valid-after: invalid time \"2024\""},
		{`alice valid-after=20241399 ssh-ed25519 ` + b64, "allowed_signers:3: option valid-after: invalid time \"20241399\""},
		{`alice a,,b ssh-ed25519 ` + b64, "allowed_signers:3: empty option"},
		{`alice opts notakey ` + b64, `allowed_signers:3: invalid key type "notakey"`},
		{"ssh-ed25519 " + b64 + " alice", "allowed_signers:3: principals: line starts with key type ssh-ed25519: principals are missing"},
		{"alice cert-authority", "allowed_signers:3: missing key after options"},
		{"alice ssh-ed25519 " + b64 + "\x00", "allowed_signers:3: line contains a NUL byte"},
		{`"alice ssh-ed25519 ` + b64, "allowed_signers:3: principals: unterminated quote"},
		{`"alice"x ssh-ed25519 ` + b64, "allowed_signers:3: principals: text after closing quote"},
		{`al"ice ssh-ed25519 ` + b64, "allowed_signers:3: principals: unexpected quote"},
	}
	for _, tt := range tests {
		in := "# c\n\n" + tt.line + "\nbob ssh-ed25519 " + b64 + "\n"
		_, err := ParseTrustStore([]byte(in), "allowed_signers")
		if err == nil || err.Error() != tt.want {
			t.Errorf("line %.50q: err = %v\nwant %s", tt.line, err, tt.want)
		}
	}
	_, err := ParseTrustStore([]byte("alice ssh-dss AAAA\n"), "x")
	if !errors.Is(err, ErrUnsupportedKeyType) {
		t.Errorf("ssh-dss error does not wrap ErrUnsupportedKeyType: %v", err)
	}
}

func TestTrustStoreLimits(t *testing.T) {
	line := "a ssh-ed25519 " + b64Of(t, seededKey(t, 1)) + "\n"
	ok := strings.Repeat(line, MaxTrustEntries)
	if len(ok) > MaxTrustStoreSize {
		t.Fatalf("test line too long: %d", len(line))
	}
	if _, err := ParseTrustStore([]byte(ok), "f"); err != nil {
		t.Errorf("%d entries: %v", MaxTrustEntries, err)
	}
	_, err := ParseTrustStore([]byte(ok+line), "f")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("f:%d: more than", MaxTrustEntries+1)) {
		t.Errorf("too many entries: %v", err)
	}
	big := strings.Repeat("#", MaxTrustStoreSize+1)
	if _, err := ParseTrustStore([]byte(big), "f"); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("oversize: %v", err)
	}
	path := filepath.Join(t.TempDir(), "allowed_signers")
	testsys.Check(t, os.WriteFile(path, []byte(big), 0o644))
	if _, err := LoadTrustStore(path); !errors.Is(err, safefile.ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("oversize file: %v", err)
	}
}

func TestTrustStoreEdit(t *testing.T) {
	text, keys := sampleAllowedSigners(t)
	path := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadTrustStore(path)
	if err != nil {
		t.Fatal(err)
	}
	alice, newKey := keys[0].Public(), seededKey(t, 42).Public()

	// Adding an existing binding is a no-op.
	if err := s.Add("alice", alice); err != nil || s.Modified() {
		t.Fatalf("re-adding alice: %v, modified %v", err, s.Modified())
	}
	if err := s.Add("zed@example.com", newKey); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("zed@example.com", newKey); err != nil {
		t.Fatal(err)
	}
	if p, ok := s.Lookup(newKey); !ok || !slices.Equal(p, []string{"zed@example.com"}) {
		t.Errorf("Lookup(zed) = %v %v", p, ok)
	}
	// Add binds a principal to a second key on request; Pin refuses.
	if err := s.Pin("alice", newKey); !errors.Is(err, ErrPinnedToOtherKey) || !strings.Contains(err.Error(), alice.Fingerprint()) {
		t.Errorf("Pin to another key: %v", err)
	}
	if err := s.Pin("bob@example.com", newKey); !errors.Is(err, ErrPinnedToOtherKey) {
		t.Errorf("Pin over an rsa binding: %v", err)
	}
	if err := s.Pin("alice", alice); err != nil {
		t.Errorf("Pin to the same key: %v", err)
	}
	if err := s.Pin("yan", newKey); err != nil {
		t.Errorf("Pin of a new principal: %v", err)
	}
	if err := s.Add("alice", newKey); err != nil {
		t.Errorf("explicit Add of a second key: %v", err)
	}
	for _, bad := range []string{"", "a b", "a,b", `a"b`, "a'b", "#a", "a\x00", "a*", strings.Repeat("x", MaxPrincipalSize+1), "\xff"} {
		if err := s.Add(bad, newKey); err == nil {
			t.Errorf("Add(%q) accepted the principal", bad)
		}
	}
	if err := s.Add("ok", PublicKey{}); err == nil {
		t.Error("Add of the zero key succeeded")
	}

	// Removing one of two principals rewrites the line; removing by
	// fingerprint drops whole lines.
	if n, err := s.Remove("alice@example.com"); err != nil || n != 1 {
		t.Errorf("Remove(alice@example.com) = %d, %v", n, err)
	}
	if n, err := s.Remove(newKey.Fingerprint()); err != nil || n != 3 {
		t.Errorf("Remove(fingerprint) = %d, %v", n, err)
	}
	if n, err := s.Remove("nobody"); err != nil || n != 0 {
		t.Errorf("Remove(nobody) = %d, %v", n, err)
	}
	if _, err := s.Remove(" "); err == nil {
		t.Error("Remove of an empty name succeeded")
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	got, _ := os.ReadFile(path)
	want := strings.Replace(text, "alice@example.com,alice ssh-ed25519 "+b64Of(t, keys[0])+" alice laptop",
		"alice ssh-ed25519 "+b64Of(t, keys[0])+" alice laptop", 1)
	if string(got) != want {
		t.Errorf("saved:\n%s\nwant:\n%s", got, want)
	}
	// The saved file parses back to the same entries.
	s2, err := LoadTrustStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s2.Entries()) != 8 {
		t.Errorf("reloaded %d entries", len(s2.Entries()))
	}
}

func TestTrustStoreAddFormat(t *testing.T) {
	s := NewTrustStore("")
	k := fixedKey(t)
	if err := s.Add("alice@example.com", k.Public()); err != nil {
		t.Fatal(err)
	}
	want := "alice@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4\n"
	if got := string(s.Marshal()); got != want {
		t.Errorf("Marshal = %q, want %q", got, want)
	}
	if err := s.Save(); err == nil {
		t.Error("Save without a path succeeded")
	}
	// Removing a quoted principal keeps the quoting of the rest.
	s, err := ParseTrustStore([]byte(`"a b,c" ssh-ed25519 `+b64Of(t, k)+"\n"), "f")
	if err != nil {
		t.Fatal(err)
	}
	s.Remove("c")
	if got := string(s.Marshal()); got != `"a b" ssh-ed25519 `+b64Of(t, k)+"\n" {
		t.Errorf("Marshal = %q", got)
	}
}

func TestLoadTrustStoreMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "allowed_signers")
	s, err := LoadTrustStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries()) != 0 || s.Path() != path {
		t.Errorf("missing file: %+v", s)
	}
}

func TestUpdateTrustStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config", "allowed_signers")
	const writers = 16
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- UpdateTrustStore(path, func(s *TrustStore) error {
				return s.Add(fmt.Sprintf("user%d", i), seededKey(t, byte(i+1)).Public())
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := LoadTrustStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Entries()); n != writers {
		t.Errorf("%d entries after %d concurrent updates", n, writers)
	}
	before, _ := os.ReadFile(path)
	boom := errors.New("boom")
	err = UpdateTrustStore(path, func(s *TrustStore) error {
		s.Remove("user1")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("fn error not returned: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a failed update wrote the file")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("stat: %v %v", fi, err)
	}
	if _, err := os.Stat(path + ".lock"); errors.Is(err, fs.ErrNotExist) {
		t.Error("no lock file was used")
	}
}

func TestMatchPatternList(t *testing.T) {
	tests := []struct {
		list string
		want bool
	}{
		{"session-handoff", true}, {"git,session-handoff", true}, {"git", false}, {"*", true},
		{"session-*", true}, {"session-handof?", true}, {"*,!session-handoff", false}, {"!git", false},
		{"", false}, {"sess*off", true}, {"*x*", false},
	}
	for _, tt := range tests {
		if got := matchPatternList(TrustNamespace, tt.list); got != tt.want {
			t.Errorf("matchPatternList(%q) = %v, want %v", tt.list, got, tt.want)
		}
	}
}

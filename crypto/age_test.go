package crypto

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"filippo.io/age"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

func encrypt(t testing.TB, msg string, rs ...age.Recipient) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := age.Encrypt(&buf, rs...)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, msg)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decrypt(ct []byte, ids ...age.Identity) (string, error) {
	r, err := age.Decrypt(bytes.NewReader(ct), ids...)
	if err != nil {
		return "", err
	}
	b, err := io.ReadAll(r)
	return string(b), err
}

func TestRecipientHash(t *testing.T) {
	// sha256("abc"), FIPS 180-2 test vector.
	if got, want := RecipientHash("abc"), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("RecipientHash = %s, want %s", got, want)
	}
}

func TestParseRecipient(t *testing.T) {
	x, err := GenerateAgeIdentity()
	if err != nil {
		t.Fatal(err)
	}
	pq, err := age.GenerateHybridIdentity()
	if err != nil {
		t.Fatal(err)
	}
	xs := x.Recipient().String()
	edLine := strings.TrimSpace(string(readTestdata(t, "ed25519_plain.pub")))
	edCanon := strings.Join(strings.Fields(edLine)[:2], " ")
	rsaLine := strings.TrimSpace(string(readTestdata(t, "rsa_plain.pub")))
	rsaCanon := strings.Join(strings.Fields(rsaLine)[:2], " ")
	tests := []struct {
		in, canonical, errMsg string
	}{
		{in: xs, canonical: xs},
		{in: "  " + strings.ToUpper(xs) + "\n", canonical: xs},
		{in: pq.Recipient().String(), canonical: pq.Recipient().String()},
		{in: edLine, canonical: edCanon},
		{in: edCanon, canonical: edCanon},
		{in: rsaLine, canonical: rsaCanon},
		{in: "", errMsg: "empty recipient"},
		{in: x.String(), errMsg: "secret key"},
		{in: otherLast(xs, "q", "p"), errMsg: "malformed"},
		{in: "age1yubikey1qgqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", errMsg: "malformed or unsupported"},
		{in: strings.TrimSpace(string(readTestdata(t, "ecdsa_plain.pub"))), errMsg: "unsupported key type"},
		{in: "ssh-ed25519 ###", errMsg: "base64"},
		{in: "ssh-ed25519 " + strings.Fields(rsaLine)[1], errMsg: "contains a \"ssh-rsa\" key"},
		{in: string(readTestdata(t, "ed25519_plain")), errMsg: "private key"},
		{in: "hello world", errMsg: "unsupported key type"},
		{in: "ssh-rsa " + strings.Repeat("A", MaxRecipientSize), errMsg: "longer than"},
	}
	for _, tt := range tests {
		r, canonical, err := ParseRecipient(tt.in)
		if tt.errMsg != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errMsg) {
				t.Errorf("ParseRecipient(%.40q): err = %v, want %q", tt.in, err, tt.errMsg)
			}
			if err != nil && strings.Contains(err.Error(), "AGE-SECRET-KEY") {
				t.Errorf("error leaks a secret key: %v", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRecipient(%.40q): %v", tt.in, err)
			continue
		}
		if canonical != tt.canonical || r == nil {
			t.Errorf("ParseRecipient(%.40q) canonical = %q, want %q", tt.in, canonical, tt.canonical)
		}
	}
}

func TestParseRecipientsFile(t *testing.T) {
	x, _ := GenerateAgeIdentity()
	xs := x.Recipient().String()
	ed := strings.TrimSpace(string(readTestdata(t, "ed25519_plain.pub")))
	data := "# team\n\n" + xs + "\n  " + ed + "  \r\n" + strings.ToUpper(xs) + "\n# end\n"
	got, err := ParseRecipientsFile([]byte(data), "recipients.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Canonical != xs || !strings.HasPrefix(got[1].Canonical, "ssh-ed25519 ") {
		t.Errorf("got %+v", got)
	}
	_, err = ParseRecipientsFile([]byte(xs+"\n\nbogus\n"), "recipients.txt")
	if err == nil || !strings.HasPrefix(err.Error(), "recipients.txt:3: ") {
		t.Errorf("bad line: %v", err)
	}
	if _, err := ParseRecipientsFile([]byte("# nothing\n"), "r"); err == nil {
		t.Error("empty file accepted")
	}
	if _, err := ParseRecipientsFile(bytes.Repeat([]byte("#"), MaxRecipientsFileSize+1), "r"); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("oversize: %v", err)
	}
	var many strings.Builder
	for range MaxRecipients + 1 {
		id, _ := GenerateAgeIdentity()
		fmt.Fprintln(&many, id.Recipient())
	}
	_, err = ParseRecipientsFile([]byte(many.String()), "r")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("r:%d: more than %d recipients", MaxRecipients+1, MaxRecipients)) {
		t.Errorf("too many: %v", err)
	}
}

func TestAgeIdentityFile(t *testing.T) {
	id, err := GenerateAgeIdentity()
	if err != nil {
		t.Fatal(err)
	}
	data := MarshalAgeIdentity(id)
	re := regexp.MustCompile(`^# created: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)\n# public key: age1[0-9a-z]{58}\nAGE-SECRET-KEY-1[0-9A-Z]{58}\n$`)
	if !re.Match(data) {
		t.Errorf("identity file:\n%s", data)
	}
	path := filepath.Join(t.TempDir(), "key.txt")
	if err := WriteAgeIdentity(path, id, false); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if err := WriteAgeIdentity(path, id, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("overwrite without flag: %v", err)
	}
	if err := WriteAgeIdentity(path, id, true); err != nil {
		t.Errorf("overwrite with flag: %v", err)
	}
	ids, canon, err := ParseIdentities(data, "key.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || len(canon) != 1 || canon[0] != id.Recipient().String() {
		t.Fatalf("ParseIdentities = %v %v", ids, canon)
	}
	ct := encrypt(t, "hi", id.Recipient())
	if got, err := decrypt(ct, ids...); err != nil || got != "hi" {
		t.Errorf("decrypt = %q, %v", got, err)
	}
}

// Each identity kind decrypts what its recipient encrypts, and reports the
// canonical recipient string that ParseRecipient gives for its public key.
func TestIdentityKinds(t *testing.T) {
	tests := []struct {
		key, pub, pass string
	}{
		{key: "ed25519_plain", pub: "ed25519_plain.pub"},
		{key: "rsa_plain", pub: "rsa_plain.pub"},
		{key: "ed25519_encrypted", pub: "ed25519_encrypted.pub", pass: "correct horse"},
		{key: "rsa_encrypted", pub: "rsa_encrypted.pub", pass: "rsa pass"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			r, canonical, err := ParseRecipient(string(readTestdata(t, tt.pub)))
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			ids, canon, err := ParseIdentities(readTestdata(t, tt.key), tt.key, passphraseFunc(tt.pass, &calls))
			if err != nil {
				t.Fatal(err)
			}
			if len(canon) != 1 || canon[0] != canonical {
				t.Errorf("canonical = %v, want %q", canon, canonical)
			}
			if calls != 0 {
				t.Error("passphrase asked while parsing")
			}
			// A file for someone else never asks for the passphrase.
			other, _ := GenerateAgeIdentity()
			if _, err := decrypt(encrypt(t, "x", other.Recipient()), ids...); err == nil || calls != 0 {
				t.Errorf("foreign file: err = %v, passphrase asked %d times", err, calls)
			}
			ct := encrypt(t, "secret message", r)
			if got, err := decrypt(ct, ids...); err != nil || got != "secret message" {
				t.Fatalf("decrypt = %q, %v", got, err)
			}
			if tt.pass == "" {
				return
			}
			if calls != 1 {
				t.Errorf("passphrase asked %d times, want 1", calls)
			}
			if tt.key != "ed25519_encrypted" {
				return // the wrong-passphrase path is the same for every key type
			}
			ids, _, err = ParseIdentities(readTestdata(t, tt.key), tt.key, passphraseFunc("wrong", &calls))
			if err != nil {
				t.Fatal(err)
			}
			_, err = decrypt(ct, ids...)
			if !errors.Is(err, ErrWrongPassphrase) || strings.Contains(err.Error(), "wrong\"") {
				t.Errorf("wrong passphrase: %v", err)
			}
			if _, _, err := ParseIdentities(readTestdata(t, tt.key), tt.key, nil); !errors.Is(err, ErrPassphraseRequired) {
				t.Errorf("nil passphrase func: %v", err)
			}
		})
	}
}

func TestParseIdentitiesErrors(t *testing.T) {
	x, _ := GenerateAgeIdentity()
	secret := x.String()
	tests := []struct {
		in, want string
	}{
		{"", "ids: no identities"},
		{"# only a comment\n", "ids: no identities"},
		{secret + "\n" + otherLast(secret, "Q", "P") + "\n", "ids:2: malformed age secret key"},
		{"AGE-SECRET-KEY-PQ-1QQQQ\n", "ids:1: malformed age post-quantum secret key"},
		{"AGE-PLUGIN-YUBIKEY-1QQQQ\n", "ids:1: age plugin identities are not supported"},
		{x.Recipient().String() + "\n", "ids:1: not an age secret key or an OpenSSH private key"},
		{string(readTestdata(t, "ecdsa_plain")), "ids: unsupported key type for ssh identity ecdsa"},
		{"-----BEGIN AGE ENCRYPTED FILE-----\nxx\n", "ids: passphrase-encrypted age identity files are not supported"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n", "ids: parse ssh identity"},
	}
	for _, tt := range tests {
		_, _, err := ParseIdentities([]byte(tt.in), "ids", nil)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("ParseIdentities(%.30q): err = %v, want %q", tt.in, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), secret[16:30]) {
			t.Errorf("error leaks key material: %v", err)
		}
	}
	if _, _, err := ParseIdentities(bytes.Repeat([]byte("#"), MaxIdentitiesFileSize+1), "ids", nil); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("oversize: %v", err)
	}
}

func TestScrypt(t *testing.T) {
	if got := scryptWorkFactor.Load(); got != defaultScryptWorkFactor {
		t.Fatalf("default work factor = %d, want %d", got, defaultScryptWorkFactor)
	}
	restore := SetScryptWorkFactorForTesting(4)
	defer restore()

	pass := []byte("hunter2 hunter2")
	r, err := NewScryptRecipient(pass)
	if err != nil {
		t.Fatal(err)
	}
	ct := encrypt(t, "scrypt msg", r)
	if !bytes.Contains(ct, []byte("-> scrypt ")) || !bytes.Contains(ct, []byte(" 4\n")) {
		t.Fatalf("header does not show work factor 4:\n%.120q", ct)
	}
	id, err := NewScryptIdentity(pass, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := decrypt(ct, id); err != nil || got != "scrypt msg" {
		t.Fatalf("decrypt = %q, %v", got, err)
	}

	wrong, _ := NewScryptIdentity([]byte("hunter3"), 0)
	_, err = decrypt(ct, wrong)
	if !errors.Is(err, ErrWrongPassphrase) || !errors.Is(err, age.ErrIncorrectIdentity) {
		t.Errorf("wrong passphrase: %v", err)
	}
	if strings.Contains(err.Error(), "hunter") {
		t.Errorf("error leaks the passphrase: %v", err)
	}
	// Several passphrases can be tried in one call.
	if got, err := decrypt(ct, wrong, id); err != nil || got != "scrypt msg" {
		t.Errorf("second passphrase: %q, %v", got, err)
	}

	// The cap is checked before any scrypt work.
	SetScryptWorkFactorForTesting(10)
	r10, _ := NewScryptRecipient(pass)
	ct10 := encrypt(t, "x", r10)
	capped, _ := NewScryptIdentity(pass, 8)
	if _, err := decrypt(ct10, capped); !errors.Is(err, ErrWorkFactorTooHigh) || errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("over the cap: %v", err)
	}
	hostile := []*age.Stanza{{Type: "scrypt", Args: []string{"AAAAAAAAAAAAAAAAAAAAAA", "99999999999999999999999"}}}
	if _, err := capped.Unwrap(hostile); !errors.Is(err, ErrWorkFactorTooHigh) {
		t.Errorf("huge work factor: %v", err)
	}

	// A file that is not passphrase-encrypted is not a wrong passphrase.
	x, _ := GenerateAgeIdentity()
	if _, err := decrypt(encrypt(t, "x", x.Recipient()), id); err == nil || errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("X25519 file with a passphrase: %v", err)
	}

	for _, tc := range []struct {
		pass []byte
		max  int
	}{{nil, 0}, {pass, 31}} {
		if _, err := NewScryptIdentity(tc.pass, tc.max); err == nil {
			t.Errorf("NewScryptIdentity(%v, %d) succeeded", tc.pass != nil, tc.max)
		}
	}
	if _, err := NewScryptRecipient(nil); err == nil {
		t.Error("empty passphrase recipient")
	}
}

func TestSetScryptWorkFactorForTestingRestores(t *testing.T) {
	before := scryptWorkFactor.Load()
	restore := SetScryptWorkFactorForTesting(3)
	if scryptWorkFactor.Load() != 3 {
		t.Error("not set")
	}
	restore()
	if scryptWorkFactor.Load() != before {
		t.Error("not restored")
	}
	defer func() {
		if recover() == nil {
			t.Error("out-of-range work factor accepted")
		}
	}()
	SetScryptWorkFactorForTesting(0)
}

// otherLast replaces the last character of a Bech32 string with one that
// differs from it (a when it is not there already, else b), so that the
// checksum surely fails: replacing it with a fixed letter left a valid
// key one time in 32.
func otherLast(s, a, b string) string {
	if strings.HasSuffix(s, a) {
		return s[:len(s)-1] + b
	}
	return s[:len(s)-1] + a
}

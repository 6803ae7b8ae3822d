package crypto

import (
	"bytes"
	"crypto/ed25519"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/testsys"
	"golang.org/x/crypto/ssh"
)

// fixedSeed is 00 01 02 … 1f, the seed of RFC 8032-style test vectors.
func fixedSeed() []byte {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	return seed
}

func fixedKey(t testing.TB) *SigningKey {
	t.Helper()
	k, err := NewSigningKeyFromSeed(fixedSeed(), "fixed@test")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// seededKey returns a distinct deterministic key for each n.
func seededKey(t testing.TB, n byte) *SigningKey {
	t.Helper()
	seed := bytes.Repeat([]byte{n}, ed25519.SeedSize)
	k, err := NewSigningKeyFromSeed(seed, fmt.Sprintf("key%d@test", n))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func passphraseFunc(pass string, calls *int) func() ([]byte, error) {
	return func() ([]byte, error) {
		*calls++
		return []byte(pass), nil
	}
}

// The expected values were computed once with `ssh-keygen -lf` (OpenSSH
// 9.2p1) on the key lines below.
func TestFingerprintMatchesSSHKeygen(t *testing.T) {
	k := fixedKey(t)
	const wantLine = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4 fixed@test"
	if got := k.Public().AuthorizedLine(k.Comment); got != wantLine {
		t.Errorf("AuthorizedLine = %q, want %q", got, wantLine)
	}
	if got, want := k.Public().Fingerprint(), "SHA256:lbmsoA0yIEcEiVDRnMWuzm+nV+3ZEEpVIURqFoeSspg"; got != want {
		t.Errorf("Fingerprint = %q, want %q", got, want)
	}
	for file, want := range map[string]string{
		"ed25519_plain.pub":     "SHA256:D3i/KC1UQRDxYQpo1mF/RASNZo/ItzJTabfuc2QoXrM",
		"ed25519_encrypted.pub": "SHA256:9IX9NOQPT2/YZFKGtW9vCOPAtc63IM8gJG6l3YXjbAI",
	} {
		pk, err := ParsePublicKey(string(readTestdata(t, file)))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if got := pk.Fingerprint(); got != want {
			t.Errorf("%s: Fingerprint = %q, want %q", file, got, want)
		}
	}
}

func TestSigningKeyRoundTrip(t *testing.T) {
	t.Parallel()
	k, err := GenerateSigningKey("alice@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, pass := range []string{"", "s3cret pass"} {
		t.Run(fmt.Sprintf("passphrase=%v", pass != ""), func(t *testing.T) {
			data, err := k.MarshalPrivate([]byte(pass))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n")) {
				t.Fatalf("not an OpenSSH private key:\n%s", data)
			}
			calls := 0
			got, err := ParseSigningKey(data, passphraseFunc(pass, &calls))
			if err != nil {
				t.Fatal(err)
			}
			if got.Public() != k.Public() {
				t.Error("public key changed in round trip")
			}
			wantCalls := 0
			if pass != "" {
				wantCalls = 1
			}
			if calls != wantCalls {
				t.Errorf("passphrase asked %d times, want %d", calls, wantCalls)
			}
			if pass == "" && got.Comment != k.Comment {
				t.Errorf("comment = %q, want %q", got.Comment, k.Comment)
			}
			// Last, since without ssh-keygen it ends the test.
			defer checkSSHKeygenReads(t, data, pass, k.Public())
			if pass == "" {
				return
			}
			_, err = ParseSigningKey(data, passphraseFunc("wrong", &calls))
			if !errors.Is(err, ErrWrongPassphrase) {
				t.Fatalf("wrong passphrase: err = %v, want ErrWrongPassphrase", err)
			}
			if !strings.Contains(err.Error(), "wrong passphrase for signing key") || strings.Contains(err.Error(), "wrong\"") {
				t.Errorf("wrong passphrase error = %q", err)
			}
			if _, err := ParseSigningKey(data, nil); !errors.Is(err, ErrPassphraseRequired) {
				t.Errorf("nil passphrase func: err = %v, want ErrPassphraseRequired", err)
			}
			boom := errors.New("no terminal")
			_, err = ParseSigningKey(data, func() ([]byte, error) { return nil, boom })
			if !errors.Is(err, boom) {
				t.Errorf("passphrase func error not wrapped: %v", err)
			}
		})
	}
}

func TestParseSigningKeyTestdata(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, pass  string
		wantFP      string
		wantComment string
		wantErr     error
		wantMsg     string
		wantAsks    int
	}{
		{file: "ed25519_plain", wantFP: "SHA256:D3i/KC1UQRDxYQpo1mF/RASNZo/ItzJTabfuc2QoXrM", wantComment: "plain@test"},
		{file: "ed25519_encrypted", pass: "battery staple", wantErr: ErrWrongPassphrase, wantAsks: 1},
		{file: "rsa_plain", wantErr: ErrUnsupportedKeyType, wantMsg: "ssh-rsa"},
		{file: "rsa_encrypted", pass: "rsa pass", wantErr: ErrUnsupportedKeyType, wantMsg: "ssh-rsa"},
		{file: "ecdsa_plain", wantErr: ErrUnsupportedKeyType, wantMsg: "ecdsa"},
		{file: "ed25519_plain.pub", wantMsg: "parse signing key"},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.pass, func(t *testing.T) {
			calls := 0
			k, err := ParseSigningKey(readTestdata(t, tt.file), passphraseFunc(tt.pass, &calls))
			if calls != tt.wantAsks {
				t.Errorf("passphrase asked %d times, want %d", calls, tt.wantAsks)
			}
			if tt.wantErr != nil || tt.wantMsg != "" {
				if err == nil {
					t.Fatal("no error")
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("err = %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("err = %q, want it to mention %q", err, tt.wantMsg)
				}
				if tt.pass != "" && strings.Contains(err.Error(), tt.pass) {
					t.Errorf("error leaks the passphrase: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Public().Fingerprint(); got != tt.wantFP {
				t.Errorf("fingerprint = %s, want %s", got, tt.wantFP)
			}
			if k.Comment != tt.wantComment {
				t.Errorf("comment = %q, want %q", k.Comment, tt.wantComment)
			}
		})
	}
}

func TestParseSigningKeyHostile(t *testing.T) {
	if _, err := ParseSigningKey(bytes.Repeat([]byte("A"), MaxPrivateKeySize+1), nil); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("oversize: err = %v", err)
	}
	for _, in := range []string{"", "garbage", "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n"} {
		if _, err := ParseSigningKey([]byte(in), nil); err == nil {
			t.Errorf("ParseSigningKey(%q) succeeded", in)
		}
	}
	// A key file whose public half is not the one its seed derives.
	k := fixedKey(t)
	bad := append(ed25519.PrivateKey(nil), k.priv...)
	copy(bad[32:], seededKey(t, 7).priv[32:])
	block, err := ssh.MarshalPrivateKey(bad, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseSigningKey(pem.EncodeToMemory(block), nil); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("mismatched public half: err = %v", err)
	}
}

func TestSigningKeyFormattingDoesNotLeak(t *testing.T) {
	k := fixedKey(t)
	secret := fmt.Sprintf("%v", []byte(k.priv))
	for _, s := range []string{
		fmt.Sprintf("%v", k), fmt.Sprintf("%+v", k), fmt.Sprintf("%#v", k), k.String(),
		fmt.Sprintf("%v", *k), fmt.Sprintf("%+v", *k), fmt.Sprintf("%#v", *k),
	} {
		if strings.Contains(s, secret) || strings.Contains(s, "priv") {
			t.Errorf("formatting leaks the key: %s", s)
		}
		if !strings.Contains(s, k.Public().Fingerprint()) {
			t.Errorf("formatting %q does not show the fingerprint", s)
		}
	}
}

func TestGenerateSigningKeyComment(t *testing.T) {
	for _, c := range []string{"a\nb", "tab\there", strings.Repeat("x", MaxCommentSize+1), "\xff"} {
		if _, err := GenerateSigningKey(c); err == nil {
			t.Errorf("GenerateSigningKey(%q) accepted the comment", c)
		}
	}
}

func TestParsePublicKey(t *testing.T) {
	k := fixedKey(t)
	b64 := strings.Fields(k.Public().String())[1]
	rsaLine := strings.TrimSpace(string(readTestdata(t, "rsa_plain.pub")))
	rsaB64 := strings.Fields(rsaLine)[1]
	identity := make([]byte, 32)
	identity[0] = 1 // the neutral element: small order
	smallOrder, _ := ssh.NewPublicKey(ed25519.PublicKey(identity))
	tests := []struct {
		line, comment, errMsg string
	}{
		{line: "ssh-ed25519 " + b64, comment: ""},
		{line: "  ssh-ed25519 " + b64 + " alice@example.com  \n", comment: "alice@example.com"},
		{line: "ssh-ed25519\t" + b64 + "\tbob two words", comment: "bob two words"},
		{line: "", errMsg: "empty"},
		{line: rsaLine, errMsg: "unsupported key type \"ssh-rsa\""},
		{line: "ssh-ed25519 " + rsaB64, errMsg: "contains a \"ssh-rsa\" key"},
		{line: "ssh-ed25519", errMsg: "no key"},
		{line: "ssh-ed25519 !!!!", errMsg: "base64"},
		{line: "ssh-ed25519 " + b64[:len(b64)-1], errMsg: "base64"},
		{line: "ssh-ed25519 " + b64 + "==", errMsg: "base64"},
		{line: "ssh-ed25519 AAAA", errMsg: "parse public key"},
		{line: `from="x" ssh-ed25519 ` + b64, errMsg: "unsupported key type"},
		{line: "ssh-ed25519 " + b64 + strings.Repeat(" c", MaxPublicKeyLineSize), errMsg: "longer than"},
		{line: string(ssh.MarshalAuthorizedKey(smallOrder)), errMsg: "small-order"},
	}
	for _, tt := range tests {
		pk, comment, err := ParsePublicKeyLine(tt.line)
		if tt.errMsg != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errMsg) {
				t.Errorf("ParsePublicKeyLine(%.40q): err = %v, want %q", tt.line, err, tt.errMsg)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParsePublicKeyLine(%.40q): %v", tt.line, err)
			continue
		}
		if pk != k.Public() || comment != tt.comment {
			t.Errorf("ParsePublicKeyLine(%.40q) = %v, %q", tt.line, pk, comment)
		}
	}
}

func TestPublicKeyText(t *testing.T) {
	pk := fixedKey(t).Public()
	b, err := pk.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	var got PublicKey
	if err := got.UnmarshalText(b); err != nil || got != pk {
		t.Fatalf("UnmarshalText = %v, %v", got, err)
	}
	for _, in := range []string{string(b) + " comment", " " + string(b), ""} {
		if err := got.UnmarshalText([]byte(in)); err == nil {
			t.Errorf("UnmarshalText(%q) accepted non-canonical text", in)
		}
	}
	if _, err := (PublicKey{}).MarshalText(); err == nil {
		t.Error("zero key marshalled")
	}
}

func TestWriteSigningKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "id_handoff")
	k := fixedKey(t)
	if err := WriteSigningKey(path, k, nil, false); err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]fs.FileMode{path: 0o600, path + ".pub": 0o644} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), mode)
		}
	}
	pub, _ := os.ReadFile(path + ".pub")
	if got, want := string(pub), k.Public().AuthorizedLine(k.Comment)+"\n"; got != want {
		t.Errorf(".pub = %q, want %q", got, want)
	}
	if err := WriteSigningKey(path, seededKey(t, 2), nil, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second write without overwrite: err = %v, want fs.ErrExist", err)
	}
	// A stale .pub alone also blocks a write.
	other := filepath.Join(dir, "other")
	testsys.Check(t, os.WriteFile(other+".pub", []byte("x"), 0o644))
	if err := WriteSigningKey(other, k, nil, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("write over stale .pub: err = %v, want fs.ErrExist", err)
	}
	if _, err := os.Stat(other); !errors.Is(err, fs.ErrNotExist) {
		t.Error("private key written despite the refusal")
	}
	got, err := LoadSigningKey(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Public() != k.Public() || got.Comment != k.Comment {
		t.Errorf("LoadSigningKey = %v %q", got, got.Comment)
	}
	k2 := seededKey(t, 3)
	if err := WriteSigningKey(path, k2, nil, true); err != nil {
		t.Fatal(err)
	}
	got, err = LoadSigningKey(path, nil)
	if err != nil || got.Public() != k2.Public() || got.Comment != k2.Comment {
		t.Errorf("after overwrite: %v %v", got, err)
	}
	if _, err := LoadSigningKey(filepath.Join(dir, "missing"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing key: err = %v", err)
	}
}

// checkSSHKeygenReads checks that OpenSSH derives the expected public key
// from a private key file we wrote. Without ssh-keygen the test skips
// (after its own checks), or fails under CI.
func checkSSHKeygenReads(t *testing.T, data []byte, pass string, want PublicKey) {
	t.Helper()
	keygen := testsys.LookPath(t, "ssh-keygen")
	path := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(keygen, "-y", "-P", pass, "-f", path).Output()
	if err != nil {
		t.Fatalf("ssh-keygen -y (passphrase %v): %v", pass != "", err)
	}
	got, err := ParsePublicKey(string(out))
	if err != nil || got != want {
		t.Errorf("ssh-keygen derived %q, want %s", out, want)
	}
}

func TestLoadSigningKeyEncrypted(t *testing.T) {
	t.Parallel()
	calls := 0
	k, err := LoadSigningKey(filepath.Join("testdata", "ed25519_encrypted"), passphraseFunc("correct horse", &calls))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := k.Public().Fingerprint(), "SHA256:9IX9NOQPT2/YZFKGtW9vCOPAtc63IM8gJG6l3YXjbAI"; got != want {
		t.Errorf("fingerprint = %s, want %s", got, want)
	}
	// The comment is encrypted in the key file; it comes from the .pub file.
	if k.Comment != "enc@test" || calls != 1 {
		t.Errorf("comment = %q, passphrase asked %d times", k.Comment, calls)
	}
}

package legacy

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/crypto/scrypt"

	"github.com/session-handoff/session-handoff/handoff"
)

const item = `{"id":"h-42","created_at":"2025-06-01T10:20:30Z","tool":"Codex","project":"/home/u/src/app","title":"Refactor auth","summary":"Parser extracted","next":["Fix tests","  ","Ship"],"changed":["auth.go","auth_test.go"]}`

func bundleJSON(version int) []byte {
	sum := sha256.Sum256([]byte(item))
	return []byte(fmt.Sprintf(`{"version":%d,"checksum":"sha256:%s","record":%s,"signer":"mallory","signature":"AAAA"}`, version, hex.EncodeToString(sum[:]), item))
}

func encrypt(t *testing.T, plain []byte, pass string, n int) []byte {
	t.Helper()
	salt := []byte("0123456789abcdef")
	nonce := []byte("unique nonce")
	key, err := scrypt.Key([]byte(pass), salt, n, 8, 1, 32)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	aead, _ := cipher.NewGCM(block)
	ct := aead.Seal(nil, nonce, plain, nil)
	w := map[string]any{"version": 1, "algorithm": "aes-256-gcm", "kdf": fmt.Sprintf("scrypt(N=%d,r=8,p=1)", n),
		"salt": base64.StdEncoding.EncodeToString(salt), "nonce": base64.StdEncoding.EncodeToString(nonce),
		"ciphertext": base64.StdEncoding.EncodeToString(ct)}
	data, _ := json.Marshal(w)
	return data
}

func pass(s string) func() ([]byte, error) { return func() ([]byte, error) { return []byte(s), nil } }

func checkItem(t *testing.T, rec *handoff.Record) {
	t.Helper()
	if rec.Title != "Refactor auth" || rec.Tool != "codex" || rec.Project.Path != "/home/u/src/app" || rec.Project.Name != "app" {
		t.Errorf("fields: %+v", rec)
	}
	if strings.Join(rec.NextSteps, "|") != "Fix tests|Ship" {
		t.Errorf("next: %q", rec.NextSteps)
	}
	if len(rec.Files) != 2 || rec.Files[1].Path != "auth_test.go" {
		t.Errorf("files: %+v", rec.Files)
	}
	if rec.Source.Kind != handoff.SourceLegacy || rec.Source.Import != nil {
		t.Errorf("legacy records must be marked unsigned legacy: %+v", rec.Source)
	}
	if got := rec.ID.Time().Format("2006-01-02T15:04:05Z"); got != "2025-06-01T10:20:30Z" {
		t.Errorf("id time %s", got)
	}
	if errs := rec.Check(); len(errs) > 0 {
		t.Errorf("check: %v", errs)
	}
}

func TestReadStore(t *testing.T) {
	data := []byte(`{"version":1,"items":[` + item + `,{"id":"h-43","created_at":"2025-06-02T00:00:00Z","tool":"","project":{"path":"/p","name":"p"},"title":"","next":"a\nb","changed":null}]}`)
	res, err := Read(data, "handoffs.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindStore || len(res.Records) != 2 {
		t.Fatalf("got %v %d", res.Kind, len(res.Records))
	}
	checkItem(t, res.Records[0])
	r2 := res.Records[1]
	if r2.Tool != "generic" || r2.Title != "(untitled legacy handoff)" || strings.Join(r2.NextSteps, "|") != "a|b" {
		t.Errorf("second: %+v", r2)
	}
	again, _ := Read(data, "handoffs.json", nil)
	if again.Records[0].ID != res.Records[0].ID || res.Records[0].ID == res.Records[1].ID {
		t.Error("ids are not stable across reads, or collide")
	}
}

func TestReadBundles(t *testing.T) {
	for _, v := range []int{2, 3} {
		res, err := Read(bundleJSON(v), "b.json", nil)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if res.Kind != KindBundle || len(res.Records) != 1 {
			t.Fatalf("v%d: %+v", v, res)
		}
		checkItem(t, res.Records[0])
	}
	enc := encrypt(t, bundleJSON(3), "correct horse", 1024)
	res, err := Read(enc, "b.enc.json", pass("correct horse"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindEncrypted {
		t.Fatalf("kind %v", res.Kind)
	}
	checkItem(t, res.Records[0])
	if _, err := Read(enc, "b.enc.json", pass("wrong")); !errors.Is(err, ErrWrongPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	} else if strings.Contains(err.Error(), "wrong\"") || strings.Contains(err.Error(), "correct horse") {
		t.Fatalf("error leaks a passphrase: %v", err)
	}
}

func TestReadRejects(t *testing.T) {
	good := string(bundleJSON(3))
	for _, tc := range []struct{ name, in, want string }{
		{"not json", "hello", "malformed"},
		{"not legacy", `{"a":1}`, "not a legacy"},
		{"duplicate key", `{"version":3,"version":2}`, "duplicate key"},
		{"newer bundle", strings.Replace(good, `"version":3`, `"version":4`, 1), "legacy bundle version 4"},
		{"newer store", `{"version":2,"items":[]}`, "legacy store version 2"},
		{"checksum", strings.Replace(good, `"Refactor auth"`, `"Refactor auth!"`, 1), "checksum does not match"},
		{"unknown field", strings.Replace(good, `"version":3,`, `"version":3,"extra":1,`, 1), "unknown field"},
		{"no checksum", `{"version":3,"record":` + item + `}`, "no checksum"},
		{"bad time", `{"version":1,"items":[{"id":"x","created_at":"yesterday","title":"t"}]}`, "not an RFC 3339 time"},
		{"kdf too costly", `{"version":1,"algorithm":"aes-256-gcm","kdf":"scrypt(N=4194304,r=8,p=1)","salt":"MDEyMzQ1Njc4OWFiY2RlZg==","nonce":"dW5pcXVlIG5vbmNl","ciphertext":"AAAA"}`, "outside the accepted range"},
		// The review's 251-byte file: N=2^20, r=32, p=16 took 4 GiB and 275 s.
		{"kdf memory and work", `{"version":1,"algorithm":"aes-256-gcm","kdf":"scrypt(N=1048576,r=32,p=16)","salt":"MDEyMzQ1Njc4OWFiY2RlZg==","nonce":"dW5pcXVlIG5vbmNl","ciphertext":"AAAA"}`, "outside the accepted range"},
		{"kdf memory", `{"version":1,"algorithm":"aes-256-gcm","kdf":"scrypt(N=131072,r=8,p=1)","salt":"MDEyMzQ1Njc4OWFiY2RlZg==","nonce":"dW5pcXVlIG5vbmNl","ciphertext":"AAAA"}`, "outside the accepted range"},
		{"kdf work", `{"version":1,"algorithm":"aes-256-gcm","kdf":"scrypt(N=32768,r=8,p=4)","salt":"MDEyMzQ1Njc4OWFiY2RlZg==","nonce":"dW5pcXVlIG5vbmNl","ciphertext":"AAAA"}`, "outside the accepted range"},
		{"algorithm", `{"version":1,"algorithm":"rot13","kdf":"scrypt(N=1024,r=8,p=1)","salt":"","nonce":"","ciphertext":""}`, "not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read([]byte(tc.in), "f.json", pass("x"))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("got %v, want an error naming f.json containing %q", err, tc.want)
			}
		})
	}
}

// TestFixturesRead keeps the committed fixtures (used by the CLI stories)
// in step with this package's idea of the legacy formats.
func TestFixturesRead(t *testing.T) {
	for _, name := range []string{"handoffs.json", "bundle-v3.json", "bundle-v3.enc.json"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Read(data, name, pass("legacy pass")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add(bundleJSON(3))
	f.Add([]byte(`{"version":1,"items":[` + item + `]}`))
	f.Add([]byte(`{"version":1,"algorithm":"aes-256-gcm","kdf":"scrypt(N=1024,r=8,p=1)","salt":"MDEyMzQ1Njc4OWFiY2RlZg==","nonce":"dW5pcXVlIG5vbmNl","ciphertext":"AAAA"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read(data, "f", pass("x"))
		if err == nil {
			for _, r := range res.Records {
				if errs := r.Check(); len(errs) > 0 {
					t.Fatalf("accepted a record that fails Check: %v", errs)
				}
			}
		}
	})
}

// An interrupt during the key derivation returns at once.
func TestInterruptStopsTheKeyDerivation(t *testing.T) {
	data := encrypt(t, bundleJSON(3), "right", 1024)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := ReadContext(ctx, data, "f.json", func() ([]byte, error) {
		cancel() // Ctrl-C while the passphrase is read
		return []byte("right"), nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	// The old tool's own parameters are still read.
	if _, err := Read(encrypt(t, bundleJSON(3), "right", 32768), "f.json", pass("right")); err != nil {
		t.Fatal(err)
	}
}

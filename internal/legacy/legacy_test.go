package legacy

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/scrypt"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/legacy/oldtools"
)

// oldRec is a record as session-handoff v0.7.5's save wrote it
// (oldtools.NewRecord follows cmdSave): a summary with the characters
// encoding/json escapes (<, >, &), and a rename as detectChangedFiles
// listed it.
var oldRec = oldtools.NewRecord(nil, time.Date(2025, 6, 1, 10, 20, 30, 0, time.UTC), "Codex", "/home/u/src/app",
	"Refactor auth", "Parser extracted; <b> & -> next", []string{"Fix tests", "Ship"}, []string{"auth.go", "auth_test.go", "old.go -> new.go"})

// item is oldRec as one item of handoffs.json.
var item = func() string {
	data, _ := json.Marshal(oldRec)
	return string(data)
}()

// signKey is a fixed Ed25519 key for v3 bundles.
var signKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))

func bundleJSON(version int) []byte {
	switch version {
	case 1:
		return oldtools.BundleV1(oldRec)
	case 2:
		return oldtools.BundleV2(oldRec)
	}
	return oldtools.BundleV3(oldRec, signKey, "wregen")
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
	if rec.Summary != "Parser extracted; <b> & -> next" {
		t.Errorf("summary: %q", rec.Summary)
	}
	if strings.Join(rec.NextSteps, "|") != "Fix tests|Ship" {
		t.Errorf("next: %q", rec.NextSteps)
	}
	if len(rec.Files) != 3 || rec.Files[1].Path != "auth_test.go" || rec.Files[2].Path != "old.go -> new.go" {
		t.Errorf("files (the rename kept as the old tool showed it): %+v", rec.Files)
	}
	if rec.Source.LegacyID != "20250601-102030" {
		t.Errorf("old id not kept: %+v", rec.Source)
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
	for _, v := range []int{1, 2, 3} {
		res, err := Read(bundleJSON(v), "b.json", nil)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if res.Kind != KindBundle || len(res.Records) != 1 {
			t.Fatalf("v%d: %+v", v, res)
		}
		checkItem(t, res.Records[0])
		if len(res.Warnings) != 0 {
			t.Errorf("v%d: warnings for a bundle the old tool accepted: %q", v, res.Warnings)
		}
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
		{"newer bundle", strings.Replace(good, `"version": 3`, `"version": 4`, 1), "legacy bundle version 4"},
		{"newer store", `{"version":2,"items":[]}`, "legacy store version 2"},
		{"checksum", strings.Replace(good, `"Refactor auth"`, `"Refactor auth!"`, 1), "checksum does not match"},
		{"checksum case", strings.Replace(good, `"checksum": "`+oldtools.Checksum(oldRec), `"checksum": "`+strings.ToUpper(oldtools.Checksum(oldRec)), 1), "checksum does not match"},
		{"checksum of another shape", strings.Replace(good, `"project": "/home/u/src/app"`, `"project": {"path": "/home/u/src/app"}`, 1), "checksum does not match"},
		{"unknown field", strings.Replace(good, `"version": 3,`, `"version": 3, "extra": 1,`, 1), "unknown field"},
		{"no checksum", `{"version":3,"record":` + item + `}`, "no checksum"},
		{"no checksum v2", `{"version":2,"record":` + item + `}`, "no checksum"},
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

// reformat re-encodes a JSON document as jq does: its own indentation
// (or none), keys sorted when sortKeys (jq -S), and no escaping of <, >
// and &, which Go's encoder escapes.
func reformat(t *testing.T, data []byte, indent string, sortKeys bool) []byte {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	if !sortKeys {
		// Keep the order: round-trip through an ordered re-indent.
		var out bytes.Buffer
		if err := json.Indent(&out, data, "", indent); err != nil {
			t.Fatal(err)
		}
		return bytes.NewBufferString(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(out.String())).Bytes()
	}
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil { // maps encode with sorted keys
		t.Fatal(err)
	}
	return out.Bytes()
}

// A bundle reformatted by jq (re-indented, compacted, keys sorted, HTML
// characters unescaped) still passes the checksum, as it did with v0.7.5,
// whose checksum is over the record's values; a changed value does not.
func TestChecksumOfReformattedBundles(t *testing.T) {
	for _, v := range []int{2, 3} {
		for name, data := range map[string][]byte{
			"jq .":    reformat(t, bundleJSON(v), "  ", false),
			"jq -c .": reformat(t, bundleJSON(v), "", false),
			"jq -S .": reformat(t, bundleJSON(v), "    ", true),
		} {
			if bytes.Equal(data, bundleJSON(v)) {
				t.Fatalf("v%d %s: the reformatting changed nothing, so the test proves nothing", v, name)
			}
			res, err := Read(data, "b.json", nil)
			if err != nil {
				t.Fatalf("v%d %s: %v", v, name, err)
			}
			checkItem(t, res.Records[0])
			if len(res.Warnings) != 0 {
				t.Errorf("v%d %s: %q", v, name, res.Warnings)
			}
			changed := bytes.Replace(data, []byte("Fix tests"), []byte("Fix Tests"), 1)
			if _, err := Read(changed, "b.json", nil); err == nil || !strings.Contains(err.Error(), "checksum does not match") {
				t.Errorf("v%d %s: a changed value passed: %v", v, name, err)
			}
		}
	}
}

// A v3 bundle whose signature v0.7.5 would have refused is read with a
// warning saying so; its record is legacy (unsigned) like any other.
func TestSignatureWarnings(t *testing.T) {
	good := string(bundleJSON(3))
	var b map[string]any
	if err := json.Unmarshal([]byte(good), &b); err != nil {
		t.Fatal(err)
	}
	sig := b["signature"].(string)
	other := base64.StdEncoding.EncodeToString(ed25519.Sign(signKey, []byte("something else")))
	for name, tc := range map[string]struct{ in, want string }{
		"corrupted signature":  {strings.Replace(good, sig, other, 1), "does not verify"},
		"signature not base64": {strings.Replace(good, sig, "!!", 1), "does not verify"},
		"no signature":         {strings.Replace(good, `"signature": "`+sig+`"`, `"signature": ""`, 1), "without a signature"},
		"no public key":        {strings.Replace(good, `"public_key": "`, `"public_key": "x`, 1), "not a base64 Ed25519 key"},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := Read([]byte(tc.in), "b.json", nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], tc.want) || !strings.Contains(res.Warnings[0], "v0.7.5 would have refused it") {
				t.Fatalf("warnings %q, want one containing %q", res.Warnings, tc.want)
			}
			if res.Records[0].Source.Kind != handoff.SourceLegacy {
				t.Fatal("not legacy")
			}
		})
	}
}

func TestNormalTool(t *testing.T) {
	for in, want := range map[string]string{
		"Claude Code": "claude-code", "claude-code": "claude-code", "claude": "claude-code",
		"Codex": "codex", "Codex CLI": "codex", " gemini  CLI ": "gemini", "Cursor": "cursor",
		"My Tool": "my-tool", "ci_bot": "ci-bot", "???": "generic", "": "generic",
	} {
		if got := NormalTool(in); got != want {
			t.Errorf("NormalTool(%q) = %q, want %q", in, got, want)
		}
	}
}

// The record's id comes from its old id, not its content: an edited item
// meets the record imported before (--on-conflict replace), and two items
// of one second (20250601-102030, 20250601-102030-002) do not collide.
func TestDerivedIDFollowsTheOldID(t *testing.T) {
	edited := oldRec
	edited.Title, edited.Summary = "Refactor auth, take 2", "more"
	second := oldRec
	second.ID = oldtools.GenerateID([]string{oldRec.ID}, time.Date(2025, 6, 1, 10, 20, 30, 0, time.UTC))
	if second.ID != "20250601-102030-002" {
		t.Fatalf("GenerateID: %s", second.ID)
	}
	res, err := Read(oldtools.StoreFile([]oldtools.Record{oldRec, edited, second}), "handoffs.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Records
	if r[0].ID != r[1].ID || r[0].ID == r[2].ID || r[2].Source.LegacyID != "20250601-102030-002" {
		t.Fatalf("ids %s %s %s (%s)", r[0].ID, r[1].ID, r[2].ID, r[2].Source.LegacyID)
	}
}

// The committed fixtures are what package oldtools writes, byte for byte.
func TestFixturesAreTheOldToolsBytes(t *testing.T) {
	for name, want := range map[string][]byte{
		"handoffs.json":      oldtools.StoreFile([]oldtools.Record{oldRec}),
		"bundle-v3.json":     bundleJSON(3),
		"bundle-v3.enc.json": oldtools.Encrypt(bundleJSON(3), "legacy pass", []byte("0123456789abcdef"), []byte("unique nonce")),
	} {
		got, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("testdata/%s differs from what v0.7.5 writes: run go test ./internal/legacy -run TestUpdateFixtures -update", name)
		}
	}
}

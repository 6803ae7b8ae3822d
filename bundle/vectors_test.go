package bundle

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// TestVectors reads every good vector and every member of the hostile
// corpus under testdata/bundles and checks that each reads as recorded.
// With -update it first regenerates them (see gen_test.go).
func TestVectors(t *testing.T) {
	if *update {
		generate(t)
	}
	k := loadKeys(t)
	good, _ := filepath.Glob(filepath.Join(vecDir, "*.handoff"))
	bad, _ := filepath.Glob(filepath.Join(badDir, "*.handoff"))
	if len(good) < 10 || len(bad) < 50 {
		t.Fatalf("found %d good and %d bad vectors; run go test ./bundle -run TestVectors -update", len(good), len(bad))
	}
	for _, path := range good {
		name := strings.TrimSuffix(filepath.Base(path), ".handoff")
		t.Run("good/"+name, func(t *testing.T) {
			t.Parallel()
			data := mustRead(t, path)
			var w want
			if err := json.Unmarshal(mustRead(t, filepath.Join(vecDir, name+".want.json")), &w); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			opts := k.readOptions()
			opts.BlobDir = dir
			res, err := Read(bytes.NewReader(data), opts)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if got := wantOf(res); !reflect.DeepEqual(got, w) {
				gj, _ := json.MarshalIndent(got, "", "  ")
				t.Fatalf("read as\n%s\nwant\n%s", gj, mustRead(t, filepath.Join(vecDir, name+".want.json")))
			}
			for i, b := range res.Manifest.Blobs {
				f := res.BlobFiles[i]
				if filepath.Base(f) != b.SHA256 {
					t.Errorf("blob file %s for %s", f, b.SHA256)
				}
				if content := mustRead(t, f); sha256hex(content) != b.SHA256 {
					t.Errorf("blob file %s has the wrong content", f)
				}
			}
			entries, err := os.ReadDir(dir)
			testsys.Check(t, err)
			if len(entries) != len(res.Manifest.Blobs) {
				t.Errorf("blob dir holds %d files, want %d", len(entries), len(res.Manifest.Blobs))
			}
		})
	}
	for _, path := range bad {
		name := strings.TrimSuffix(filepath.Base(path), ".handoff")
		t.Run("bad/"+name, func(t *testing.T) {
			t.Parallel()
			data := mustRead(t, path)
			lines := strings.SplitN(strings.TrimSuffix(string(mustRead(t, filepath.Join(badDir, name+".err"))), "\n"), "\n", 2)
			kind, msg := lines[0], ""
			if len(lines) > 1 {
				msg = lines[1]
			}
			var opts *vecOptions
			if o, err := os.ReadFile(filepath.Join(badDir, name+".opts.json")); err == nil {
				opts = new(vecOptions)
				if err := json.Unmarshal(o, opts); err != nil {
					t.Fatal(err)
				}
			}
			dir := t.TempDir()
			ro := opts.apply(k, k.readOptions())
			ro.BlobDir = dir
			res, err := Read(bytes.NewReader(data), ro)
			readOK := err == nil
			if err == nil {
				err = res.RequireVerified()
			}
			if err == nil {
				t.Fatal("read without error")
			}
			if got := kindName(err); got != kind || !strings.Contains(err.Error(), msg) {
				t.Fatalf("got %q (%s), want %s with %q", err, got, kind, msg)
			}
			checkMessage(t, err, k)
			// A failed read leaves nothing behind, except for
			// ErrWrongRecipient, whose blobs are complete and verified
			// (and a successful read refused by the import policy).
			if entries, _ := os.ReadDir(dir); len(entries) > 0 && kind != "ErrWrongRecipient" && !readOK {
				t.Errorf("failed read left %d files in the blob dir", len(entries))
			}
		})
	}
}

// checkMessage checks the form of an error: "bundle: " and one lowercase
// line without secret material.
func checkMessage(t *testing.T, err error, k *testKeys) {
	t.Helper()
	s := err.Error()
	rest, ok := strings.CutPrefix(s, "bundle: ")
	if !ok {
		t.Errorf("message %q does not start with \"bundle: \"", s)
	}
	if strings.ContainsAny(s, "\n\r") {
		t.Errorf("message %q is not one line", s)
	}
	if r := []rune(rest); len(r) > 0 && unicode.IsUpper(r[0]) {
		t.Errorf("message %q does not start in lower case", s)
	}
	for _, secret := range []string{string(k.passphrase), "AGE-SECRET-KEY", k.id.String(), "PRIVATE KEY", "hunter2"} {
		if strings.Contains(s, secret) {
			t.Errorf("message %q contains secret material", s)
		}
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGolden checks the deterministic parts of the format: the manifest
// encoding of a fixed record, its PAE bytes and its signed envelope
// (Ed25519 signatures are deterministic).
func TestGolden(t *testing.T) {
	k := loadKeys(t)
	m := goldenManifest(k)
	payload, err := MarshalManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		file string
		got  []byte
	}{
		{"manifest.json", payload},
		{"manifest.pae", crypto.PAE(PayloadType, payload)},
		{"envelope.json", envelopeOf(t, PayloadType, payload, k.signer)},
	} {
		want := mustRead(t, filepath.Join(vecDir, "golden", g.file))
		if !bytes.Equal(g.got, want) {
			t.Errorf("%s differs from the golden file:\ngot  %s\nwant %s", g.file, g.got, want)
		}
	}
	back, err := ParseManifest(payload)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := MarshalManifest(back)
	if !bytes.Equal(again, payload) {
		t.Errorf("manifest does not survive a parse and re-encode:\n%s\n%s", again, payload)
	}
}

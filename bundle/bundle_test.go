package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"filippo.io/age"
	"github.com/session-handoff/session-handoff/crypto"
)

func TestRoundTrip(t *testing.T) {
	k := loadKeys(t)
	defer crypto.SetScryptWorkFactorForTesting(10)()
	blobs := []BlobSource{
		memBlob("transcript.jsonl", "application/x-ndjson", []byte(`{"a":1}`+"\n")),
		memBlob("empty.txt", "text/plain", nil),
	}
	for _, tc := range []struct {
		name string
		opts WriteOptions
		enc  Encryption
	}{
		{"signed-encrypted", WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, Recipients: []crypto.RecipientInfo{k.recipient()}}, EncryptRecipients},
		{"armored", WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, Recipients: []crypto.RecipientInfo{k.recipient()}, Armor: true}, EncryptRecipients},
		{"passphrase", WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, Passphrase: k.passphrase}, EncryptPassphrase},
		{"plain", WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, NoEncrypt: true}, EncryptNone},
		{"plain-armored", WriteOptions{NoEncrypt: true, Armor: true}, EncryptNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := testManifest(withAttachments(fixedRecord(), blobs))
			data := writeBundle(t, m, blobs, tc.opts)
			dir := t.TempDir()
			opts := k.readOptions()
			opts.BlobDir = dir
			res, err := Read(bytes.NewReader(data), opts)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if res.Encryption != tc.enc || res.Armored != tc.opts.Armor {
				t.Errorf("encryption %s armored %v", res.Encryption, res.Armored)
			}
			want := StatusVerified
			if len(tc.opts.SigningKeys) == 0 {
				want = StatusUnsigned
			}
			if res.Verification.Status != want {
				t.Errorf("status %s, want %s (%s)", res.Verification.Status, want, res.Verification.Reason)
			}
			if len(res.BlobFiles) != 2 {
				t.Errorf("blob files %v", res.BlobFiles)
			}
			// Unknown identity.
			_, err = Read(bytes.NewReader(data), ReadOptions{Identities: []age.Identity{k.strangerID}})
			if tc.enc == EncryptRecipients && !errors.Is(err, ErrNoIdentity) {
				t.Errorf("stranger: %v", err)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "bundle: ") {
				t.Errorf("message %q", err)
			}
			t.Logf("%d bytes; stranger: %v", len(data), err)
		})
	}
}

func TestPassphraseAskedOnlyForScrypt(t *testing.T) {
	k := loadKeys(t)
	defer crypto.SetScryptWorkFactorForTesting(10)()
	asked := 0
	opts := k.readOptions()
	opts.Passphrase = func() ([]byte, error) { asked++; return k.passphrase, nil }
	rec := writeBundle(t, testManifest(fixedRecord()), nil, WriteOptions{Recipients: []crypto.RecipientInfo{k.recipient()}})
	if _, err := Read(bytes.NewReader(rec), opts); err != nil || asked != 0 {
		t.Fatalf("recipient bundle: err %v, asked %d times", err, asked)
	}
	pass := writeBundle(t, testManifest(fixedRecord()), nil, WriteOptions{Passphrase: k.passphrase})
	res, err := Read(bytes.NewReader(pass), opts)
	if err != nil || asked != 1 || res.Encryption != EncryptPassphrase {
		t.Fatalf("passphrase bundle: err %v, asked %d times", err, asked)
	}
	// Over the work factor limit: refused before asking.
	opts.Limits.MaxScryptWorkFactor = 9
	if _, err := Read(bytes.NewReader(pass), opts); !errors.Is(err, ErrLimit) || asked != 1 {
		t.Fatalf("over the limit: err %v, asked %d times", err, asked)
	}
	// A failing prompt is not a wrong passphrase.
	opts.Limits.MaxScryptWorkFactor = 0
	opts.Passphrase = func() ([]byte, error) { return nil, errors.New("no terminal") }
	if _, err := Read(bytes.NewReader(pass), opts); !errors.Is(err, ErrNoIdentity) || !strings.Contains(err.Error(), "no terminal") {
		t.Fatalf("failing prompt: %v", err)
	}
}

func TestWrongRecipientKeepsResult(t *testing.T) {
	k := loadKeys(t)
	blobs := []BlobSource{memBlob("a.txt", "text/plain", []byte("a"))}
	// Signed and encrypted for the stranger only.
	data := writeBundle(t, testManifest(withAttachments(fixedRecord(), blobs)), blobs, WriteOptions{
		SigningKeys: []*crypto.SigningKey{k.signer},
		Recipients:  []crypto.RecipientInfo{k.strangerRecipient()},
	})
	opts := k.readOptions()
	opts.Identities = []age.Identity{k.strangerID}
	res, err := Read(bytes.NewReader(data), opts)
	if err != nil || !res.ForReader {
		t.Fatalf("stranger reads its own bundle: %v", err)
	}
	// Re-encrypt the decrypted stream to the test identity: a recipient
	// forwarding someone's signed bundle to a third party.
	plain := decryptWith(t, data, k.strangerID)
	forwarded := encryptTo(t, plain, k.id.Recipient())
	dir := t.TempDir()
	opts = k.readOptions()
	opts.BlobDir = dir
	res, err = Read(bytes.NewReader(forwarded), opts)
	if !errors.Is(err, ErrWrongRecipient) {
		t.Fatalf("forwarded: %v", err)
	}
	if res == nil || res.Manifest == nil || res.ForReader || res.Verification.Status != StatusVerified || len(res.BlobFiles) != 1 {
		t.Fatalf("forwarded: result %+v", res)
	}
	// Naming the recipient explicitly makes it ours.
	opts.Recipients = []string{k.strangerID.Recipient().String()}
	opts.BlobDir = ""
	if _, err := Read(bytes.NewReader(forwarded), opts); err != nil {
		t.Fatalf("with the stranger's recipient string: %v", err)
	}
}

func TestWriteChecksBlobs(t *testing.T) {
	k := loadKeys(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	writeFile(t, path, []byte("hello\n"))
	src, err := FileBlob(context.Background(), path, "f.txt", "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	if src.Size != 6 || src.SHA256 != sha256hex([]byte("hello\n")) || src.Fingerprint == 0 {
		t.Fatalf("FileBlob: %+v, fingerprint %x", src.Blob, src.Fingerprint)
	}
	opts := WriteOptions{NoEncrypt: true}
	// With a fingerprint (FileBlob) and without one (the SHA-256 again).
	noFingerprint := src
	noFingerprint.Fingerprint = 0
	for _, s := range []BlobSource{src, noFingerprint} {
		for _, content := range []string{"hellO\n", "hello\nmore", "hel"} {
			writeFile(t, path, []byte(content))
			err := Write(io.Discard, testManifest(withAttachments(fixedRecord(), []BlobSource{s})), []BlobSource{s}, opts)
			if !errors.Is(err, ErrHashMismatch) {
				t.Errorf("file changed to %q (fingerprint %x): %v", content, s.Fingerprint, err)
			}
		}
		writeFile(t, path, []byte("hello\n"))
		if err := Write(io.Discard, testManifest(withAttachments(fixedRecord(), []BlobSource{s})), []BlobSource{s}, opts); err != nil {
			t.Errorf("file as hashed (fingerprint %x): %v", s.Fingerprint, err)
		}
	}
	// Encryption must be chosen explicitly.
	err = Write(io.Discard, testManifest(fixedRecord()), nil, WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "NoEncrypt") {
		t.Errorf("no encryption chosen: %v", err)
	}
	err = Write(io.Discard, testManifest(fixedRecord()), nil, WriteOptions{NoEncrypt: true, Recipients: []crypto.RecipientInfo{k.recipient()}})
	if err == nil {
		t.Error("NoEncrypt with recipients accepted")
	}
	// A blob name a reader would refuse is refused when writing.
	bad := memBlob("a/b", "text/plain", []byte("x"))
	if err := Write(io.Discard, testManifest(fixedRecord()), []BlobSource{bad}, opts); !errors.Is(err, ErrMalformed) {
		t.Errorf("blob name with a slash: %v", err)
	}
}

func TestArmorSizes(t *testing.T) {
	for _, n := range []int{0, 1, 47, 48, 49, 95, 96, 97, 1000, 4096} {
		data := bytes.Repeat([]byte{0xA5}, n)
		for i := range data {
			data[i] ^= byte(i)
		}
		var buf bytes.Buffer
		w := newArmorWriter(&buf)
		// Write in odd pieces.
		for rest := data; len(rest) > 0; {
			c := min(len(rest), 7)
			w.Write(rest[:c])
			rest = rest[c:]
		}
		w.Close()
		for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
			if len(line) > 64 {
				t.Fatalf("n=%d: line of %d characters", n, len(line))
			}
		}
		for _, variant := range [][]byte{buf.Bytes(), bytes.ReplaceAll(buf.Bytes(), []byte("\n"), []byte("\r\n"))} {
			got, err := io.ReadAll(newArmorReader(bufio.NewReader(bytes.NewReader(variant))))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("n=%d: round trip: %v", n, err)
			}
		}
	}
}

func TestLimitsNamed(t *testing.T) {
	d := DefaultLimits()
	if d.MaxInput != 1<<30 || d.MaxDecompressed != 1<<30 || d.MaxWindow != 64<<20 || d.MaxEntries != 10000 ||
		d.MaxEntrySize != 512<<20 || d.MaxManifest != 8<<20 || d.MaxScryptWorkFactor != 20 {
		t.Fatalf("defaults: %+v", d)
	}
	if (Limits{}).withDefaults() != d {
		t.Fatal("zero limits are not the defaults")
	}
	e := limitError("decompressed size", 1073741824, "bytes", flagMaxDecompressed)
	if e.Error() != "bundle: decompressed size exceeds limit of 1073741824 bytes (--max-decompressed)" || !errors.Is(e, ErrLimit) {
		t.Fatalf("limit error %q", e)
	}
}

func TestRequireVerified(t *testing.T) {
	for status, kind := range map[Status]error{StatusUntrusted: ErrUntrusted, StatusUnsigned: ErrUnsigned, StatusInvalid: ErrSignature} {
		r := &Result{Verification: Verification{Status: status, Fingerprint: "SHA256:x", Reason: "r"}}
		if err := r.RequireVerified(); !errors.Is(err, kind) {
			t.Errorf("%s: %v", status, err)
		}
	}
	if err := (&Result{Verification: Verification{Status: StatusVerified}}).RequireVerified(); err != nil {
		t.Error(err)
	}
}

// TestVerifiedPrincipals checks the trust data flows from the caller's
// store: principals come from it, and a TrustMap works like a TrustStore.
func TestVerifiedPrincipals(t *testing.T) {
	k := loadKeys(t)
	data := writeBundle(t, testManifest(fixedRecord()), nil, WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, NoEncrypt: true})
	res, err := Read(bytes.NewReader(data), k.readOptions())
	if err != nil || !slices.Equal(res.Verification.Principals, []string{"alice@test"}) {
		t.Fatalf("trust store: %v %+v", err, res.Verification)
	}
	opts := k.readOptions()
	opts.Trusted = TrustMap{k.signer.Public(): {"bob", "alice"}}
	res, err = Read(bytes.NewReader(data), opts)
	if err != nil || !slices.Equal(res.Verification.Principals, []string{"bob", "alice"}) || res.Verification.Fingerprint != k.signer.Public().Fingerprint() {
		t.Fatalf("trust map: %v %+v", err, res.Verification)
	}
	// Two keys, both trusted; MinSigners 2.
	data = writeBundle(t, testManifest(fixedRecord()), nil, WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer, k.stranger}, NoEncrypt: true})
	opts.Trusted = TrustMap{k.signer.Public(): {"alice"}, k.stranger.Public(): {"mallory"}}
	opts.MinSigners = 2
	res, err = Read(bytes.NewReader(data), opts)
	if err != nil || res.Verification.Signers != 2 || len(res.Verification.Principals) != 2 {
		t.Fatalf("two signers: %v %+v", err, res.Verification)
	}
}

// TestTarLayerIsArchiveTars checks that the archive Write frames by hand
// (headers from archive/tar, contents read straight into the compressor,
// padding, end) is byte for byte what archive/tar writes for the same
// entries, with blobs of sizes that end on a block, inside one, and empty.
func TestTarLayerIsArchiveTars(t *testing.T) {
	var blobs []BlobSource
	for i, size := range []int{0, 1, 511, 512, 513, 3 << 20, 3<<20 + 17} {
		data := bytes.Repeat([]byte{byte('a' + i)}, size)
		blobs = append(blobs, memBlob(fmt.Sprintf("b%d", i), "application/octet-stream", data))
	}
	data := writeBundle(t, testManifest(withAttachments(fixedRecord(), blobs)), blobs, WriteOptions{NoEncrypt: true})
	got := unzst(t, data)
	var entries []tarEntry
	tr := tar.NewReader(bytes.NewReader(got))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, tarEntry{hdr: *entryHeader(hdr.Name, hdr.Size, hdr.ModTime), body: body})
	}
	if len(entries) != 1+len(blobs) {
		t.Fatalf("%d entries, want %d", len(entries), 1+len(blobs))
	}
	if want := tarOf(t, entries...); !bytes.Equal(got, want) {
		t.Fatalf("the tar layer (%d bytes) differs from archive/tar's (%d bytes)", len(got), len(want))
	}
}

// TestWriteChecksACheckedSource: Write takes no hash of a Checked source
// (its reader checks the bytes, as the store's does), but still fails on
// its size, and with its reader's error at the end.
func TestWriteChecksACheckedSource(t *testing.T) {
	content := []byte("hello\n")
	src := func(data []byte, end error) BlobSource {
		return BlobSource{
			Blob: Blob{Name: "f.txt", MediaType: "text/plain", Size: int64(len(content)), SHA256: sha256hex(content)},
			Open: func() (io.ReadCloser, error) {
				return io.NopCloser(io.MultiReader(bytes.NewReader(data), errReader{end})), nil
			},
			Checked: true,
		}
	}
	write := func(s BlobSource) error {
		return Write(io.Discard, testManifest(withAttachments(fixedRecord(), []BlobSource{s})), []BlobSource{s}, WriteOptions{NoEncrypt: true})
	}
	if err := write(src(content, io.EOF)); err != nil {
		t.Fatalf("the bytes as named: %v", err)
	}
	for _, data := range []string{"hello\nmore", "hel"} {
		if err := write(src([]byte(data), io.EOF)); !errors.Is(err, ErrHashMismatch) {
			t.Errorf("%q: %v, want a hash mismatch", data, err)
		}
	}
	bad := errors.New("content does not match its name")
	if err := write(src([]byte("hellO\n"), bad)); !errors.Is(err, bad) {
		t.Errorf("the reader's check failed: %v", err)
	}
}

// errReader returns err at once.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

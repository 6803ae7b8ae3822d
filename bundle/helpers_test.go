package bundle

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	"github.com/klauspost/compress/zstd"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
)

var update = flag.Bool("update", false, "regenerate the test vectors, hostile corpus and golden files under testdata/bundles")

const (
	vecDir  = "../testdata/bundles"
	badDir  = vecDir + "/bad"
	keysDir = vecDir + "/keys"
)

// testKeys are the fixed keys committed under testdata/bundles/keys.
type testKeys struct {
	signer, stranger *crypto.SigningKey
	id, strangerID   *age.X25519Identity
	passphrase       []byte
	trust            *crypto.TrustStore
}

func (k *testKeys) recipient() crypto.RecipientInfo {
	return crypto.RecipientInfo{Recipient: k.id.Recipient(), Canonical: k.id.Recipient().String()}
}

func (k *testKeys) strangerRecipient() crypto.RecipientInfo {
	return crypto.RecipientInfo{Recipient: k.strangerID.Recipient(), Canonical: k.strangerID.Recipient().String()}
}

// readOptions are the default options vectors are read with: the test
// identity, the test passphrase, and a trust store holding the test
// signing key.
func (k *testKeys) readOptions() ReadOptions {
	return ReadOptions{
		Identities: []age.Identity{k.id},
		Passphrase: func() ([]byte, error) { return k.passphrase, nil },
		Trusted:    k.trust,
	}
}

// loadKeys reads the fixed keys; with -update it creates missing ones.
func loadKeys(t testing.TB) *testKeys {
	t.Helper()
	if *update {
		createKeys(t)
	}
	k := &testKeys{}
	var err error
	if k.signer, err = crypto.LoadSigningKey(filepath.Join(keysDir, "signing.key"), nil); err != nil {
		t.Fatal(err)
	}
	if k.stranger, err = crypto.LoadSigningKey(filepath.Join(keysDir, "stranger.key"), nil); err != nil {
		t.Fatal(err)
	}
	k.id = loadAgeIdentity(t, filepath.Join(keysDir, "age.txt"))
	k.strangerID = loadAgeIdentity(t, filepath.Join(keysDir, "stranger-age.txt"))
	pass, err := os.ReadFile(filepath.Join(keysDir, "passphrase.txt"))
	if err != nil {
		t.Fatal(err)
	}
	k.passphrase = bytes.TrimSpace(pass)
	if k.trust, err = crypto.LoadTrustStore(filepath.Join(keysDir, "allowed_signers")); err != nil {
		t.Fatal(err)
	}
	return k
}

func loadAgeIdentity(t testing.TB, path string) *age.X25519Identity {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ids, _, err := crypto.ParseIdentities(data, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ids[0].(*age.X25519Identity)
}

func createKeys(t testing.TB) {
	t.Helper()
	if err := os.MkdirAll(keysDir, 0o755); err != nil {
		t.Fatal(err)
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(keysDir, name))
		return err == nil
	}
	for _, s := range []struct{ file, comment string }{{"signing", "alice@test"}, {"stranger", "mallory@test"}} {
		if exists(s.file + ".key") {
			continue
		}
		k, err := crypto.GenerateSigningKey(s.comment)
		if err != nil {
			t.Fatal(err)
		}
		priv, err := k.MarshalPrivate(nil)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(keysDir, s.file+".key"), priv)
		writeFile(t, filepath.Join(keysDir, s.file+".pub"), []byte(k.Public().AuthorizedLine(s.comment)+"\n"))
	}
	for _, name := range []string{"age", "stranger-age"} {
		if exists(name + ".txt") {
			continue
		}
		id, err := crypto.GenerateAgeIdentity()
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(keysDir, name+".txt"), crypto.MarshalAgeIdentity(id))
		writeFile(t, filepath.Join(keysDir, name+".pub"), []byte(id.Recipient().String()+"\n"))
	}
	if !exists("passphrase.txt") {
		writeFile(t, filepath.Join(keysDir, "passphrase.txt"), []byte("correct horse battery staple\n"))
	}
	if !exists("allowed_signers") {
		pub, err := os.ReadFile(filepath.Join(keysDir, "signing.pub"))
		if err != nil {
			t.Fatal(err)
		}
		k, err := crypto.ParsePublicKey(string(pub))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(keysDir, "allowed_signers"), []byte("alice@test "+k.String()+"\n"))
	}
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	mode := os.FileMode(0o644)
	if strings.HasSuffix(path, ".key") || strings.HasSuffix(path, "age.txt") {
		mode = 0o600
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}

// fixedTime is the creation time of every fixed record and manifest.
var fixedTime = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// fixedRecord is a deterministic record with most fields set.
func fixedRecord() *handoff.Record {
	exit1 := 1
	return &handoff.Record{
		SchemaVersion: handoff.SchemaVersion,
		ID:            "01JGM1B2C3D4E5F6G7H8J9K0MN",
		CreatedAt:     fixedTime,
		Tool:          "claude-code",
		Project: handoff.Project{
			Path: "/home/alice/src/demo", Name: "demo", Kind: "go",
			Remote: "https://example.com/alice/demo.git",
			Checks: []handoff.Check{{Purpose: "test", Command: "go test ./..."}},
		},
		Title:         "Fix the flaky bundle reader test",
		Summary:       "The reader fails on CRLF armor <pasted> & trailing spaces; fixed sniffing, tests pending.",
		Decisions:     []string{"Tolerate leading white space only before armor, never before binary layers."},
		NextSteps:     []string{"Run go test -race ./bundle/", "Update docs/FORMAT.md"},
		OpenQuestions: []string{"Should skippable zstd frames be refused?"},
		Tags:          []string{"bundle", "security"},
		Git: &handoff.GitState{
			Root: "/home/alice/src/demo", Branch: "main",
			Head:  "0123456789abcdef0123456789abcdef01234567",
			Ahead: 1, Staged: []handoff.FileStatus{{Path: "bundle/read.go", Status: "M"}},
		},
		Files: []handoff.FileTouched{{Path: "bundle/read.go", Action: "edited", Edits: 3, Git: "dirty"}},
		Session: &handoff.Session{
			Agent:       "claude-code",
			Requests:    []string{"make the reader tolerate pasted armor"},
			LastFailure: &handoff.Command{Command: "go test ./bundle/", ExitCode: &exit1, Output: "--- FAIL: TestArmor"},
			Todos:       []handoff.Todo{{Content: "write the corpus", Status: "in_progress"}},
		},
		Source: handoff.Source{Kind: handoff.SourceHand, Machine: "laptop"},
	}
}

// memBlob is a blob source over bytes.
func memBlob(name, mediaType string, data []byte) BlobSource {
	sum := sha256.Sum256(data)
	return BlobSource{
		Blob: Blob{Name: name, MediaType: mediaType, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])},
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
	}
}

// withAttachments returns a copy of rec naming blobs as attachments.
func withAttachments(rec *handoff.Record, blobs []BlobSource) *handoff.Record {
	r := *rec
	r.Attachments = nil
	for _, b := range blobs {
		r.Attachments = append(r.Attachments, handoff.Attachment{Name: b.Name, MediaType: b.MediaType, Size: b.Size, SHA256: b.SHA256})
	}
	return &r
}

func testManifest(rec *handoff.Record) *Manifest {
	return &Manifest{
		CreatedAt: fixedTime,
		Producer:  Producer{Name: "session-handoff", Version: "0.0.0-test", Machine: "laptop"},
		Record:    rec,
	}
}

// writeBundle writes a bundle and returns its bytes.
func writeBundle(t testing.TB, m *Manifest, blobs []BlobSource, opts WriteOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, m, blobs, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Low-level builders for hostile bundles.

type tarEntry struct {
	hdr  tar.Header
	body []byte
}

func regEntry(name string, body []byte) tarEntry {
	return tarEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(body)), Mode: 0o644, ModTime: fixedTime, Format: tar.FormatUSTAR}, body: body}
}

func tarOf(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.hdr
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("tar header %q: %v", h.Name, err)
		}
		if len(e.body) > 0 {
			if _, err := tw.Write(e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zst(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(4<<20))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func unzst(t testing.TB, data []byte) []byte {
	t.Helper()
	zr, err := zstd.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func encryptTo(t testing.TB, data []byte, rs ...age.Recipient) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := age.Encrypt(&buf, rs...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decryptWith(t testing.TB, data []byte, ids ...age.Identity) []byte {
	t.Helper()
	r, err := age.Decrypt(bytes.NewReader(data), ids...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// envelopeOf signs payload as payloadType with keys (none: unsigned).
func envelopeOf(t testing.TB, payloadType string, payload []byte, keys ...*crypto.SigningKey) []byte {
	t.Helper()
	var env *crypto.Envelope
	if len(keys) == 0 {
		env = unsignedEnvelope(payload)
		env.PayloadType = payloadType
	} else {
		var err error
		if env, err = crypto.Sign(payloadType, payload, keys...); err != nil {
			t.Fatal(err)
		}
	}
	data, err := env.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// unzstOrNil decompresses up to 16 MiB, or returns nil.
func unzstOrNil(data []byte) []byte {
	zr, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil
	}
	defer zr.Close()
	out, err := io.ReadAll(io.LimitReader(zr, 16<<20))
	if err != nil {
		return nil
	}
	return out
}

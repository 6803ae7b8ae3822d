package bundle

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// run runs a command with stdin and returns its stdout.
func run(t *testing.T, stdin []byte, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v: %s", filepath.Base(name), strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

// TestInteropStockTools checks that the standard tools read our bundles,
// `age -d -i key.txt b.handoff | zstd -d | tar -t`, and that we read a
// bundle encrypted by `age -r`.
func TestInteropStockTools(t *testing.T) {
	ageBin := testsys.LookPath(t, "age")
	zstdBin := testsys.LookPath(t, "zstd")
	tarBin := testsys.LookPath(t, "tar")
	k := loadKeys(t)
	idFile := filepath.Join(keysDir, "age.txt")
	blobs := []BlobSource{
		memBlob("transcript.jsonl", "application/x-ndjson", []byte(`{"a":1}`+"\n")),
		memBlob("changes.diff", "text/x-diff", bytes.Repeat([]byte("+x\n"), 1000)),
	}
	wantList := []string{EnvelopeName, BlobPath(blobs[0].SHA256), BlobPath(blobs[1].SHA256)}

	for _, armored := range []bool{false, true} {
		data := writeBundle(t, testManifest(withAttachments(fixedRecord(), blobs)), blobs, WriteOptions{
			SigningKeys: []*crypto.SigningKey{k.signer},
			Recipients:  []crypto.RecipientInfo{k.recipient()},
			Armor:       armored,
		})
		f := filepath.Join(t.TempDir(), "b.handoff")
		writeFile(t, f, data)
		plain := run(t, nil, ageBin, "-d", "-i", idFile, f)
		tarBytes := run(t, plain, zstdBin, "-d", "-c")
		list := strings.Fields(string(run(t, tarBytes, tarBin, "-t")))
		if !slices.Equal(list, wantList) {
			t.Errorf("armored=%v: tar -t lists %q, want %q", armored, list, wantList)
		}
	}

	// An unencrypted bundle piped through `age -r` (and `age -a -r`)
	// imports, verified.
	plain := writeBundle(t, testManifest(withAttachments(fixedRecord(), blobs)), blobs, WriteOptions{
		SigningKeys: []*crypto.SigningKey{k.signer},
		NoEncrypt:   true,
	})
	for _, args := range [][]string{{"-r", k.id.Recipient().String()}, {"-a", "-r", k.id.Recipient().String()}} {
		enc := run(t, plain, ageBin, args...)
		res, err := Read(bytes.NewReader(enc), k.readOptions())
		if err != nil {
			t.Fatalf("age %v: %v", args, err)
		}
		if res.Verification.Status != StatusVerified || res.Encryption != EncryptRecipients || res.Manifest.Encryption != EncryptNone {
			t.Errorf("age %v: status %s, encryption %s, manifest encryption %s", args, res.Verification.Status, res.Encryption, res.Manifest.Encryption)
		}
		if len(res.Manifest.Blobs) != 2 {
			t.Errorf("age %v: %d blobs", args, len(res.Manifest.Blobs))
		}
	}

	// zstd's own compression of our tar reads too (and its frame may be
	// single-segment or carry a content size).
	tarBytes := unzst(t, plain)
	for _, level := range []string{"-1", "-19"} {
		z := run(t, tarBytes, zstdBin, level, "-c")
		if _, err := Read(bytes.NewReader(z), k.readOptions()); err != nil {
			t.Errorf("zstd %s: %v", level, err)
		}
	}
}

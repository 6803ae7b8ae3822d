package bundle

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/crypto"
)

// Admit sees the verified envelope and parsed manifest before any blob:
// when it refuses, no blob is written, the error is of kind
// ErrNotAdmitted and wraps Admit's, and the Result still names the signer.
func TestAdmitRefusesBeforeAnyBlob(t *testing.T) {
	k := loadKeys(t)
	blob := memBlob("zeros.bin", "application/octet-stream", make([]byte, 8<<20))
	data := writeBundle(t, testManifest(withAttachments(fixedRecord(), []BlobSource{blob})), []BlobSource{blob},
		WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, Recipients: []crypto.RecipientInfo{k.recipient()}})
	no := errors.New("not from this signer")
	opts := k.readOptions()
	opts.BlobDir = filepath.Join(t.TempDir(), "blobs")
	var saw *Result
	opts.Admit = func(r *Result) error {
		if r.Manifest == nil || r.Verification.Status == "" || !r.ForReader {
			t.Errorf("Admit called before the manifest was read: %+v", r)
		}
		saw = r
		return no
	}
	res, err := Read(bytes.NewReader(data), opts)
	if !errors.Is(err, ErrNotAdmitted) || !errors.Is(err, no) {
		t.Fatalf("Read: %v, want ErrNotAdmitted wrapping Admit's error", err)
	}
	if saw == nil || res.Verification.Fingerprint == "" {
		t.Fatalf("the result does not name the signer: %+v", res)
	}
	if entries, err := os.ReadDir(opts.BlobDir); err == nil && len(entries) > 0 {
		t.Errorf("blobs written before Admit refused: %v", entries)
	}
	opts.Admit = func(*Result) error { return nil }
	if res, err := Read(bytes.NewReader(data), opts); err != nil || len(res.BlobFiles) != 1 {
		t.Fatalf("admitted: %v %+v", err, res)
	}
}

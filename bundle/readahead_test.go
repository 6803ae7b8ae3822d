package bundle

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"testing/iotest"

	"github.com/session-handoff/session-handoff/crypto"
)

// TestReadErrorsInStreamOrder: the stages of a read run ahead of each
// other, but the error reported is the first one in the stream, never one
// the outer stage met further on. Here the header of the first blob's
// archive entry is damaged and the input limit is exceeded only at the end
// of the bundle, which is short enough for the outer stage to reach while
// the archive stage is still at that header; a reader that let the outer
// stage's error jump ahead would report the limit.
func TestReadErrorsInStreamOrder(t *testing.T) {
	k := loadKeys(t)
	small := bytes.Repeat([]byte("the first blob, whose entry header is damaged. "), 50)
	big := make([]byte, 600<<10) // incompressible, and within the read-ahead
	rand.Read(big)
	blobs := []BlobSource{memBlob("a.txt", "text/plain", small), memBlob("b.bin", "application/octet-stream", big)}
	m := testManifest(withAttachments(fixedRecord(), blobs))
	good := writeBundle(t, m, blobs, WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, NoEncrypt: true})

	tarBytes := unzst(t, good)
	i := bytes.Index(tarBytes, small)
	if i < 0 {
		t.Fatal("first blob not found in the archive")
	}
	tarBytes[i-512+10] ^= 0x20 // a letter of the entry's name: the header checksum fails
	bad := zst(t, tarBytes)

	opts := k.readOptions()
	opts.Limits.MaxInput = int64(len(bad)) - 1
	for range 20 {
		_, err := Read(bytes.NewReader(bad), opts)
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("Read = %v, want the damaged entry header", err)
		}
	}
	// The same bundle within the limit fails the same way, and the limit
	// alone (intact bundle, limit one byte short) is reported as the limit.
	opts.Limits.MaxInput = 0
	if _, err := Read(bytes.NewReader(bad), opts); !errors.Is(err, ErrMalformed) {
		t.Fatalf("Read = %v, want the damaged entry header", err)
	}
	opts.Limits.MaxInput = int64(len(good)) - 1
	if _, err := Read(bytes.NewReader(good), opts); !errors.Is(err, ErrLimit) {
		t.Fatalf("Read of an intact bundle one byte over the limit = %v, want the input limit", err)
	}
}

// TestReadStopsReadingOnFailure: when a read fails early, Read returns
// without having read the input to its end, and the read-ahead stops.
func TestReadStopsReadingOnFailure(t *testing.T) {
	k := loadKeys(t)
	big := make([]byte, 8<<20)
	rand.Read(big)
	blobs := []BlobSource{memBlob("b.bin", "application/octet-stream", big)}
	m := testManifest(withAttachments(fixedRecord(), blobs))
	good := writeBundle(t, m, blobs, WriteOptions{SigningKeys: []*crypto.SigningKey{k.stranger}, Recipients: []crypto.RecipientInfo{k.recipient()}})
	opts := k.readOptions()
	opts.Limits.MaxEntrySize = 1 << 20
	counted := &countingReader{r: iotest.HalfReader(bytes.NewReader(good))}
	_, err := Read(counted, opts)
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("Read = %v, want the entry size limit", err)
	}
	// The outer stage may finish the read it had under way, and then stops.
	n := counted.n.Load()
	if n >= int64(len(good))/2 {
		t.Fatalf("the reader read %d of %d bytes of a bundle it refused at its first entry header", n, len(good))
	}
}

// countingReader counts the bytes read through it (atomically: after a
// failed Read the outer stage may finish one read).
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestReadFailsWhileInputStalls: a bundle that fails early is reported at
// once even when the input then stalls, as a pipe whose writer stopped
// writing does.
func TestReadFailsWhileInputStalls(t *testing.T) {
	k := loadKeys(t)
	big := make([]byte, 4<<20)
	rand.Read(big)
	blobs := []BlobSource{memBlob("b.bin", "application/octet-stream", big)}
	m := testManifest(withAttachments(fixedRecord(), blobs))
	good := writeBundle(t, m, blobs, WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, NoEncrypt: true})
	pr, pw := io.Pipe()
	defer pr.Close()
	go pw.Write(good[:len(good)/2]) // and then nothing more, and no EOF
	opts := k.readOptions()
	opts.Limits.MaxEntrySize = 1 << 20
	if _, err := Read(pr, opts); !errors.Is(err, ErrLimit) {
		t.Fatalf("Read = %v, want the entry size limit", err)
	}
}

package bundle

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/session-handoff/session-handoff/crypto"
)

// fuzzLimits keep each fuzz input cheap: scrypt at most 2^12, small
// windows and sizes.
var fuzzLimits = Limits{
	MaxInput:            4 << 20,
	MaxDecompressed:     16 << 20,
	MaxWindow:           8 << 20,
	MaxEntries:          64,
	MaxEntrySize:        8 << 20,
	MaxManifest:         1 << 20,
	MaxScryptWorkFactor: 12,
}

// addCorpus seeds f with every vector and hostile bundle of at most 64 KiB
// (large inputs only slow the fuzzer down).
func addCorpus(f *testing.F) {
	for _, pattern := range []string{filepath.Join(vecDir, "*.handoff"), filepath.Join(badDir, "*.handoff")} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil && len(b) <= 64<<10 {
				f.Add(b)
			}
		}
	}
}

// FuzzRead feeds arbitrary input to the whole reader. It must never panic,
// hang or allocate without bound, every error must be one of ours, and a
// success must be a bundle that checks out.
func FuzzRead(f *testing.F) {
	k := loadKeys(f)
	addCorpus(f)
	opts := k.readOptions()
	opts.Limits = fuzzLimits
	// No passphrase: scrypt, even at 2^10, is slow under coverage
	// instrumentation, and what follows it is age's own code.
	opts.Passphrase = nil
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read(bytes.NewReader(data), opts)
		if err != nil {
			var be *Error
			if !errors.As(err, &be) {
				t.Fatalf("error is not a *bundle.Error: %v", err)
			}
			if kindName(err) == "" && !errors.Is(err, ErrIO) {
				t.Fatalf("error of unknown kind: %v", err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "bundle: ") || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("badly formed message %q", msg)
			}
			if !errors.Is(err, ErrWrongRecipient) {
				return
			}
		}
		if res.Manifest == nil || res.Verification.Status == StatusInvalid {
			t.Fatalf("success without a manifest or with an invalid signature: %+v", res.Verification)
		}
		if _, err := ParseManifest(res.ManifestBytes); err != nil {
			t.Fatalf("accepted manifest does not parse: %v", err)
		}
		var total int64
		for _, b := range res.Manifest.Blobs {
			total += b.Size
		}
		if total > fuzzLimits.MaxDecompressed {
			t.Fatalf("accepted %d bytes of blobs over the limit", total)
		}
	})
}

// FuzzReadTar fuzzes the layers under zstd: the input is a tar archive
// that the harness compresses before reading, so that mutations reach the
// archive, envelope and manifest checks instead of dying at zstd's
// checksum.
func FuzzReadTar(f *testing.F) {
	k := loadKeys(f)
	for _, pattern := range []string{filepath.Join(vecDir, "*.handoff"), filepath.Join(badDir, "*.handoff")} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 && len(b) >= 4 && string(b[:4]) == zstdMagic {
				// Large archives (bombs) only slow the fuzzer down.
				if tb := unzstOrNil(b); tb != nil && len(tb) <= 64<<10 {
					f.Add(tb)
				}
			}
		}
	}
	opts := k.readOptions()
	opts.Limits = fuzzLimits
	// One encoder for the whole run: making one per input (with its window
	// and goroutines) was most of the time of an execution.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(4<<20), zstd.WithEncoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read(bytes.NewReader(enc.EncodeAll(data, nil)), opts)
		if err != nil {
			if kindName(err) == "" {
				t.Fatalf("error of unknown kind: %v", err)
			}
			return
		}
		if res.Manifest == nil || res.Verification.Status == StatusInvalid {
			t.Fatalf("success without a manifest or with an invalid signature")
		}
	})
}

// FuzzManifest feeds arbitrary bytes to the manifest decoder. What it
// accepts must survive re-encoding: encode, parse again, encode again, same
// bytes.
func FuzzManifest(f *testing.F) {
	k := loadKeys(f)
	if b, err := MarshalManifest(goldenManifest(k)); err == nil {
		f.Add(b)
	}
	if b, err := os.ReadFile(filepath.Join(vecDir, "golden", "manifest.json")); err == nil {
		f.Add(b)
		f.Add(bytes.Replace(b, []byte(`"version":1`), []byte(`"version":2`), 1))
		f.Add(bytes.Replace(b, []byte(`"title":`), []byte(`"title":"x","title":`), 1))
	}
	// The payloads of the corpus' envelopes.
	files, _ := filepath.Glob(filepath.Join(badDir, "manifest-*.handoff"))
	for _, p := range files {
		if payload := corpusPayload(p); payload != nil {
			f.Add(payload)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupportedVersion) {
				t.Fatalf("error of unexpected kind: %v", err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("multi-line message %q", err)
			}
			return
		}
		b1, err := MarshalManifest(m)
		if err != nil {
			t.Fatalf("accepted manifest does not encode: %v", err)
		}
		m2, err := ParseManifest(b1)
		if err != nil {
			t.Fatalf("re-encoded manifest does not parse: %v\n%s", err, b1)
		}
		b2, err := MarshalManifest(m2)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", b1, b2)
		}
	})
}

// corpusPayload extracts the manifest bytes from an unencrypted corpus
// bundle, or nil.
func corpusPayload(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 4 || string(data[:4]) != zstdMagic {
		return nil
	}
	tb := unzstOrNil(data)
	if tb == nil {
		return nil
	}
	i := bytes.Index(tb, []byte(`{"payloadType"`))
	if i < 0 {
		return nil
	}
	j := bytes.IndexByte(tb[i:], 0)
	if j < 0 {
		return nil
	}
	env, err := crypto.ParseEnvelope(tb[i:i+j], 0)
	if err != nil {
		return nil
	}
	p, _ := env.DecodedPayload()
	return p
}

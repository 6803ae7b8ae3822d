package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/maphash"
	"io"
	"time"

	"filippo.io/age"
	"filippo.io/age/armor"
	"github.com/klauspost/compress/zstd"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/ctxio"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// BlobSource is one attachment to write: its description (size and hash
// already known, from a first pass such as FileBlob) and a way to open its
// bytes. Write streams the bytes and fails if they no longer match.
type BlobSource struct {
	Blob
	// Open returns the blob's bytes. Write closes what it returns.
	Open func() (io.ReadCloser, error)
	// Fingerprint, when not zero, is the sum NewFingerprinter gave for the
	// bytes in the first pass. Write then checks the bytes it streams
	// against it instead of computing their SHA-256 a second time, at a
	// seventh of the cost. Readers check the SHA-256 either way.
	Fingerprint uint64
	// Checked says that the reader Open returns checks the bytes it reads
	// against SHA256 itself, and fails at their end (instead of io.EOF)
	// when they differ, as store.Store.OpenBlob's reader does: Write then
	// takes no hash of them a second time. It still checks their size.
	Checked bool
}

// fingerprintSeed keys every Fingerprinter of this process.
var fingerprintSeed = maphash.MakeSeed()

// NewFingerprinter returns the hash BlobSource.Fingerprint is made with: a
// fast keyed hash (maphash) whose key is random to this process, so that
// someone who changes a file between the two passes cannot make the change
// go unnoticed. It says whether bytes changed, nothing more.
func NewFingerprinter() hash.Hash64 {
	h := &maphash.Hash{}
	h.SetSeed(fingerprintSeed)
	return h
}

// FileBlob hashes the regular file at path (the first pass) and returns a
// source that reopens it when the bundle is written. Both passes read
// through OpenFile.
func FileBlob(ctx context.Context, path, name, mediaType string) (BlobSource, error) {
	f, _, err := OpenFile(ctx, path)
	if err != nil {
		return BlobSource{}, err
	}
	defer f.Close()
	src, err := FirstPass(func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
	if err != nil {
		return BlobSource{}, err
	}
	src.Name, src.MediaType = name, mediaType
	src.Open = func() (io.ReadCloser, error) {
		f, _, err := OpenFile(ctx, path)
		return f, err
	}
	return src, nil
}

// FirstPass runs fill, which writes a blob's bytes, and returns the
// source's size, SHA-256 and fingerprint; the caller adds the name, the
// media type and Open. The hashing runs in a goroutine of its own, beside
// whatever fill does (reading, redacting). The writer fill gets copies what
// Write gives it; it also has the WriteShared and Wait of
// redact.SharedWriter, with which a redactor hands over its own buffers
// instead.
func FirstPass(fill func(io.Writer) error) (BlobSource, error) {
	h, fp := sha256.New(), NewFingerprinter()
	var size int64
	aw := newAsyncWriter(writerFunc(func(p []byte) (int, error) {
		h.Write(p)
		fp.Write(p)
		size += int64(len(p))
		return len(p), nil
	}), 1<<20)
	err := fill(aw)
	if cerr := aw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return BlobSource{}, err
	}
	return BlobSource{
		Blob:        Blob{Size: size, SHA256: hex.EncodeToString(h.Sum(nil))},
		Fingerprint: fp.Sum64(),
	}, nil
}

// writerFunc is a function as an io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// OpenFile opens the file at path for one pass of an export and returns
// it with its size. Only a regular file will do: a device such as
// /dev/zero never ends, and a pipe cannot be read twice. Reading fails
// once ctx is done (an interrupt), and when the file turns out longer or
// shorter than it was when opened.
func OpenFile(ctx context.Context, path string) (io.ReadCloser, int64, error) {
	f, size, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, 0, err
	}
	r := &exactReader{r: f, left: size, path: path}
	return struct {
		io.Reader
		io.Closer
	}{ctxio.Reader(ctx, r), f}, size, nil
}

// exactReader reads exactly the size a file had when it was opened.
type exactReader struct {
	r    io.Reader
	left int64
	path string
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left == 0 {
		var one [1]byte
		if n, _ := e.r.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%s grew while it was read", e.path)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		return n, fmt.Errorf("%s shrank while it was read", e.path)
	}
	return n, err
}

// WriteOptions say how a bundle is signed, compressed, encrypted and
// armored.
type WriteOptions struct {
	// SigningKeys sign the manifest. With none the envelope is written
	// with an empty signature list: an unsigned bundle. The first key is
	// named in the manifest's signer hint.
	SigningKeys []*crypto.SigningKey
	// SignerName is the name put in the signer hint (by default the first
	// key's comment).
	SignerName string
	// Recipients encrypt the bundle to age recipients; their canonical
	// strings are hashed into the signed manifest.
	Recipients []crypto.RecipientInfo
	// Passphrase encrypts the bundle to a passphrase (scrypt) instead. It
	// cannot be combined with Recipients.
	Passphrase []byte
	// NoEncrypt must be set to write a bundle without encryption: an
	// unencrypted bundle is never written by accident.
	NoEncrypt bool
	// Armor writes ASCII armor: age's own when encrypted (so `age -d` reads
	// it), ours (ArmorHeader) when not.
	Armor bool
	// Level is the zstd level; zero means the writer's default,
	// zstd.SpeedFastest (see encoderLevel).
	Level zstd.EncoderLevel
}

// Write writes a bundle of m and blobs to w. It fills in the manifest's
// format, version, bundle id (if empty), creation time (if zero), signer
// hint, encryption, recipients and blob list (from blobs, in order), signs
// the manifest, then streams: armor → age → one zstd frame → tar with
// bundle.dsse.json first and each blob at blobs/sha256/<hex>. Memory use
// does not grow with the size of the blobs.
//
// If Write fails, what it wrote to w is not a valid bundle and must be
// discarded.
func Write(w io.Writer, m *Manifest, blobs []BlobSource, opts WriteOptions) error {
	recips, payload, err := prepare(m, blobs, opts)
	if err != nil {
		return err
	}
	enc := m.Encryption
	envelope, err := signManifest(payload, opts.SigningKeys)
	if err != nil {
		return err
	}

	// Layers, outside in. Each closer is closed inner-first.
	var closers []io.Closer
	out := w
	if opts.Armor {
		var aw io.WriteCloser
		if enc == EncryptNone {
			aw = newArmorWriter(out)
		} else {
			aw = armor.NewWriter(out)
		}
		closers = append(closers, aw)
		out = aw
	}
	if enc != EncryptNone {
		ew, err := age.Encrypt(out, recips...)
		if err != nil {
			return fmt.Errorf("bundle: encrypt: %w", err)
		}
		closers = append(closers, ew)
		out = ew
	}
	level := opts.Level
	if level == 0 {
		level = encoderLevel
	}
	// One frame, compressed by two workers in parallel jobs.
	zw, err := zstd.NewWriter(out, zstd.WithEncoderLevel(level), zstd.WithWindowSize(encoderWindow),
		zstd.WithEncoderConcurrency(2), zstd.WithConcurrentBlocks(true))
	if err != nil {
		return fmt.Errorf("bundle: compress: %w", err)
	}
	closers = append(closers, zw)

	if err := writeEntry(zw, EnvelopeName, int64(len(envelope)), m.CreatedAt); err != nil {
		zw.Close()
		return err
	}
	if err := writeContent(zw, bytes.NewReader(envelope), int64(len(envelope))); err != nil {
		zw.Close()
		return fmt.Errorf("bundle: write envelope: %w", err)
	}
	for i, b := range blobs {
		if err := writeBlob(zw, b, m.CreatedAt); err != nil {
			zw.Close()
			return fmt.Errorf("bundle: blob %d (%q): %w", i, handoff.Shorten(b.Name, 60), err)
		}
	}
	// The end of the archive: two zero blocks, as archive/tar's Close
	// writes them.
	if _, err := zw.Write(make([]byte, 2*tarBlock)); err != nil {
		zw.Close()
		return fmt.Errorf("bundle: finish tar: %w", err)
	}
	for i := len(closers) - 1; i >= 0; i-- {
		if err := closers[i].Close(); err != nil {
			return fmt.Errorf("bundle: finish: %w", err)
		}
	}
	return nil
}

// prepare fills in the manifest as Write describes, checks it as a reader
// will, and returns the age recipients and the manifest bytes to sign.
func prepare(m *Manifest, blobs []BlobSource, opts WriteOptions) ([]age.Recipient, []byte, error) {
	if m == nil || m.Record == nil {
		return nil, nil, errors.New("bundle: write: manifest has no record")
	}
	enc, recips, err := encryptionOf(opts)
	if err != nil {
		return nil, nil, err
	}
	m.Format, m.Version = Format, Version
	if m.BundleID == "" {
		if m.BundleID, err = NewBundleID(); err != nil {
			return nil, nil, err
		}
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now()
	}
	m.CreatedAt = m.CreatedAt.UTC().Truncate(time.Second)
	m.Encryption = enc
	m.Recipients = nil
	for _, r := range opts.Recipients {
		m.Recipients = append(m.Recipients, crypto.RecipientHash(r.Canonical))
	}
	m.Signer = nil
	if len(opts.SigningKeys) > 0 {
		k := opts.SigningKeys[0]
		if k == nil {
			return nil, nil, errors.New("bundle: write: nil signing key")
		}
		name := opts.SignerName
		if name == "" {
			name = k.Comment
		}
		m.Signer = &Signer{Key: k.Public().String(), Fingerprint: k.Public().Fingerprint(), Name: name}
	}
	m.Blobs = make([]Blob, len(blobs))
	for i, b := range blobs {
		if b.Open == nil {
			return nil, nil, fmt.Errorf("bundle: write: blob %d (%q) has no Open function", i, b.Name)
		}
		m.Blobs[i] = b.Blob
	}
	payload, err := MarshalManifest(m)
	if err != nil {
		return nil, nil, err
	}
	// Check what we are about to sign exactly as a reader will.
	if _, err := ParseManifest(payload); err != nil {
		return nil, nil, err
	}
	return recips, payload, nil
}

// encoderLevel is the zstd level the writer uses unless told otherwise:
// the fastest. On two cores, with the attachment hashed and redacted in a
// first pass, zstd's default level (about the reference tool's -3) made
// export take 1.2 to 1.4 times as long as tar | zstd -3 | age and 1.5 to
// 1.6 times its CPU time; the fastest level takes 0.9 to 0.95 times as
// long and 1.1 to 1.3 times the CPU, for a bundle 5 to 7% larger
// (bench/README.md has the figures of each alternative measured).
const encoderLevel = zstd.SpeedFastest

// encoderWindow is the zstd window the writer uses, whatever the level.
// The encoder compresses in parallel jobs of four windows each (each job
// but the first starts from the end of the one before), so the window sets
// the memory export uses: 512 KiB keeps a 256 MiB export at 41 to 45
// MiB of resident memory (1 MiB takes it to 59 to 63 MiB), for a bundle
// 0.4 to 4% larger than an 8 MiB window would give. Readers accept
// windows up to their limit (64 MiB).
const encoderWindow = 512 << 10

// encryptionOf checks the encryption options and returns the manifest's
// encryption kind and the age recipients.
func encryptionOf(opts WriteOptions) (Encryption, []age.Recipient, error) {
	switch {
	case len(opts.Recipients) > 0 && len(opts.Passphrase) > 0:
		return "", nil, errors.New("bundle: write: recipients and a passphrase cannot be combined")
	case (len(opts.Recipients) > 0 || len(opts.Passphrase) > 0) && opts.NoEncrypt:
		return "", nil, errors.New("bundle: write: no-encrypt given together with recipients or a passphrase")
	case len(opts.Recipients) > 0:
		rs := make([]age.Recipient, len(opts.Recipients))
		seen := map[string]bool{}
		for i, r := range opts.Recipients {
			if r.Recipient == nil || r.Canonical == "" {
				return "", nil, fmt.Errorf("bundle: write: recipient %d is incomplete", i+1)
			}
			if seen[r.Canonical] {
				return "", nil, fmt.Errorf("bundle: write: recipient %d is given twice", i+1)
			}
			seen[r.Canonical] = true
			rs[i] = r.Recipient
		}
		return EncryptRecipients, rs, nil
	case len(opts.Passphrase) > 0:
		r, err := crypto.NewScryptRecipient(opts.Passphrase)
		if err != nil {
			return "", nil, fmt.Errorf("bundle: write: %w", err)
		}
		return EncryptPassphrase, []age.Recipient{r}, nil
	case opts.NoEncrypt:
		return EncryptNone, nil, nil
	default:
		return "", nil, errors.New("bundle: write: no recipients and no passphrase: set NoEncrypt to write an unencrypted bundle")
	}
}

// signManifest wraps payload in a DSSE envelope signed by keys; with no
// keys the envelope has an empty signature list.
func signManifest(payload []byte, keys []*crypto.SigningKey) ([]byte, error) {
	var env *crypto.Envelope
	if len(keys) == 0 {
		env = unsignedEnvelope(payload)
	} else {
		var err error
		if env, err = crypto.Sign(PayloadType, payload, keys...); err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
	}
	data, err := env.Marshal()
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return data, nil
}

func unsignedEnvelope(payload []byte) *crypto.Envelope {
	return &crypto.Envelope{
		PayloadType: PayloadType,
		Payload:     base64Std(payload),
		Signatures:  []crypto.Signature{},
	}
}

// The archive is written as archive/tar writes it (same headers, padding
// and end), but its entries' contents go to the compressor without a copy
// through archive/tar's Writer: the compressor's ReadFrom reads a blob from
// its source straight into the buffer it compresses from.

// tarBlock is the tar format's block size.
const tarBlock = 512

// entryHeader is the header of a regular file entry. Entries carry no
// user or group names and a fixed mode; Go picks ustar, or PAX only for a
// size ustar cannot hold.
func entryHeader(name string, size int64, mtime time.Time) *tar.Header {
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     name,
		Size:     size,
		Mode:     0o644,
		ModTime:  mtime,
		Format:   tar.FormatUSTAR,
	}
	if size >= 1<<33 {
		hdr.Format = tar.FormatPAX
	}
	return hdr
}

// writeEntry writes the header of a regular file entry (entryHeader), as
// archive/tar formats it.
func writeEntry(w io.Writer, name string, size int64, mtime time.Time) error {
	// A tar writer of its own formats the header alone; it is never
	// closed, so it writes nothing else.
	var buf bytes.Buffer
	if err := tar.NewWriter(&buf).WriteHeader(entryHeader(name, size, mtime)); err != nil {
		return fmt.Errorf("bundle: tar header for %s: %w", name, err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("bundle: tar header for %s: %w", name, err)
	}
	return nil
}

// writeContent writes an entry's size bytes from r to zw, with the zero
// padding that completes its last block. It fails if r ends early; it does
// not read past size.
func writeContent(zw *zstd.Encoder, r io.Reader, size int64) error {
	n, err := zw.ReadFrom(io.LimitReader(r, size))
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("%w: it shrank from %d to %d bytes since it was hashed", ErrHashMismatch, size, n)
	}
	if pad := -size & (tarBlock - 1); pad > 0 {
		if _, err := zw.Write(make([]byte, pad)); err != nil {
			return err
		}
	}
	return nil
}

// hashingReader passes what it reads through h.
type hashingReader struct {
	r io.Reader
	h hash.Hash
}

func (t hashingReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.h.Write(p[:n])
	return n, err
}

// writeBlob streams one blob into the archive and checks that its bytes
// still have the size and hash (or fingerprint) the first pass found, or,
// for a Checked source, that its reader found them whole. The hash is
// taken of the bytes in the compressor's buffer, the very bytes it
// compresses (a Checked source's reader hashes them as it reads them
// there).
func writeBlob(zw *zstd.Encoder, b BlobSource, mtime time.Time) error {
	if !isHex64(b.SHA256) {
		return fmt.Errorf("sha256 %q is not 64 lowercase hex digits", handoff.Shorten(b.SHA256, 80))
	}
	rc, err := b.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := writeEntry(zw, BlobPath(b.SHA256), b.Size, mtime); err != nil {
		return err
	}
	var h hash.Hash
	var fp hash.Hash64
	switch {
	case b.Fingerprint != 0:
		fp = NewFingerprinter()
		h = fp
	case !b.Checked:
		h = sha256.New()
	}
	var r io.Reader = rc
	if h != nil {
		r = hashingReader{rc, h}
	}
	if err := writeContent(zw, r, b.Size); err != nil {
		return err
	}
	// The source's end: it must end here, and a reader that checks what
	// it read (a redaction replay, a Checked source) says so at its end.
	var one [1]byte
	k, err := io.ReadFull(rc, one[:])
	if k > 0 {
		return fmt.Errorf("%w: it grew since it was hashed", ErrHashMismatch)
	}
	if err != io.EOF {
		return err
	}
	changed := fp != nil && fp.Sum64() != b.Fingerprint || fp == nil && h != nil && hex.EncodeToString(h.Sum(nil)) != b.SHA256
	if changed {
		return fmt.Errorf("%w: it changed since it was hashed", ErrHashMismatch)
	}
	return nil
}

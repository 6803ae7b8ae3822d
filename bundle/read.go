package bundle

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"
	"github.com/klauspost/compress/zstd"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/schema"
)

// Status is the outcome of signature verification. The values are those of
// handoff.Provenance.Verification, plus invalid.
type Status string

// Verification statuses.
const (
	// StatusVerified: a key of the caller's trust store signed the manifest.
	StatusVerified Status = "verified"
	// StatusUntrusted: the signature is valid, but by a key the caller does
	// not trust (the key named in the manifest's signer hint).
	StatusUntrusted Status = "untrusted"
	// StatusUnsigned: the envelope carries no signature.
	StatusUnsigned Status = "unsigned"
	// StatusInvalid: there are signatures and none verifies. Read returns
	// ErrSignature with it.
	StatusInvalid Status = "invalid"
)

// Verification reports what the signatures prove.
type Verification struct {
	Status Status `json:"status"`
	// Principals are the trust store's names for the keys that verified
	// (StatusVerified only).
	Principals []string `json:"principals,omitempty"`
	// Fingerprint is the SHA256 fingerprint of the first key with a valid
	// signature; Fingerprints lists all of them, each once.
	Fingerprint  string   `json:"fingerprint,omitempty"`
	Fingerprints []string `json:"fingerprints,omitempty"`
	// Key is the first valid signer's public key, "ssh-ed25519 AAAA…".
	Key string `json:"key,omitempty"`
	// Signers counts distinct keys with a valid signature; Signatures
	// counts the signatures in the envelope.
	Signers    int `json:"signers"`
	Signatures int `json:"signatures"`
	// Reason explains StatusInvalid.
	Reason string `json:"reason,omitempty"`
}

// TrustedKeys is the caller's trust store: the keys whose signatures make a
// bundle verified, and the principals bound to each. *crypto.TrustStore
// implements it. Trust is always the caller's data, never the bundle's.
type TrustedKeys interface {
	Keys() []crypto.PublicKey
	Lookup(key crypto.PublicKey) (principals []string, ok bool)
}

// TrustMap is a TrustedKeys held in memory, for tests and simple callers.
type TrustMap map[crypto.PublicKey][]string

// Keys implements TrustedKeys.
func (m TrustMap) Keys() []crypto.PublicKey {
	keys := make([]crypto.PublicKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b crypto.PublicKey) int { return strings.Compare(a.String(), b.String()) })
	return keys
}

// Lookup implements TrustedKeys.
func (m TrustMap) Lookup(k crypto.PublicKey) ([]string, bool) {
	p, ok := m[k]
	return p, ok
}

// ReadOptions say how to open and check a bundle.
type ReadOptions struct {
	// Identities decrypt recipient-encrypted bundles.
	Identities []age.Identity
	// Recipients are the canonical recipient strings of the reader's own
	// identities (as crypto.ParseIdentities returns them). A bundle whose
	// manifest lists recipients must list one of these, or Read returns
	// ErrWrongRecipient. X25519 and hybrid identities need not be listed:
	// their recipients are derived.
	Recipients []string
	// Passphrase is called, at most once, only for a passphrase bundle and
	// only after its scrypt work factor passed the limit.
	Passphrase func() ([]byte, error)
	// Trusted is the trust store. Nil trusts nobody.
	Trusted TrustedKeys
	// MinSigners is the number of distinct trusted keys that must have
	// signed for StatusVerified (default 1). A key counts once however
	// many signatures, under whatever key ids, it made.
	MinSigners int
	// Limits bound the work; zero fields take the defaults.
	Limits Limits
	// Context, when set, interrupts a passphrase bundle's key derivation
	// (scrypt, which cannot stop itself): once it is done, Read returns an
	// ErrIO error wrapping its error at once. The input should stop with
	// it too (internal/ctxio.Reader).
	Context context.Context
	// BlobDir, if set, receives each verified blob as a file named by its
	// hex hash; it is made (mode 0700, in a parent that exists) at the
	// first blob if it does not exist, so that a bundle without blobs
	// costs no directory. A blob is streamed to a temporary file there
	// and renamed only after its size and hash check. Move them into a
	// store only after Read succeeds; on failure Read removes what it
	// created, and the caller should remove the directory. Empty BlobDir
	// hashes the blobs and discards them (verify, inspect).
	BlobDir string
	// Admit, when set, is asked once the envelope's signatures are
	// verified and the manifest is parsed (Result.Verification, Manifest
	// and ForReader are filled in), before any blob is read, decompressed
	// or written: an error stops the read there, and Read returns an
	// *Error of kind ErrNotAdmitted wrapping it. A receive refuses a
	// stranger's bundle this way at the cost of its first entry.
	Admit func(*Result) error
}

// Result is what Read learned about a bundle.
type Result struct {
	// Manifest is the parsed manifest; nil if reading stopped before it
	// was parsed (an invalid signature, for one).
	Manifest *Manifest
	// ManifestBytes are the exact signed bytes of the manifest.
	ManifestBytes []byte
	// Envelope is the raw bundle.dsse.json.
	Envelope     []byte
	Verification Verification
	// Encryption is the encryption actually met (the manifest's own
	// Encryption field says what the writer intended).
	Encryption Encryption
	// Armored reports whether the input was ASCII armored.
	Armored bool
	// ForReader is false when the manifest lists recipients and none of
	// the reader's recipients is among them; Read then returns
	// ErrWrongRecipient along with this Result.
	ForReader bool
	// BlobFiles are the paths in BlobDir of the verified blobs, in
	// manifest order (empty without BlobDir).
	BlobFiles []string
}

// EncryptionMismatch reports the encryption the signed manifest claims
// and the one the outer layer used, and whether they differ: a bundle a
// recipient decrypted and encrypted again to someone else (or to a
// passphrase), or one stripped of its encryption, shows here. Both are
// empty before the manifest was read.
func (r *Result) EncryptionMismatch() (claimed, used Encryption, differ bool) {
	if r == nil || r.Manifest == nil {
		return "", "", false
	}
	return r.Manifest.Encryption, r.Encryption, r.Manifest.Encryption != r.Encryption
}

// RequireVerified returns nil for a verified bundle and an error wrapping
// ErrUntrusted, ErrUnsigned or ErrSignature otherwise: the import policy.
func (r *Result) RequireVerified() error {
	v := r.Verification
	switch v.Status {
	case StatusVerified:
		return nil
	case StatusUntrusted:
		return errorf(ErrUntrusted, "valid signature by untrusted key %s", v.Fingerprint)
	case StatusUnsigned:
		return errorf(ErrUnsigned, "not signed")
	default:
		return errorf(ErrSignature, "invalid signature: %s", v.Reason)
	}
}

// tarPadding bounds the zero bytes accepted after the tar end marker: tar
// pads archives to 20 blocks.
const tarPadding = 20 * 512

// Read reads a bundle from r, checking everything before it reports
// success, in this order:
//
//  1. the outer layer by its first bytes: age (binary or armored), our
//     armor, or a bare zstd stream; decryption with opts' identities or, for
//     a passphrase bundle, the passphrase (work factor checked first);
//  2. the first tar entry must be a regular file named bundle.dsse.json of
//     at most Limits.MaxManifest bytes, holding a strictly parsed DSSE
//     envelope of our payload type (a newer manifest version fails with
//     ErrUnsupportedVersion);
//  3. signatures over the PAE of the exact payload bytes, before anything
//     parses the payload (see verifyEnvelope);
//  4. the manifest: strict JSON, known version, schema, record rules;
//     then ReadOptions.Admit, when set, before any blob;
//  5. every following entry: a regular file blobs/sha256/<hex> listed in
//     the manifest, in manifest order, each once, of exactly the listed size
//     and hash; nothing missing;
//  6. the ends of the tar archive, the zstd stream, the age payload and the
//     armor, with nothing after them;
//  7. the recipient list: if the manifest names recipients and the reader
//     is not among them, Read returns the complete Result together with
//     ErrWrongRecipient, so import can refuse while inspect shows it.
//
// Every failure returns an *Error whose Kind is one of the sentinels. With
// an error other than ErrWrongRecipient, the Result may be partial and must
// not be acted on, and one read of r that was under way may still finish
// after Read returned (r is read ahead in a goroutine).
func Read(r io.Reader, opts ReadOptions) (*Result, error) {
	rd := &reader{opts: opts, lim: opts.Limits.withDefaults(), st: &state{}, res: &Result{}}
	err := rd.read(r)
	if err != nil && !errors.Is(err, ErrWrongRecipient) {
		for _, f := range rd.created {
			os.Remove(f)
		}
		rd.res.BlobFiles = nil
	}
	// Stop the stages. After a success they have ended already. After a
	// failure the outer one may be blocked reading r (a pipe whose writer
	// stalls): it is told to stop but not waited for, so a failure is
	// reported at once; it ends after that one read.
	for _, ra := range rd.stages {
		ra.signal()
	}
	for i, ra := range rd.stages {
		if i > 0 || err == nil || errors.Is(err, ErrWrongRecipient) {
			ra.wait()
		}
	}
	if rd.zr != nil {
		rd.zr.Close()
	}
	return rd.res, err
}

type reader struct {
	opts    ReadOptions
	lim     Limits
	st      *state // the errors of the stage read() works in
	res     *Result
	zr      *zstd.Decoder
	stages  []*readAhead
	created []string
}

// Each stage of a read reads ahead this many buffers of this size: enough
// to keep the next stage busy, little enough not to matter for memory.
const (
	readAheadSize  = 256 << 10
	readAheadDepth = 3
)

func (rd *reader) read(r io.Reader) error {
	lim := rd.lim
	in := &tap{
		r: &limitCounter{r: r, limit: lim.MaxInput, st: rd.st, err: func() *Error {
			return limitError("input", lim.MaxInput, "bytes", flagMaxInput)
		}},
		st: rd.st, classify: classifyInput,
	}
	br := bufio.NewReaderSize(in, 64<<10)
	ly, err := sniff(br)
	if ly == layerArmor || ly == layerAgeArmor || ly == layerText {
		// Armor is text, and may come pasted: unwrap it (see paste.go).
		br = bufio.NewReaderSize(&tap{r: newPasteReader(br), st: rd.st, classify: classifyArmor}, 64<<10)
		ly, err = sniff(br)
	}
	if err != nil {
		return rd.fail(err)
	}
	var plain io.Reader
	switch ly {
	case layerZstd:
		rd.res.Encryption = EncryptNone
		plain = br
	case layerArmor:
		rd.res.Encryption, rd.res.Armored = EncryptNone, true
		plain = &tap{r: newArmorReader(br), st: rd.st, classify: classifyArmor}
	case layerAge, layerAgeArmor:
		var src io.Reader = br
		if ly == layerAgeArmor {
			rd.res.Armored = true
			src = &tap{r: armor.NewReader(br), st: rd.st, classify: classifyArmor}
		}
		pi := &passphraseIdentity{ask: rd.opts.Passphrase, maxWF: lim.MaxScryptWorkFactor, ctx: rd.opts.Context}
		ids := append(slices.Clone(rd.opts.Identities), age.Identity(pi))
		dr, err := age.Decrypt(src, ids...)
		if err != nil {
			if rd.st.err != nil {
				return rd.st.err
			}
			return classifyDecrypt(err, pi, rd.res.Armored)
		}
		rd.res.Encryption = EncryptRecipients
		if pi.isScrypt {
			rd.res.Encryption = EncryptPassphrase
		}
		plain = &tap{r: dr, st: rd.st, classify: classifyAgePayload}
	}

	// Inside the outer layers there must be a zstd stream, and only one
	// layer of each kind: no armor or age inside.
	var magic [4]byte
	if _, err := io.ReadFull(plain, magic[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return rd.fail(errorf(ErrMalformed, "no zstd stream inside the %s layer", layerName(ly)))
		}
		return rd.fail(err)
	}
	if string(magic[:]) != zstdMagic {
		return rd.fail(errorf(ErrMalformed, "the %s layer does not contain a zstd stream", layerName(ly)))
	}
	// From here three stages work at once, each a goroutine reading ahead
	// of the next: the outer layers (input, armor, age); decompression;
	// and the archive (manifest, blobs, hashes, files) here. Each stage
	// records its errors in a state of its own, handed on in stream order
	// (see readAhead).
	outer := newReadAhead(plain, &state{}, readAheadSize, readAheadDepth)
	rd.stages = append(rd.stages, outer)
	fs := newFrameScanner(io.MultiReader(strings.NewReader(zstdMagic), outer), outer.to)
	zr, err := zstd.NewReader(fs,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(uint64(lim.MaxWindow)),
		zstd.WithDecoderMaxMemory(uint64(lim.MaxWindow)),
	)
	if err != nil {
		return fmt.Errorf("bundle: zstd decoder: %w", err)
	}
	rd.zr = zr
	dc := &limitCounter{
		r:     &tap{r: zr, st: outer.to, classify: lim.classifyZstd},
		limit: lim.MaxDecompressed, st: outer.to,
		err: func() *Error {
			return limitError("decompressed size", lim.MaxDecompressed, "bytes", flagMaxDecompressed)
		},
	}
	rd.st = &state{}
	inner := newReadAhead(dc, rd.st, readAheadSize, readAheadDepth)
	rd.stages = append(rd.stages, inner)
	tr := tar.NewReader(inner)

	if err := rd.readManifest(tr); err != nil {
		return err
	}
	if rd.opts.Admit != nil {
		if err := rd.opts.Admit(rd.res); err != nil {
			return wrapf(ErrNotAdmitted, err, "not read past its manifest")
		}
	}
	if err := rd.readBlobs(tr); err != nil {
		return err
	}
	if err := rd.readEnd(inner, fs, br); err != nil {
		return err
	}
	if !rd.res.ForReader {
		return errorf(ErrWrongRecipient, "signed for other recipients: none of this reader's recipients is in the bundle's signed recipient list")
	}
	return nil
}

func layerName(l layer) string {
	switch l {
	case layerAge, layerAgeArmor:
		return "age"
	case layerArmor:
		return "armor"
	}
	return "outer"
}

// fail returns the root cause if a lower layer recorded one.
func (rd *reader) fail(err error) error {
	if rd.st.err != nil {
		return rd.st.err
	}
	return err
}

// tarErr classifies an error met while reading the archive.
func (rd *reader) tarErr(err error, what string) error {
	if rd.st.err != nil {
		return rd.st.err
	}
	var be *Error
	if errors.As(err, &be) {
		return be
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errorf(ErrMalformed, "%s: archive is truncated", what)
	}
	return wrapf(ErrMalformed, err, "%s", what)
}

func (rd *reader) readManifest(tr *tar.Reader) error {
	lim := rd.lim
	hdr, err := tr.Next()
	if err == io.EOF {
		return rd.fail(errorf(ErrMalformed, "archive has no entries"))
	}
	if err != nil {
		return rd.tarErr(err, "tar: first entry")
	}
	if err := checkHeader(hdr); err != nil {
		return err
	}
	if hdr.Name != EnvelopeName {
		return errorf(ErrMalformed, "first archive entry is %q, want %s", handoff.Shorten(hdr.Name, 80), EnvelopeName)
	}
	if hdr.Size > lim.MaxManifest {
		return limitError("manifest envelope "+EnvelopeName, lim.MaxManifest, "bytes", flagMaxManifest)
	}
	data := make([]byte, hdr.Size)
	if _, err := io.ReadFull(tr, data); err != nil {
		return rd.tarErr(err, EnvelopeName)
	}
	rd.res.Envelope = data

	env, err := crypto.ParseEnvelope(data, lim.MaxManifest)
	if err != nil {
		return wrapf(ErrMalformed, err, "%s", EnvelopeName)
	}
	if env.PayloadType != PayloadType {
		if v, ok := payloadVersion(env.PayloadType); ok {
			return errorf(ErrUnsupportedVersion, "manifest version %s is not supported (this program reads version%s %s)",
				handoff.Shorten(v, 20), plural(len(KnownVersions)), knownVersions())
		}
		return errorf(ErrMalformed, "%s: payload type %q is not %s", EnvelopeName, handoff.Shorten(env.PayloadType, 80), PayloadType)
	}
	payload, err := env.DecodedPayload()
	if err != nil {
		return wrapf(ErrMalformed, err, "%s", EnvelopeName)
	}

	rd.res.Verification = verifyEnvelope(env, payload, rd.opts)
	if rd.res.Verification.Status == StatusInvalid {
		return errorf(ErrSignature, "invalid signature: %s", rd.res.Verification.Reason)
	}

	m, err := ParseManifest(payload)
	if err != nil {
		return err
	}
	rd.res.Manifest, rd.res.ManifestBytes = m, payload

	// Refuse early what the limits would refuse later.
	if len(m.Blobs)+1 > lim.MaxEntries {
		return limitError("number of archive entries", int64(lim.MaxEntries), "entries", flagMaxEntries)
	}
	var total int64
	for _, b := range m.Blobs {
		if b.Size > lim.MaxEntrySize {
			return limitError(fmt.Sprintf("blob %s size", short(b.SHA256)), lim.MaxEntrySize, "bytes", flagMaxEntrySize)
		}
		total += b.Size
		if total > lim.MaxDecompressed {
			return limitError("decompressed size", lim.MaxDecompressed, "bytes", flagMaxDecompressed)
		}
	}
	rd.res.ForReader = forReader(m, rd.opts)
	return nil
}

// payloadVersion extracts N from our payload type family
// "application/vnd.session-handoff.manifest.vN+json".
func payloadVersion(t string) (string, bool) {
	v, ok := strings.CutPrefix(t, payloadTypePrefix)
	if !ok {
		return "", false
	}
	v, ok = strings.CutSuffix(v, "+json")
	return v, ok && isDigits(v)
}

// verifyEnvelope checks the signatures over PAE(payloadType, payload).
//
// The trust store is tried first, over the exact payload bytes, before
// anything parses them. Only when no trusted key verifies does it look
// inside the (still unverified) payload, and then only for the signer hint:
// the payload is checked to be strict JSON (it is already bounded by
// Limits.MaxManifest, as the envelope is), signer.key is extracted, and the
// signatures are checked against that key. A match proves the bundle is
// intact and was signed by whoever holds that key, so verify can say
// "valid signature, untrusted key X"; the key is never trusted for being
// there. The full manifest is parsed only after this returns a status
// other than invalid.
func verifyEnvelope(env *crypto.Envelope, payload []byte, opts ReadOptions) Verification {
	var trusted []crypto.PublicKey
	if opts.Trusted != nil {
		trusted = opts.Trusted.Keys()
	}
	vr := crypto.Verify(env, trusted)
	if vr.Status == crypto.StatusInvalid && vr.Signatures > 0 {
		if hint, ok := signerHint(payload); ok {
			vr = crypto.VerifyWithClaimedKeys(env, trusted, []crypto.PublicKey{hint})
		}
	}
	v := Verification{Signatures: vr.Signatures, Signers: len(vr.Trusted) + len(vr.Untrusted)}
	for _, s := range append(slices.Clone(vr.Trusted), vr.Untrusted...) {
		v.Fingerprints = append(v.Fingerprints, s.Fingerprint)
		if v.Key == "" {
			v.Key, v.Fingerprint = s.Key.String(), s.Fingerprint
		}
	}
	switch vr.Status {
	case crypto.StatusVerified:
		v.Status = StatusVerified
		for _, s := range vr.Trusted {
			p, _ := opts.Trusted.Lookup(s.Key)
			for _, name := range p {
				if !slices.Contains(v.Principals, name) {
					v.Principals = append(v.Principals, name)
				}
			}
		}
		need := max(opts.MinSigners, 1)
		if len(vr.Trusted) < need {
			v.Status = StatusInvalid
			v.Reason = fmt.Sprintf("%d distinct trusted key%s signed, %d required", len(vr.Trusted), plural(len(vr.Trusted)), need)
		}
	case crypto.StatusUntrusted:
		v.Status = StatusUntrusted
	case crypto.StatusUnsigned:
		v.Status = StatusUnsigned
	default:
		v.Status = StatusInvalid
		v.Reason = vr.Reason
		if v.Reason == "" {
			v.Reason = "no signature verifies"
		}
		if vr.Malformed < vr.Signatures {
			v.Reason = "no signature verifies under a trusted key or the manifest's signer key"
		}
	}
	return v
}

// signerHint extracts signer.key from an unverified payload: strict JSON,
// and nothing else of it is used.
func signerHint(payload []byte) (crypto.PublicKey, bool) {
	var zero crypto.PublicKey
	if schema.StrictCheck(payload) != nil {
		return zero, false
	}
	var p struct {
		Signer *struct {
			Key string `json:"key"`
		} `json:"signer"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Signer == nil || p.Signer.Key == "" {
		return zero, false
	}
	k, err := crypto.ParsePublicKey(p.Signer.Key)
	if err != nil {
		return zero, false
	}
	return k, true
}

// forReader reports whether the reader is among the manifest's recipients
// (always true unless the manifest's encryption is "recipients").
func forReader(m *Manifest, opts ReadOptions) bool {
	if m.Encryption != EncryptRecipients {
		return true
	}
	mine := map[string]bool{}
	for _, s := range opts.Recipients {
		mine[crypto.RecipientHash(s)] = true
	}
	for _, id := range opts.Identities {
		switch id := id.(type) {
		case *age.X25519Identity:
			mine[crypto.RecipientHash(id.Recipient().String())] = true
		case *age.HybridIdentity:
			mine[crypto.RecipientHash(id.Recipient().String())] = true
		}
	}
	for _, h := range m.Recipients {
		if mine[h] {
			return true
		}
	}
	return false
}

// checkHeader accepts only plain regular files: no links, directories,
// devices, global or sparse headers, and no PAX records beyond those that
// describe a plain file.
func checkHeader(hdr *tar.Header) error {
	name := handoff.Shorten(hdr.Name, 80)
	if hdr.Typeflag != tar.TypeReg {
		return errorf(ErrMalformed, "archive entry %q is %s, not a regular file", name, typeName(hdr.Typeflag))
	}
	if hdr.Linkname != "" {
		return errorf(ErrMalformed, "archive entry %q has a link target", name)
	}
	for k := range hdr.PAXRecords {
		switch k {
		case "path", "size", "mtime", "atime", "ctime", "uid", "gid", "uname", "gname":
		default:
			return errorf(ErrMalformed, "archive entry %q has unsupported pax record %q", name, handoff.Shorten(k, 40))
		}
	}
	if hdr.Size < 0 {
		return errorf(ErrMalformed, "archive entry %q has a negative size", name)
	}
	return nil
}

func typeName(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "a symbolic link"
	case tar.TypeLink:
		return "a hard link"
	case tar.TypeDir:
		return "a directory"
	case tar.TypeChar, tar.TypeBlock:
		return "a device"
	case tar.TypeFifo:
		return "a fifo"
	case tar.TypeXGlobalHeader:
		return "a pax global header"
	case tar.TypeGNUSparse:
		return "a sparse file"
	}
	return "of type " + strconv.QuoteRune(rune(t))
}

func (rd *reader) readBlobs(tr *tar.Reader) error {
	m, lim := rd.res.Manifest, rd.lim
	index := make(map[string]int, len(m.Blobs))
	for i, b := range m.Blobs {
		index[b.SHA256] = i
	}
	seen := make(map[string]bool, len(m.Blobs))
	h := sha256.New()
	buf := make([]byte, 64<<10)
	entries, next := 1, 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return rd.tarErr(err, "tar: entry after "+entryName(m, next))
		}
		entries++
		if entries > lim.MaxEntries {
			return limitError("number of archive entries", int64(lim.MaxEntries), "entries", flagMaxEntries)
		}
		if err := checkHeader(hdr); err != nil {
			return err
		}
		name := hdr.Name
		sum, ok := strings.CutPrefix(name, BlobPrefix)
		if !ok || !isHex64(sum) {
			if strings.HasPrefix(name, "/") || slices.Contains(strings.Split(name, "/"), "..") {
				return errorf(ErrMalformed, "archive entry %q has an unsafe path", handoff.Shorten(name, 80))
			}
			return errorf(ErrMalformed, "unexpected archive entry %q", handoff.Shorten(name, 80))
		}
		i, listed := index[sum]
		switch {
		case !listed:
			return errorf(ErrMalformed, "archive entry %s is not listed in the manifest", name)
		case seen[sum]:
			return errorf(ErrMalformed, "duplicate archive entry %s", name)
		case i != next:
			return errorf(ErrMalformed, "archive entry %s is out of order: manifest position %d, archive position %d", name, i+1, next+1)
		}
		seen[sum] = true
		b := m.Blobs[i]
		if hdr.Size != b.Size {
			return errorf(ErrHashMismatch, "blob %s: archive entry has %d bytes, the manifest says %d", short(sum), hdr.Size, b.Size)
		}
		if err := rd.copyBlob(tr, b, h, buf); err != nil {
			return err
		}
		next++
	}
	if next < len(m.Blobs) {
		b := m.Blobs[next]
		return errorf(ErrMalformed, "blob %s (%q) is listed in the manifest but missing from the archive", short(b.SHA256), handoff.Shorten(b.Name, 60))
	}
	return nil
}

func entryName(m *Manifest, next int) string {
	if next == 0 {
		return EnvelopeName
	}
	return BlobPath(short(m.Blobs[next-1].SHA256))
}

// short abbreviates a hex hash for messages.
func short(sum string) string { return handoff.Shorten(sum, 12) }

// copyBlob streams one blob to the sink, checking its hash; with BlobDir the
// file gets its final name only once the hash matched.
func (rd *reader) copyBlob(tr *tar.Reader, b Blob, h interface {
	io.Writer
	Sum([]byte) []byte
	Reset()
}, buf []byte) error {
	h.Reset()
	var (
		f   *os.File
		aw  *asyncWriter
		dst io.Writer = h
		err error
	)
	if rd.opts.BlobDir != "" {
		if err := os.Mkdir(rd.opts.BlobDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return wrapf(ErrIO, err, "blob dir")
		}
		f, err = os.CreateTemp(rd.opts.BlobDir, ".tmp-blob-*")
		if err != nil {
			return wrapf(ErrIO, err, "blob dir")
		}
		rd.created = append(rd.created, f.Name())
		defer f.Close()
		// The file is written by a goroutine of its own, beside the
		// hashing; Close before the sync.
		aw = newAsyncWriter(safefile.NewWritebackWriter(f), 256<<10)
		defer aw.Close()
		dst = io.MultiWriter(aw, h)
	}
	n, err := io.CopyBuffer(dst, onlyReader{tr}, buf)
	if aw != nil {
		if cerr := aw.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		if rd.st.err != nil || !isWriteErr(err, f) {
			return rd.tarErr(err, "blob "+short(b.SHA256))
		}
		return wrapf(ErrIO, err, "write blob %s", short(b.SHA256))
	}
	if n != b.Size {
		return errorf(ErrMalformed, "blob %s: archive is truncated", short(b.SHA256))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != b.SHA256 {
		return errorf(ErrHashMismatch, "blob %s (%q): content does not match the manifest's sha256", short(b.SHA256), handoff.Shorten(b.Name, 60))
	}
	if f == nil {
		return nil
	}
	if err := f.Sync(); err != nil {
		return wrapf(ErrIO, err, "sync blob %s", short(b.SHA256))
	}
	if err := f.Close(); err != nil {
		return wrapf(ErrIO, err, "close blob %s", short(b.SHA256))
	}
	final := filepath.Join(rd.opts.BlobDir, b.SHA256)
	if err := os.Rename(f.Name(), final); err != nil {
		return wrapf(ErrIO, err, "rename blob %s", short(b.SHA256))
	}
	rd.created[len(rd.created)-1] = final
	rd.res.BlobFiles = append(rd.res.BlobFiles, final)
	return nil
}

// onlyReader hides the WriterTo of its reader so CopyBuffer uses our buffer.
type onlyReader struct{ io.Reader }

// isWriteErr reports whether err came from writing the blob file.
func isWriteErr(err error, f *os.File) bool {
	var pe *os.PathError
	return f != nil && errors.As(err, &pe)
}

// readEnd checks that the archive, the zstd stream and every outer layer
// end together, with nothing but tar's zero padding after the end marker.
// Once the decompressed stream has ended, its stage has stopped reading,
// so the frame scanner and then the input are the caller's to read.
func (rd *reader) readEnd(dc io.Reader, fs *frameScanner, br *bufio.Reader) error {
	rest, err := io.ReadAll(io.LimitReader(dc, tarPadding+1))
	if err != nil {
		return rd.tarErr(err, "end of archive")
	}
	if len(rest) > tarPadding || strings.Trim(string(rest), "\x00") != "" {
		return errorf(ErrMalformed, "trailing data after the tar archive")
	}
	// Whatever the decoder did not read after the frame: the scanner
	// names it, and reading to the end lets the outer stage finish (age
	// and armor check their own ends).
	if _, err := io.Copy(io.Discard, fs); err != nil {
		return rd.fail(err)
	}
	// The input must be exhausted too.
	if _, err := br.ReadByte(); err != io.EOF {
		if err == nil {
			return errorf(ErrMalformed, "trailing data after the bundle")
		}
		return rd.fail(wrapf(ErrIO, err, "read input"))
	}
	return nil
}

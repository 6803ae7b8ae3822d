package bundle

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/schema"
)

// Format is the value of a manifest's format field.
const Format = "session-handoff-bundle"

// Version is the manifest version this package writes and the newest it reads.
const Version = 1

// KnownVersions lists the manifest versions this package reads.
var KnownVersions = []int{1}

// PayloadType is the DSSE payload type of a version 1 manifest. It names
// the manifest version, so a reader can refuse a newer bundle before it
// parses anything signed.
const PayloadType = "application/vnd.session-handoff.manifest.v1+json"

const payloadTypePrefix = "application/vnd.session-handoff.manifest.v"

// Archive entry names.
const (
	EnvelopeName = "bundle.dsse.json"
	BlobPrefix   = "blobs/sha256/"
)

// Encryption is how a bundle is encrypted.
type Encryption string

// Encryption kinds.
const (
	EncryptRecipients Encryption = "recipients"
	EncryptPassphrase Encryption = "passphrase"
	EncryptNone       Encryption = "none"
)

// MaxBlobName is the longest blob display name, in bytes.
const MaxBlobName = 255

// Manifest is the signed payload of a bundle: what it is, who made it, for
// whom, the handoff record, and the blobs that follow it in the archive.
// Its JSON form is described by schema/manifest.schema.json.
type Manifest struct {
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	BundleID  string    `json:"bundle_id"`
	CreatedAt time.Time `json:"created_at"`
	Producer  Producer  `json:"producer"`
	// Signer is a hint naming the key that signed the bundle, so that a
	// verifier can say "valid signature from untrusted key X". It is never
	// trusted because it is here.
	Signer     *Signer    `json:"signer,omitempty"`
	Encryption Encryption `json:"encryption"`
	// Recipients are crypto.RecipientHash values of the canonical recipient
	// strings the bundle was encrypted to; empty unless Encryption is
	// EncryptRecipients.
	Recipients []string        `json:"recipients,omitempty"`
	Record     *handoff.Record `json:"record"`
	Blobs      []Blob          `json:"blobs"`
}

// Producer names the program that wrote a bundle.
type Producer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Machine string `json:"machine,omitempty"`
}

// Signer is the signer hint of a manifest.
type Signer struct {
	// Key is the public key as one "ssh-ed25519 AAAA…" line, without a comment.
	Key         string `json:"key"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Name        string `json:"name,omitempty"`
}

// Blob describes one attachment. Name is for display only: the archive
// path of a blob is always derived from its hash (BlobPath).
type Blob struct {
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
}

// BlobPath is the archive path of the blob with the given hash.
func BlobPath(sha256hex string) string { return BlobPrefix + sha256hex }

// NewBundleID returns a fresh random bundle id: 32 lowercase hex digits.
func NewBundleID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("bundle: read random bits for bundle id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// MarshalManifest encodes m as the exact bytes that are signed: compact
// JSON, no HTML escaping, no trailing newline. The encoding is
// deterministic for a given manifest.
func MarshalManifest(m *Manifest) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	mm := *m
	if mm.Blobs == nil {
		mm.Blobs = []Blob{}
	}
	mm.CreatedAt = mm.CreatedAt.UTC()
	if err := enc.Encode(&mm); err != nil {
		return nil, fmt.Errorf("bundle: encode manifest: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ParseManifest decodes and checks manifest bytes: strict JSON (valid
// UTF-8, no duplicate keys, no trailing data), a known version, the
// manifest schema (which includes the handoff record schema), the record's
// own rules, and the rules the schema cannot express (blob name length in
// bytes, unique blob hashes, record attachments present among the blobs).
// It does not look at signatures: callers verify those over the exact bytes
// first. Errors wrap ErrMalformed or ErrUnsupportedVersion.
func ParseManifest(data []byte) (*Manifest, error) {
	if err := schema.StrictCheck(data); err != nil {
		return nil, wrapf(ErrMalformed, err, "manifest")
	}
	// A newer manifest cannot be expected to match this version's schema,
	// so the version is probed before the schema is applied.
	var probe struct {
		Format  json.RawMessage `json:"format"`
		Version json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, wrapf(ErrMalformed, err, "manifest")
	}
	var format string
	if json.Unmarshal(probe.Format, &format) != nil || format != Format {
		return nil, errorf(ErrMalformed, "manifest: format is not %q", Format)
	}
	if len(probe.Version) == 0 {
		return nil, errorf(ErrMalformed, "manifest: version is missing")
	}
	var version json.Number
	dec := json.NewDecoder(bytes.NewReader(probe.Version))
	dec.UseNumber()
	if c := probe.Version[0]; c != '-' && (c < '0' || c > '9') || dec.Decode(&version) != nil {
		return nil, errorf(ErrMalformed, "manifest: version is not a number")
	}
	if v, err := version.Int64(); err != nil || v != Version {
		return nil, errorf(ErrUnsupportedVersion, "manifest version %s is not supported (this program reads version%s %s)",
			handoff.Shorten(version.String(), 20), plural(len(KnownVersions)), knownVersions())
	}
	var m Manifest
	if err := schema.Decode(schema.Manifest, data, &m); err != nil {
		return nil, wrapf(ErrMalformed, err, "manifest")
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return &m, nil
}

// check applies the rules the schema cannot express.
func (m *Manifest) check() error {
	if m.Record == nil {
		return errorf(ErrMalformed, "manifest: record is missing")
	}
	if errs := m.Record.Check(); len(errs) > 0 {
		return wrapf(ErrMalformed, errors.Join(errs...), "manifest: record")
	}
	seen := make(map[string]bool, len(m.Blobs))
	for i, b := range m.Blobs {
		if err := checkBlobName(b.Name); err != nil {
			return errorf(ErrMalformed, "manifest: blobs/%d: %v", i, err)
		}
		if seen[b.SHA256] {
			return errorf(ErrMalformed, "manifest: blobs/%d: sha256 %s is listed twice", i, b.SHA256)
		}
		seen[b.SHA256] = true
	}
	attached := make(map[string]bool, len(m.Record.Attachments))
	for i, a := range m.Record.Attachments {
		if !seen[a.SHA256] {
			return errorf(ErrMalformed, "manifest: record attachment %d (sha256 %s) is not among the bundle's blobs", i, a.SHA256)
		}
		attached[a.SHA256] = true
	}
	// A blob no attachment names would be stored and never shown, nor
	// removed with its record: a way to fill the reader's disk unseen.
	for i, b := range m.Blobs {
		if !attached[b.SHA256] {
			return errorf(ErrMalformed, "manifest: blobs/%d (sha256 %s) is not an attachment of the record", i, b.SHA256)
		}
	}
	return nil
}

// checkBlobName checks a blob display name: 1 to 255 bytes of valid UTF-8,
// no slash, no control characters.
func checkBlobName(name string) error {
	switch {
	case name == "":
		return errors.New("name is empty")
	case len(name) > MaxBlobName:
		return fmt.Errorf("name is %d bytes, more than %d", len(name), MaxBlobName)
	case !utf8.ValidString(name):
		return errors.New("name is not valid UTF-8")
	case strings.ContainsRune(name, '/'):
		return errors.New("name contains a slash")
	}
	for _, r := range name {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return errors.New("name contains a control character")
		}
	}
	return nil
}

// isHex64 reports whether s is 64 lowercase hex digits.
func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func knownVersions() string {
	s := make([]string, len(KnownVersions))
	for i, v := range KnownVersions {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

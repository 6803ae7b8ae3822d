package crypto

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strings"

	"filippo.io/edwards25519"
	"golang.org/x/crypto/ssh"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// KeyTypeEd25519 is the OpenSSH name of the only signing key type this
// package uses.
const KeyTypeEd25519 = "ssh-ed25519"

// MaxPublicKeyLineSize bounds the length of a public key line accepted by
// [ParsePublicKey] and [ParsePublicKeyLine].
const MaxPublicKeyLineSize = 8 << 10

// PublicKey is an Ed25519 public key. It is comparable, so it can be used
// with == and as a map key. The zero value is not a valid key.
type PublicKey struct {
	k [ed25519.PublicKeySize]byte
}

// NewPublicKey wraps an Ed25519 public key. It rejects keys of the wrong
// length, encodings that are not points on the curve, and small-order points,
// for which a signature proves nothing.
func NewPublicKey(k ed25519.PublicKey) (PublicKey, error) {
	var p PublicKey
	if len(k) != ed25519.PublicKeySize {
		return p, fmt.Errorf("ed25519 public key has %d bytes, want %d", len(k), ed25519.PublicKeySize)
	}
	pt, err := new(edwards25519.Point).SetBytes(k)
	if err != nil {
		return p, fmt.Errorf("ed25519 public key is not a valid curve point")
	}
	if new(edwards25519.Point).MultByCofactor(pt).Equal(edwards25519.NewIdentityPoint()) == 1 {
		return p, fmt.Errorf("ed25519 public key is a small-order point")
	}
	copy(p.k[:], k)
	return p, nil
}

// IsZero reports whether p is the zero value, which is not a valid key.
func (p PublicKey) IsZero() bool {
	return p == PublicKey{}
}

// Equal reports whether p and q are the same key.
func (p PublicKey) Equal(q PublicKey) bool {
	return p == q
}

// Ed25519 returns a copy of the raw key.
func (p PublicKey) Ed25519() ed25519.PublicKey {
	return ed25519.PublicKey(append([]byte(nil), p.k[:]...))
}

// SSH returns the key as an ssh.PublicKey.
func (p PublicKey) SSH() ssh.PublicKey {
	k, err := ssh.NewPublicKey(p.Ed25519())
	if err != nil {
		// Unreachable: ssh.NewPublicKey accepts every 32-byte ed25519 key.
		panic("crypto: ssh.NewPublicKey rejected an ed25519 key: " + err.Error())
	}
	return k
}

// Fingerprint returns the OpenSSH SHA256 fingerprint of the key, as printed
// by ssh-keygen -l: "SHA256:" followed by unpadded base64.
func (p PublicKey) Fingerprint() string {
	return ssh.FingerprintSHA256(p.SSH())
}

// String returns the key as "ssh-ed25519 <base64>", without a comment.
func (p PublicKey) String() string {
	return p.AuthorizedLine("")
}

// AuthorizedLine returns the key in authorized_keys form, "ssh-ed25519
// AAAA… comment", without a trailing newline. Line breaks in comment are
// replaced by spaces so that the result is always a single line.
func (p PublicKey) AuthorizedLine(comment string) string {
	s := KeyTypeEd25519 + " " + base64.StdEncoding.EncodeToString(p.SSH().Marshal())
	comment = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == 0 {
			return ' '
		}
		return r
	}, comment))
	if comment != "" {
		s += " " + comment
	}
	return s
}

// MarshalText implements encoding.TextMarshaler as "ssh-ed25519 <base64>".
func (p PublicKey) MarshalText() ([]byte, error) {
	if p.IsZero() {
		return nil, fmt.Errorf("marshal public key: zero key")
	}
	return []byte(p.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler. It accepts exactly the
// form MarshalText produces: a key type and a key, without a comment.
func (p *PublicKey) UnmarshalText(b []byte) error {
	k, comment, err := ParsePublicKeyLine(string(b))
	if err != nil {
		return err
	}
	if comment != "" || string(b) != k.String() {
		return fmt.Errorf("public key is not in canonical form %q", "ssh-ed25519 <base64>")
	}
	*p = k
	return nil
}

// ParsePublicKey parses one public key line in authorized_keys style,
// "ssh-ed25519 AAAA… [comment]". Only ssh-ed25519 keys are accepted; key
// options before the type are not.
func ParsePublicKey(line string) (PublicKey, error) {
	k, _, err := ParsePublicKeyLine(line)
	return k, err
}

// ParsePublicKeyLine is like [ParsePublicKey] and also returns the comment,
// with surrounding whitespace removed.
func ParsePublicKeyLine(line string) (PublicKey, string, error) {
	var zero PublicKey
	if len(line) > MaxPublicKeyLineSize {
		return zero, "", fmt.Errorf("public key line is longer than %d bytes", MaxPublicKeyLineSize)
	}
	line = strings.TrimSpace(line)
	typ, rest := cutField(line)
	if typ == "" {
		return zero, "", fmt.Errorf("empty public key line")
	}
	if typ != KeyTypeEd25519 {
		return zero, "", fmt.Errorf("%w %s: only %s keys can sign", ErrUnsupportedKeyType, untrusted.Quote(typ, maxQuoted), KeyTypeEd25519)
	}
	b64, comment := cutField(rest)
	if b64 == "" {
		return zero, "", fmt.Errorf("public key line has no key after %s", typ)
	}
	k, err := parseEd25519Blob(b64)
	if err != nil {
		return zero, "", err
	}
	return k, strings.TrimSpace(comment), nil
}

// parseEd25519Blob decodes the base64 wire form of an ssh-ed25519 key.
func parseEd25519Blob(b64 string) (PublicKey, error) {
	var zero PublicKey
	blob, err := decodeBase64Strict(b64)
	if err != nil {
		return zero, fmt.Errorf("public key is not valid base64")
	}
	pk, err := ssh.ParsePublicKey(blob)
	if err != nil {
		return zero, fmt.Errorf("parse public key: %w", err)
	}
	if pk.Type() != KeyTypeEd25519 {
		return zero, fmt.Errorf("public key labelled %s contains a %s key", KeyTypeEd25519, untrusted.Quote(pk.Type(), maxQuoted))
	}
	cpk, ok := pk.(ssh.CryptoPublicKey)
	if !ok {
		return zero, fmt.Errorf("public key has no usable form")
	}
	ek, ok := cpk.CryptoPublicKey().(ed25519.PublicKey)
	if !ok {
		return zero, fmt.Errorf("public key is not an ed25519 key")
	}
	return NewPublicKey(ek)
}

// decodeBase64Strict decodes standard padded base64 and rejects every other
// spelling of the same bytes: missing padding, non-zero trailing bits, and
// the line breaks the standard decoder silently skips.
func decodeBase64Strict(s string) ([]byte, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, err
	}
	if base64.StdEncoding.EncodeToString(b) != s {
		return nil, fmt.Errorf("non-canonical base64")
	}
	return b, nil
}

// cutField splits s at the first run of spaces or tabs, returning the first
// field and the rest with leading blanks removed.
func cutField(s string) (field, rest string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeft(s[i:], " \t")
}

// maxQuoted bounds the input an error quotes (untrusted.Quote), so that
// hostile input cannot make errors arbitrarily long.
const maxQuoted = 64

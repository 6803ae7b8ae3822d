package crypto

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/ssh"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// MaxPrivateKeySize bounds the size of a signing key file.
const MaxPrivateKeySize = 16 << 10

// MaxCommentSize bounds the comment of a signing key.
const MaxCommentSize = 1024

// SigningKey is an Ed25519 private key used to sign bundles, with the
// comment stored alongside it in OpenSSH files. Its String and GoString
// methods print only the fingerprint, so that formatting a key never leaks
// the private half.
type SigningKey struct {
	priv ed25519.PrivateKey
	// Comment is the key's comment, typically a name or an email address.
	Comment string
}

// GenerateSigningKey creates a new random Ed25519 signing key.
func GenerateSigningKey(comment string) (*SigningKey, error) {
	if err := checkComment(comment); err != nil {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate ed25519 key: %w", err)
	}
	return &SigningKey{priv: priv, Comment: comment}, nil
}

// NewSigningKeyFromSeed builds a signing key from a 32-byte Ed25519 seed. It
// is meant for tests and for deriving fixed keys; use [GenerateSigningKey]
// for real keys.
func NewSigningKeyFromSeed(seed []byte, comment string) (*SigningKey, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("ed25519 seed has %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	if err := checkComment(comment); err != nil {
		return nil, err
	}
	return &SigningKey{priv: ed25519.NewKeyFromSeed(seed), Comment: comment}, nil
}

func checkComment(c string) error {
	if len(c) > MaxCommentSize {
		return fmt.Errorf("key comment is longer than %d bytes", MaxCommentSize)
	}
	if !utf8.ValidString(c) {
		return fmt.Errorf("key comment is not valid UTF-8")
	}
	for _, r := range c {
		if unicode.IsControl(r) {
			return fmt.Errorf("key comment contains control character %U", r)
		}
	}
	return nil
}

// Public returns the public half of the key, or the zero key if k is not a
// valid key.
func (k SigningKey) Public() PublicKey {
	var p PublicKey
	if len(k.priv) != ed25519.PrivateKeySize {
		return p
	}
	copy(p.k[:], k.priv[ed25519.SeedSize:])
	return p
}

// String returns a description of the key that never includes private
// material.
// It has a value receiver so that formatting a SigningKey value, not only a
// pointer, is covered too.
func (k SigningKey) String() string {
	if len(k.priv) != ed25519.PrivateKeySize {
		return "SigningKey(invalid)"
	}
	return "SigningKey(" + k.Public().Fingerprint() + ")"
}

// GoString is like String, so that %#v cannot leak the private key either.
func (k SigningKey) GoString() string { return k.String() }

func (k *SigningKey) valid() error {
	if k == nil || len(k.priv) != ed25519.PrivateKeySize {
		return fmt.Errorf("invalid signing key")
	}
	return nil
}

// sign signs msg with the key.
func (k *SigningKey) sign(msg []byte) []byte {
	return ed25519.Sign(k.priv, msg)
}

// MarshalPrivate encodes the key in the OpenSSH private key format
// ("-----BEGIN OPENSSH PRIVATE KEY-----"), encrypted with bcrypt-pbkdf and
// AES-256-CTR when passphrase is not empty, as ssh-keygen does.
func (k *SigningKey) MarshalPrivate(passphrase []byte) ([]byte, error) {
	if err := k.valid(); err != nil {
		return nil, err
	}
	var (
		block *pem.Block
		err   error
	)
	if len(passphrase) == 0 {
		block, err = ssh.MarshalPrivateKey(k.priv, k.Comment)
	} else {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(k.priv, k.Comment, passphrase)
	}
	if err != nil {
		return nil, fmt.Errorf("marshal signing key: %w", err)
	}
	return pem.EncodeToMemory(block), nil
}

// ParseSigningKey parses an OpenSSH private key holding an Ed25519 key.
// passphrase is called only if the key is encrypted; it may be nil, in which
// case an encrypted key yields an error wrapping [ErrPassphraseRequired]. A
// wrong passphrase yields an error wrapping [ErrWrongPassphrase]. Keys of
// other types are refused with an error naming the type.
func ParseSigningKey(data []byte, passphrase func() ([]byte, error)) (*SigningKey, error) {
	if len(data) > MaxPrivateKeySize {
		return nil, fmt.Errorf("signing key: %w: over %d bytes", safefile.ErrTooLarge, MaxPrivateKeySize)
	}
	raw, err := ssh.ParseRawPrivateKey(data)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		if missing.PublicKey != nil && missing.PublicKey.Type() != KeyTypeEd25519 {
			return nil, unsupportedSigningKey(missing.PublicKey.Type())
		}
		if passphrase == nil {
			return nil, fmt.Errorf("signing key is encrypted: %w", ErrPassphraseRequired)
		}
		pass, perr := passphrase()
		if perr != nil {
			return nil, fmt.Errorf("read passphrase for signing key: %w", perr)
		}
		raw, err = ssh.ParseRawPrivateKeyWithPassphrase(data, pass)
		if errors.Is(err, x509.IncorrectPasswordError) {
			return nil, fmt.Errorf("%w for signing key", ErrWrongPassphrase)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("parse signing key: %w", err)
	}
	var priv ed25519.PrivateKey
	switch key := raw.(type) {
	case *ed25519.PrivateKey:
		priv = *key
	case ed25519.PrivateKey:
		priv = key
	case *rsa.PrivateKey:
		return nil, unsupportedSigningKey("ssh-rsa")
	case *ecdsa.PrivateKey:
		return nil, unsupportedSigningKey("ecdsa")
	default:
		return nil, unsupportedSigningKey(fmt.Sprintf("%T", raw))
	}
	priv, err = checkEd25519Private(priv)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	return &SigningKey{priv: priv, Comment: openSSHComment(data)}, nil
}

func unsupportedSigningKey(typ string) error {
	return fmt.Errorf("signing key: %w %s: only %s keys can sign", ErrUnsupportedKeyType, typ, KeyTypeEd25519)
}

// checkEd25519Private checks that the public half stored in an Ed25519
// private key is the one its seed derives, and returns a fresh copy. A key
// file that pairs a seed with someone else's public key would otherwise make
// signatures that verify under neither.
func checkEd25519Private(priv ed25519.PrivateKey) (ed25519.PrivateKey, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("ed25519 private key has the wrong length")
	}
	fresh := ed25519.NewKeyFromSeed(priv.Seed())
	if subtle.ConstantTimeCompare(fresh, priv) != 1 {
		return nil, fmt.Errorf("ed25519 private key is corrupt: its public half does not match its seed")
	}
	if _, err := NewPublicKey(fresh.Public().(ed25519.PublicKey)); err != nil {
		return nil, err
	}
	return fresh, nil
}

// openSSHComment extracts the comment of an unencrypted OpenSSH private key.
// Encrypted keys keep their comment inside the encrypted part, where
// golang.org/x/crypto/ssh does not expose it; for those, and for anything
// unexpected, it returns "".
func openSSHComment(data []byte) string {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "OPENSSH PRIVATE KEY" {
		return ""
	}
	const magic = "openssh-key-v1\x00"
	if !bytes.HasPrefix(block.Bytes, []byte(magic)) {
		return ""
	}
	var outer struct {
		CipherName   string
		KdfName      string
		KdfOpts      string
		NumKeys      uint32
		PubKey       []byte
		PrivKeyBlock []byte
	}
	if err := ssh.Unmarshal(block.Bytes[len(magic):], &outer); err != nil || outer.CipherName != "none" {
		return ""
	}
	var inner struct {
		Check1  uint32
		Check2  uint32
		Keytype string
		Rest    []byte `ssh:"rest"`
	}
	if err := ssh.Unmarshal(outer.PrivKeyBlock, &inner); err != nil || inner.Keytype != KeyTypeEd25519 {
		return ""
	}
	var key struct {
		Pub     []byte
		Priv    []byte
		Comment string
		Pad     []byte `ssh:"rest"`
	}
	if err := ssh.Unmarshal(inner.Rest, &key); err != nil || checkComment(key.Comment) != nil {
		return ""
	}
	return key.Comment
}

// LoadSigningKey reads and parses the signing key at path (see
// [ParseSigningKey]). If the key's comment is not readable from the private
// key file (encrypted keys hide it), it is taken from path + ".pub" when that
// file holds the same key.
func LoadSigningKey(path string, passphrase func() ([]byte, error)) (*SigningKey, error) {
	data, err := safefile.ReadRegular(path, MaxPrivateKeySize)
	if err != nil {
		return nil, fmt.Errorf("read signing key %s: %w", path, err)
	}
	k, err := ParseSigningKey(data, passphrase)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if k.Comment == "" {
		if pub, err := safefile.ReadRegular(path+".pub", MaxPublicKeyLineSize); err == nil {
			if pk, comment, err := ParsePublicKeyLine(string(pub)); err == nil && pk == k.Public() && checkComment(comment) == nil {
				k.Comment = comment
			}
		}
	}
	return k, nil
}

// WriteSigningKey writes k to path in OpenSSH format with mode 0600,
// encrypted when passphrase is not empty, and its public key line to
// path + ".pub" with mode 0644. Both writes are atomic. Unless overwrite is
// set, it refuses, with an error wrapping fs.ErrExist, to replace either file.
func WriteSigningKey(path string, k *SigningKey, passphrase []byte, overwrite bool) error {
	priv, err := k.MarshalPrivate(passphrase)
	if err != nil {
		return err
	}
	pub := []byte(k.Public().AuthorizedLine(k.Comment) + "\n")
	if overwrite {
		if err := safefile.WriteFile(path, priv, 0o600); err != nil {
			return fmt.Errorf("write signing key %s: %w", path, err)
		}
	} else {
		if _, err := os.Lstat(path + ".pub"); err == nil {
			return fmt.Errorf("write signing key: %s: %w", path+".pub", fs.ErrExist)
		}
		if err := safefile.Create(path, priv, 0o600); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("write signing key: %s: %w", path, fs.ErrExist)
			}
			return fmt.Errorf("write signing key %s: %w", path, err)
		}
	}
	if err := safefile.WriteFile(path+".pub", pub, 0o644); err != nil {
		return fmt.Errorf("write public key %s: %w", path+".pub", err)
	}
	return nil
}

// sanitizeForError removes characters that would make an error message span
// lines or carry terminal escapes.
func sanitizeForError(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

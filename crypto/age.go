package crypto

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"filippo.io/age"
	"filippo.io/age/agessh"
	"golang.org/x/crypto/ssh"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Limits of recipient and identity input.
const (
	// MaxRecipientsFileSize bounds a recipients file.
	MaxRecipientsFileSize = 1 << 20
	// MaxRecipients bounds the number of recipients in a recipients file.
	MaxRecipients = 1000
	// MaxRecipientSize bounds one recipient string (an ssh-rsa key line
	// with a 16384-bit modulus and a comment fits).
	MaxRecipientSize = 16 << 10
	// MaxIdentitiesFileSize bounds an identities file.
	MaxIdentitiesFileSize = 1 << 20
	// MaxIdentities bounds the number of identities in an identities file.
	MaxIdentities = 1000
)

// GenerateAgeIdentity creates a new random X25519 age identity.
func GenerateAgeIdentity() (*age.X25519Identity, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, fmt.Errorf("generate age identity: %w", err)
	}
	return id, nil
}

// MarshalAgeIdentity encodes id in the age-keygen file format:
//
//	# created: 2006-01-02T15:04:05Z07:00
//	# public key: age1…
//	AGE-SECRET-KEY-1…
func MarshalAgeIdentity(id *age.X25519Identity) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# created: %s\n", time.Now().Format(time.RFC3339))
	fmt.Fprintf(&b, "# public key: %s\n", id.Recipient().String())
	fmt.Fprintf(&b, "%s\n", id.String())
	return b.Bytes()
}

// WriteAgeIdentity writes id to path in the age-keygen format with mode
// 0600, atomically. Unless overwrite is set, it refuses, with an error
// wrapping fs.ErrExist, to replace an existing file.
func WriteAgeIdentity(path string, id *age.X25519Identity, overwrite bool) error {
	data := MarshalAgeIdentity(id)
	var err error
	if overwrite {
		err = safefile.WriteFile(path, data, 0o600)
	} else {
		err = safefile.Create(path, data, 0o600)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("write age identity: %s: %w", path, fs.ErrExist)
	}
	if err != nil {
		return fmt.Errorf("write age identity %s: %w", path, err)
	}
	return nil
}

// ParseRecipient parses one recipient: an age X25519 recipient ("age1…"), a
// post-quantum hybrid one ("age1pq1…"), or an OpenSSH public key line of type
// ssh-ed25519 or ssh-rsa (with an optional comment). canonical is the
// recipient's normal form, the input to [RecipientHash]: the lowercase
// Bech32 string for age recipients, "type base64" without comment for SSH
// keys.
func ParseRecipient(s string) (r age.Recipient, canonical string, err error) {
	if len(s) > MaxRecipientSize {
		return nil, "", fmt.Errorf("recipient is longer than %d bytes", MaxRecipientSize)
	}
	s = strings.TrimSpace(s)
	lower := strings.ToLower(s)
	if strings.HasPrefix(lower, "age1") && s == strings.ToUpper(s) {
		// Bech32 allows all-uppercase strings (mixed case stays invalid);
		// age's parser wants lowercase.
		s = lower
	}
	switch {
	case s == "":
		return nil, "", fmt.Errorf("empty recipient")
	case strings.HasPrefix(lower, "age-secret-key-"):
		return nil, "", fmt.Errorf("recipient is an age secret key, not a public key: use its public key (age1…)")
	case strings.HasPrefix(lower, "age1pq1"):
		hr, err := age.ParseHybridRecipient(s)
		if err != nil {
			return nil, "", fmt.Errorf("malformed age recipient %s", untrusted.Quote(s, maxQuoted))
		}
		return hr, hr.String(), nil
	case strings.HasPrefix(lower, "age1"):
		xr, err := age.ParseX25519Recipient(s)
		if err != nil {
			return nil, "", fmt.Errorf("malformed or unsupported age recipient %s", untrusted.Quote(s, maxQuoted))
		}
		return xr, xr.String(), nil
	case strings.HasPrefix(s, "-----BEGIN"):
		return nil, "", fmt.Errorf("recipient looks like a private key: use its public key")
	}
	typ, rest := cutField(s)
	if typ != "ssh-ed25519" && typ != "ssh-rsa" {
		return nil, "", fmt.Errorf("%w for recipient %s: want age1…, ssh-ed25519 or ssh-rsa", ErrUnsupportedKeyType, untrusted.Quote(typ, maxQuoted))
	}
	b64, _ := cutField(rest)
	blob, err := decodeBase64Strict(b64)
	if err != nil {
		return nil, "", fmt.Errorf("%s recipient key is not valid base64", typ)
	}
	pk, err := ssh.ParsePublicKey(blob)
	if err != nil {
		return nil, "", fmt.Errorf("malformed %s recipient: %w", typ, err)
	}
	if pk.Type() != typ {
		return nil, "", fmt.Errorf("recipient labelled %s contains a %s key", typ, untrusted.Quote(pk.Type(), maxQuoted))
	}
	return sshRecipient(pk)
}

// sshRecipient makes an age recipient of an ssh-ed25519 or ssh-rsa key.
func sshRecipient(pk ssh.PublicKey) (age.Recipient, string, error) {
	canonical := pk.Type() + " " + base64.StdEncoding.EncodeToString(pk.Marshal())
	var (
		r   age.Recipient
		err error
	)
	switch pk.Type() {
	case "ssh-ed25519":
		cpk, ok := pk.(ssh.CryptoPublicKey)
		if !ok {
			return nil, "", fmt.Errorf("malformed ssh-ed25519 recipient")
		}
		ek, ok := cpk.CryptoPublicKey().(ed25519.PublicKey)
		if !ok {
			return nil, "", fmt.Errorf("malformed ssh-ed25519 recipient")
		}
		if _, err := NewPublicKey(ek); err != nil {
			return nil, "", fmt.Errorf("malformed ssh-ed25519 recipient: %w", err)
		}
		r, err = agessh.NewEd25519Recipient(pk)
	case "ssh-rsa":
		r, err = agessh.NewRSARecipient(pk)
	default:
		return nil, "", fmt.Errorf("%w for recipient %s", ErrUnsupportedKeyType, untrusted.Quote(pk.Type(), maxQuoted))
	}
	if err != nil {
		return nil, "", fmt.Errorf("unusable %s recipient: %w", pk.Type(), err)
	}
	return r, canonical, nil
}

// RecipientInfo is a parsed recipient with its canonical string.
type RecipientInfo struct {
	// Recipient encrypts to the recipient.
	Recipient age.Recipient
	// Canonical is the normal form of the recipient (see [ParseRecipient]).
	Canonical string
}

// ParseRecipientsFile parses a recipients file: one recipient per line (see
// [ParseRecipient]), with blank lines and lines starting with # skipped.
// Recipients given twice are returned once. name is used in errors
// ("name:3: …").
func ParseRecipientsFile(data []byte, name string) ([]RecipientInfo, error) {
	if len(data) > MaxRecipientsFileSize {
		return nil, fmt.Errorf("%s: %w: over %d bytes", name, safefile.ErrTooLarge, MaxRecipientsFileSize)
	}
	var out []RecipientInfo
	seen := make(map[string]bool)
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		r, canonical, err := ParseRecipient(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if seen[canonical] {
			continue
		}
		seen[canonical] = true
		if len(out) >= MaxRecipients {
			return nil, fmt.Errorf("%s:%d: more than %d recipients", name, i+1, MaxRecipients)
		}
		out = append(out, RecipientInfo{Recipient: r, Canonical: canonical})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no recipients", name)
	}
	return out, nil
}

// RecipientHash returns "sha256:" and the lowercase hex SHA-256 of a
// canonical recipient string. The signed manifest lists these hashes to bind
// the bundle to its intended recipients.
func RecipientHash(canonical string) string {
	h := sha256.Sum256([]byte(canonical))
	return "sha256:" + hex.EncodeToString(h[:])
}

// ParseIdentities parses identities: an age identities file (lines
// "AGE-SECRET-KEY-1…" or "AGE-SECRET-KEY-PQ-1…", with # comments and blank
// lines), or an OpenSSH private key of type ssh-ed25519 or ssh-rsa. For an
// encrypted SSH key, passphrase is called only when a file's header names
// the key; a wrong passphrase then fails decryption with an error wrapping
// [ErrWrongPassphrase]. It also returns, for each identity, the canonical
// string of its recipient (see [ParseRecipient]). name is used in errors;
// they never include key material.
func ParseIdentities(data []byte, name string, passphrase func() ([]byte, error)) ([]age.Identity, []string, error) {
	if len(data) > MaxIdentitiesFileSize {
		return nil, nil, fmt.Errorf("%s: %w: over %d bytes", name, safefile.ErrTooLarge, MaxIdentitiesFileSize)
	}
	trimmed := bytes.TrimSpace(data)
	switch {
	case bytes.HasPrefix(trimmed, []byte("-----BEGIN AGE ENCRYPTED FILE-----")),
		bytes.HasPrefix(trimmed, []byte("age-encryption.org/")):
		return nil, nil, fmt.Errorf("%s: passphrase-encrypted age identity files are not supported: decrypt it with age first", name)
	case bytes.HasPrefix(trimmed, []byte("-----BEGIN")):
		id, canonical, err := parseSSHIdentity(data, passphrase)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return []age.Identity{id}, []string{canonical}, nil
	}
	var ids []age.Identity
	var canon []string
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		n := i + 1
		if len(ids) >= MaxIdentities {
			return nil, nil, fmt.Errorf("%s:%d: more than %d identities", name, n, MaxIdentities)
		}
		// age's own errors may quote parts of the line; never pass them on.
		switch {
		case strings.HasPrefix(line, "AGE-SECRET-KEY-PQ-1"):
			id, err := age.ParseHybridIdentity(line)
			if err != nil {
				return nil, nil, fmt.Errorf("%s:%d: malformed age post-quantum secret key", name, n)
			}
			ids, canon = append(ids, id), append(canon, id.Recipient().String())
		case strings.HasPrefix(line, "AGE-SECRET-KEY-1"):
			id, err := age.ParseX25519Identity(line)
			if err != nil {
				return nil, nil, fmt.Errorf("%s:%d: malformed age secret key", name, n)
			}
			ids, canon = append(ids, id), append(canon, id.Recipient().String())
		case strings.HasPrefix(line, "AGE-PLUGIN-"):
			return nil, nil, fmt.Errorf("%s:%d: age plugin identities are not supported", name, n)
		default:
			return nil, nil, fmt.Errorf("%s:%d: not an age secret key or an OpenSSH private key", name, n)
		}
	}
	if len(ids) == 0 {
		return nil, nil, fmt.Errorf("%s: no identities", name)
	}
	return ids, canon, nil
}

// parseSSHIdentity parses an OpenSSH private key as an age identity.
func parseSSHIdentity(data []byte, passphrase func() ([]byte, error)) (age.Identity, string, error) {
	raw, err := ssh.ParseRawPrivateKey(data)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		if missing.PublicKey == nil {
			return nil, "", fmt.Errorf("encrypted ssh key without an embedded public key is not supported")
		}
		if passphrase == nil {
			return nil, "", fmt.Errorf("ssh identity is encrypted: %w", ErrPassphraseRequired)
		}
		pk := missing.PublicKey
		if pk.Type() != "ssh-ed25519" && pk.Type() != "ssh-rsa" {
			return nil, "", fmt.Errorf("%w for ssh identity %s: want ssh-ed25519 or ssh-rsa", ErrUnsupportedKeyType, untrusted.Quote(pk.Type(), maxQuoted))
		}
		_, canonical, err := sshRecipient(pk)
		if err != nil {
			return nil, "", err
		}
		return &encryptedSSHIdentity{pub: pk, pem: bytes.Clone(data), passphrase: passphrase}, canonical, nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("parse ssh identity: %w", err)
	}
	return sshIdentityFromRaw(raw)
}

// sshIdentityFromRaw turns a parsed private key into an age identity and the
// canonical form of its recipient.
func sshIdentityFromRaw(raw any) (age.Identity, string, error) {
	switch k := raw.(type) {
	case *ed25519.PrivateKey:
		return sshIdentityFromRaw(*k)
	case ed25519.PrivateKey:
		priv, err := checkEd25519Private(k)
		if err != nil {
			return nil, "", fmt.Errorf("ssh identity: %w", err)
		}
		id, err := agessh.NewEd25519Identity(priv)
		if err != nil {
			return nil, "", fmt.Errorf("ssh identity: %w", err)
		}
		pk, err := ssh.NewPublicKey(priv.Public())
		if err != nil {
			return nil, "", fmt.Errorf("ssh identity: %w", err)
		}
		_, canonical, err := sshRecipient(pk)
		return id, canonical, err
	case *rsa.PrivateKey:
		id, err := agessh.NewRSAIdentity(k)
		if err != nil {
			return nil, "", fmt.Errorf("ssh identity: %w", err)
		}
		pk, err := ssh.NewPublicKey(&k.PublicKey)
		if err != nil {
			return nil, "", fmt.Errorf("ssh identity: %w", err)
		}
		_, canonical, err := sshRecipient(pk)
		return id, canonical, err
	case *ecdsa.PrivateKey:
		return nil, "", fmt.Errorf("%w for ssh identity ecdsa: want ssh-ed25519 or ssh-rsa", ErrUnsupportedKeyType)
	default:
		return nil, "", fmt.Errorf("%w for ssh identity %T: want ssh-ed25519 or ssh-rsa", ErrUnsupportedKeyType, raw)
	}
}

// encryptedSSHIdentity is a passphrase-protected SSH key that asks for its
// passphrase only when a file's header names its public key, like
// agessh.EncryptedSSHIdentity, but reports a wrong passphrase as
// ErrWrongPassphrase.
type encryptedSSHIdentity struct {
	pub        ssh.PublicKey
	pem        []byte
	passphrase func() ([]byte, error)
	decrypted  age.Identity
}

// Unwrap implements age.Identity.
func (i *encryptedSSHIdentity) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	if i.decrypted != nil {
		return i.decrypted.Unwrap(stanzas)
	}
	h := sha256.Sum256(i.pub.Marshal())
	tag := base64.RawStdEncoding.EncodeToString(h[:4])
	match := false
	for _, s := range stanzas {
		if s.Type == i.pub.Type() && len(s.Args) >= 1 && s.Args[0] == tag {
			match = true
			break
		}
	}
	if !match {
		return nil, age.ErrIncorrectIdentity
	}
	pass, err := i.passphrase()
	if err != nil {
		return nil, fmt.Errorf("read passphrase for ssh identity %s: %w", ssh.FingerprintSHA256(i.pub), err)
	}
	raw, err := ssh.ParseRawPrivateKeyWithPassphrase(i.pem, pass)
	if errors.Is(err, x509.IncorrectPasswordError) {
		return nil, fmt.Errorf("%w for ssh identity %s", ErrWrongPassphrase, ssh.FingerprintSHA256(i.pub))
	}
	if err != nil {
		return nil, fmt.Errorf("decrypt ssh identity %s: %w", ssh.FingerprintSHA256(i.pub), err)
	}
	id, canonical, err := sshIdentityFromRaw(raw)
	if err != nil {
		return nil, err
	}
	if want := i.pub.Type() + " " + base64.StdEncoding.EncodeToString(i.pub.Marshal()); canonical != want {
		return nil, fmt.Errorf("ssh identity %s: private key does not match its embedded public key", ssh.FingerprintSHA256(i.pub))
	}
	i.decrypted = id
	return id.Unwrap(stanzas)
}

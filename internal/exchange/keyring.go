// Package exchange moves handoffs between a local store and bundles: the
// user's keyring (signing key, age identity, trust store), export of a
// stored handoff with its attachments, and import with the trust policy
// applied and nothing written unless every check passed.
package exchange

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"filippo.io/age"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// maxKeyFile bounds key and identity files read from disk.
const maxKeyFile = 1 << 20

// ErrNoKeys is wrapped when the keyring has not been generated yet.
var ErrNoKeys = errors.New("no keys yet")

// Keyring is the user's keys and trust store in one directory (by default
// $XDG_CONFIG_HOME/session-handoff).
type Keyring struct {
	Dir string
	// UsualSSH are the user's usual OpenSSH private keys (see
	// [UsualSSHKeys]), tried after the keyring's own identity and the
	// extra files: a bundle encrypted to the public half of one decrypts
	// without --identity. One that is missing, is not a regular file or
	// cannot be parsed is skipped; a passphrase-protected one asks for its
	// passphrase only when a bundle names its public key.
	UsualSSH []string
}

// UsualSSHKeys names the private keys that ssh-keygen makes by default and
// that age-encrypting to ~/.ssh/*.pub assumes: ~/.ssh/id_ed25519 and
// ~/.ssh/id_rsa under home.
func UsualSSHKeys(home string) []string {
	return []string{filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, ".ssh", "id_rsa")}
}

// Files names the files in the keyring's directory.
func (k Keyring) Files() paths.ConfigDir { return paths.ConfigDir(k.Dir) }

// SigningKeyPath is the OpenSSH private signing key; its public half is
// beside it (Files().SigningPublicKey()).
func (k Keyring) SigningKeyPath() string { return k.Files().SigningKey() }

// AgeIdentityPath is the age identity (age-keygen format).
func (k Keyring) AgeIdentityPath() string { return k.Files().AgeIdentity() }

// TrustPath is the allowed_signers trust store.
func (k Keyring) TrustPath() string { return k.Files().Trust() }

// KeyInfo is the public side of a keyring: what a user shares.
type KeyInfo struct {
	Name         string `json:"name"`
	SigningKey   string `json:"signing_key"`
	Fingerprint  string `json:"fingerprint"`
	AgeRecipient string `json:"age_recipient"`
	// Encrypted reports whether the signing key file is passphrase-protected.
	Encrypted bool `json:"encrypted"`
}

// Generate creates a signing key (protected by passphrase when it is not
// empty) and an age identity. It refuses to replace existing keys unless
// overwrite is set, and writes nothing if either file exists.
func (k Keyring) Generate(name string, passphrase []byte, overwrite bool) (*KeyInfo, error) {
	if !overwrite {
		for _, p := range []string{k.SigningKeyPath(), k.Files().SigningPublicKey(), k.AgeIdentityPath()} {
			if _, err := os.Lstat(p); err == nil {
				return nil, fmt.Errorf("%s already exists: %w", p, fs.ErrExist)
			}
		}
	}
	if err := os.MkdirAll(k.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create key directory: %w", err)
	}
	sk, err := crypto.GenerateSigningKey(name)
	if err != nil {
		return nil, err
	}
	id, err := crypto.GenerateAgeIdentity()
	if err != nil {
		return nil, err
	}
	if err := crypto.WriteAgeIdentity(k.AgeIdentityPath(), id, overwrite); err != nil {
		return nil, err
	}
	if err := crypto.WriteSigningKey(k.SigningKeyPath(), sk, passphrase, overwrite); err != nil {
		// Leave no half keyring behind.
		if !overwrite {
			os.Remove(k.AgeIdentityPath())
		}
		return nil, err
	}
	return &KeyInfo{
		Name:         name,
		SigningKey:   sk.Public().AuthorizedLine(name),
		Fingerprint:  sk.Public().Fingerprint(),
		AgeRecipient: id.Recipient().String(),
		Encrypted:    len(passphrase) > 0,
	}, nil
}

// Info reads the public side of the keyring without asking for any
// passphrase.
func (k Keyring) Info() (*KeyInfo, error) {
	pubData, err := safefile.ReadRegular(k.Files().SigningPublicKey(), maxKeyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", k.Files().SigningPublicKey(), ErrNoKeys)
	}
	if err != nil {
		return nil, fmt.Errorf("read public signing key %s: %w", k.Files().SigningPublicKey(), err)
	}
	pub, comment, err := crypto.ParsePublicKeyLine(string(pubData))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.Files().SigningPublicKey(), err)
	}
	info := &KeyInfo{Name: comment, SigningKey: pub.AuthorizedLine(comment), Fingerprint: pub.Fingerprint()}
	if priv, err := safefile.ReadRegular(k.SigningKeyPath(), maxKeyFile); err == nil {
		sk, perr := crypto.ParseSigningKey(priv, nil)
		info.Encrypted = errors.Is(perr, crypto.ErrPassphraseRequired)
		// The public half is what others trust: it must be this key's.
		if perr == nil && sk.Public() != pub {
			return nil, fmt.Errorf("%s does not match the signing key %s (%s)", k.Files().SigningPublicKey(), k.SigningKeyPath(), sk.Public().Fingerprint())
		}
	}
	idData, err := safefile.ReadRegular(k.AgeIdentityPath(), maxKeyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", k.AgeIdentityPath(), ErrNoKeys)
	}
	if err != nil {
		return nil, fmt.Errorf("read age identity %s: %w", k.AgeIdentityPath(), err)
	}
	ids, _, err := crypto.ParseIdentities(idData, k.AgeIdentityPath(), nil)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if x, ok := id.(*age.X25519Identity); ok {
			info.AgeRecipient = x.Recipient().String()
			break
		}
	}
	return info, nil
}

// SigningKey loads the private signing key, asking passphrase only if the
// key is encrypted.
func (k Keyring) SigningKey(passphrase func() ([]byte, error)) (*crypto.SigningKey, error) {
	if err := checkPrivate(k.SigningKeyPath()); err != nil {
		return nil, err
	}
	sk, err := crypto.LoadSigningKey(k.SigningKeyPath(), passphrase)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", k.SigningKeyPath(), ErrNoKeys)
	}
	return sk, err
}

// checkPrivate refuses, as ssh does, a private key file of the keyring
// that other users can read: the key is no longer only the user's. A
// missing file is left to the reader to report.
func checkPrivate(path string) error {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s has mode %04o: other users can read the private key; chmod 600 it (or make a new key with 'keygen --force')", path, perm)
	}
	return nil
}

// Identities returns the age identities to decrypt with: the keyring's own
// (when present), those in the extra files (age identity files or OpenSSH
// private keys) and the usual SSH keys that can be used (see UsualSSH),
// with the canonical recipient string of each.
func (k Keyring) Identities(extra []string, passphrase func() ([]byte, error)) ([]age.Identity, []string, error) {
	var ids []age.Identity
	var recips []string
	files := extra
	if _, err := os.Lstat(k.AgeIdentityPath()); err == nil {
		files = append([]string{k.AgeIdentityPath()}, extra...)
		if err := checkPrivate(k.AgeIdentityPath()); err != nil {
			return nil, nil, err
		}
	}
	for _, f := range files {
		data, err := safefile.ReadFile(f, maxKeyFile)
		if err != nil {
			return nil, nil, fmt.Errorf("read identity %s: %w", f, err)
		}
		i, r, err := crypto.ParseIdentities(data, f, passphrase)
		if err != nil {
			return nil, nil, err
		}
		ids = append(ids, i...)
		recips = append(recips, r...)
	}
	for _, f := range k.UsualSSH {
		i, r, ok := usualSSHIdentity(f, passphrase)
		if ok {
			ids = append(ids, i...)
			recips = append(recips, r...)
		}
	}
	return ids, recips, nil
}

// usualSSHIdentity reads one of the user's usual SSH keys, read-only and
// bounded; ok is false for a file that is missing, not regular, too large
// or not a key age can use, which the user did not name and so is skipped
// in silence.
func usualSSHIdentity(path string, passphrase func() ([]byte, error)) ([]age.Identity, []string, bool) {
	data, err := safefile.ReadRegular(path, maxKeyFile)
	if err != nil {
		return nil, nil, false
	}
	ids, recips, err := crypto.ParseIdentities(data, path, passphrase)
	return ids, recips, err == nil
}

// Binds is the trust store as it is now, for store.Store.SetTrust: it is
// read on the first record that asks, once. A trust store that cannot be
// read binds nothing (every import reads as not vouched for), and warn is
// told why.
func (k Keyring) Binds(warn func(error)) func(fingerprint, signer string) bool {
	load := sync.OnceValue(func() *crypto.TrustStore {
		ts, err := k.TrustStore()
		if err != nil {
			warn(fmt.Errorf("imported handoffs read as not verified: %w", err))
			return crypto.NewTrustStore("")
		}
		return ts
	})
	return func(fingerprint, signer string) bool { return load().Binds(fingerprint, signer) }
}

// TrustStore loads the trust store (empty if it does not exist yet).
func (k Keyring) TrustStore() (*crypto.TrustStore, error) {
	return crypto.LoadTrustStore(k.TrustPath())
}

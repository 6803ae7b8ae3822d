// Package crypto holds the cryptography of session-handoff: Ed25519 signing
// keys in OpenSSH format, DSSE envelopes that carry the signed manifest, the
// allowed_signers trust store, and age recipients and identities.
//
// Every parser in this package bounds its input before reading it and
// returns an error, never a panic, on hostile input. Errors never contain
// secret material: no passphrases and no private key bytes.
//
// Trust is explicit. [Verify] checks signatures against keys the caller
// already trusts; keys that arrive inside an envelope or a manifest are only
// ever checked through [VerifyWithClaimedKeys], whose result keeps them apart
// from trusted keys.
package crypto

import "errors"

// ErrWrongPassphrase is wrapped by errors caused by a wrong passphrase: for a
// signing key, for an encrypted SSH identity, or for a passphrase-encrypted
// (scrypt) age file.
var ErrWrongPassphrase = errors.New("wrong passphrase")

// ErrPassphraseRequired is wrapped by errors for an encrypted key when no
// way to obtain a passphrase was given.
var ErrPassphraseRequired = errors.New("passphrase required")

// ErrWorkFactorTooHigh is wrapped by the error for a passphrase-encrypted age
// file whose scrypt work factor exceeds the caller's limit.
var ErrWorkFactorTooHigh = errors.New("scrypt work factor too high")

// ErrPinnedToOtherKey is wrapped by the error from [TrustStore.Pin] when the
// principal is already bound to a different key.
var ErrPinnedToOtherKey = errors.New("principal is pinned to another key")

// ErrUnsupportedKeyType is wrapped by errors for keys of a type this package
// cannot use for the requested purpose.
var ErrUnsupportedKeyType = errors.New("unsupported key type")

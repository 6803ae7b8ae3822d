package crypto

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"filippo.io/age"
)

// DefaultMaxScryptWorkFactor is the default cap on the scrypt work factor
// (log2 of N) accepted when decrypting a passphrase-encrypted file. It is
// age's own default; each step doubles the time and memory needed.
const DefaultMaxScryptWorkFactor = 22

// defaultScryptWorkFactor is the work factor used for encryption, age's
// default (about a second on a modern machine).
const defaultScryptWorkFactor = 18

// scryptWorkFactor is the work factor NewScryptRecipient uses. Only
// SetScryptWorkFactorForTesting changes it.
var scryptWorkFactor atomic.Int32

func init() { scryptWorkFactor.Store(defaultScryptWorkFactor) }

// SetScryptWorkFactorForTesting sets the scrypt work factor that
// [NewScryptRecipient] uses and returns a function restoring the previous
// one. It exists only so that tests, in this and other packages, can make
// passphrase encryption cheap; never call it outside tests. n must be in
// 1..30; it panics otherwise, as a programming error.
func SetScryptWorkFactorForTesting(n int) (restore func()) {
	if n < 1 || n > 30 {
		panic("crypto: SetScryptWorkFactorForTesting: work factor out of range 1..30")
	}
	old := scryptWorkFactor.Swap(int32(n))
	return func() { scryptWorkFactor.Store(old) }
}

// NewScryptRecipient returns an age recipient that encrypts to a passphrase
// with scrypt. Such a recipient must be the only one of a file.
func NewScryptRecipient(passphrase []byte) (age.Recipient, error) {
	if len(passphrase) == 0 {
		return nil, fmt.Errorf("passphrase is empty")
	}
	r, err := age.NewScryptRecipient(string(passphrase))
	if err != nil {
		return nil, fmt.Errorf("scrypt recipient: %w", err)
	}
	r.SetWorkFactor(int(scryptWorkFactor.Load()))
	return r, nil
}

// NewScryptIdentity returns an age identity that decrypts a file encrypted
// to passphrase. maxWorkFactor caps the scrypt work factor a file may demand
// ([DefaultMaxScryptWorkFactor] if zero or less, at most 30); a file over the
// cap fails with an error wrapping [ErrWorkFactorTooHigh] before any scrypt
// work is done. A wrong passphrase fails age.Decrypt with an error wrapping
// [ErrWrongPassphrase] (and age.ErrIncorrectIdentity, so that several
// passphrases can be tried in one call).
func NewScryptIdentity(passphrase []byte, maxWorkFactor int) (age.Identity, error) {
	if len(passphrase) == 0 {
		return nil, fmt.Errorf("passphrase is empty")
	}
	if maxWorkFactor <= 0 {
		maxWorkFactor = DefaultMaxScryptWorkFactor
	}
	if maxWorkFactor > 30 {
		return nil, fmt.Errorf("scrypt work factor limit %d is over 30", maxWorkFactor)
	}
	id, err := age.NewScryptIdentity(string(passphrase))
	if err != nil {
		return nil, fmt.Errorf("scrypt identity: %w", err)
	}
	id.SetMaxWorkFactor(maxWorkFactor)
	return &scryptIdentity{inner: id, max: maxWorkFactor}, nil
}

// scryptIdentity wraps age's ScryptIdentity to make its failures
// recognisable with errors.Is.
type scryptIdentity struct {
	inner *age.ScryptIdentity
	max   int
}

// Unwrap implements age.Identity.
func (i *scryptIdentity) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	isScrypt := false
	for _, s := range stanzas {
		if s.Type != "scrypt" {
			continue
		}
		isScrypt = true
		if len(s.Args) == 2 && isDecimal(s.Args[1]) {
			if n, err := strconv.Atoi(s.Args[1]); err == nil && n > i.max {
				return nil, fmt.Errorf("%w: file needs 2^%d, limit is 2^%d", ErrWorkFactorTooHigh, n, i.max)
			} else if err != nil {
				return nil, fmt.Errorf("%w: file needs 2^%s, limit is 2^%d", ErrWorkFactorTooHigh, shorten(s.Args[1]), i.max)
			}
		}
	}
	key, err := i.inner.Unwrap(stanzas)
	if err != nil && isScrypt && len(stanzas) == 1 && errors.Is(err, age.ErrIncorrectIdentity) {
		return nil, wrongPassphraseError{}
	}
	return key, err
}

func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// wrongPassphraseError is a wrong passphrase for a passphrase-encrypted age
// file. It is both ErrWrongPassphrase and age.ErrIncorrectIdentity.
type wrongPassphraseError struct{}

func (wrongPassphraseError) Error() string { return "wrong passphrase for encrypted file" }

func (wrongPassphraseError) Unwrap() []error {
	return []error{ErrWrongPassphrase, age.ErrIncorrectIdentity}
}

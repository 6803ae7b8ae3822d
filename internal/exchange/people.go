package exchange

import (
	"errors"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/people"
)

// ErrNoSigningKey is trusting a person whose signing key is not known.
var ErrNoSigningKey = errors.New("trusting a person needs their signing key line")

// AddPerson adds p to the address book in the keyring's directory and,
// when trust is set, pins p's signing key in the trust store under p's
// name: a name already trusted with another key is refused
// (crypto.ErrPinnedToOtherKey), not given a second key. added is false
// when the book held p already. p's name must be a name (people.CheckName):
// never one of my devices' "me@" names.
func (k Keyring) AddPerson(p people.Person, trust bool) (added bool, err error) {
	if err := people.CheckName(p.Name); err != nil {
		return false, err
	}
	if trust && p.SigningKey == "" {
		return false, ErrNoSigningKey
	}
	err = people.Update(k.Dir, func(b *people.Book) error {
		var err error
		if added, err = b.Add(p); err != nil {
			return err
		}
		if !trust {
			return nil
		}
		key, err := crypto.ParsePublicKey(p.SigningKey)
		if err != nil {
			return err
		}
		return crypto.UpdateTrustStore(k.TrustPath(), func(ts *crypto.TrustStore) error { return ts.Pin(p.Name, key) })
	})
	return added, err
}

// PersonTrust is what the trust store says about a person's signing key.
type PersonTrust struct {
	Fingerprint string // empty: the book holds no signing key for them
	TrustedAs   string // the first principal the key is trusted as; empty: not trusted
}

// TrustOf says whether p's signing key is in ts, and as whom.
func TrustOf(ts *crypto.TrustStore, p people.Person) (PersonTrust, error) {
	if p.SigningKey == "" {
		return PersonTrust{}, nil
	}
	key, err := crypto.ParsePublicKey(p.SigningKey)
	if err != nil {
		return PersonTrust{}, err
	}
	t := PersonTrust{Fingerprint: key.Fingerprint()}
	if names, ok := ts.Lookup(key); ok && len(names) > 0 {
		t.TrustedAs = names[0]
	}
	return t, nil
}

package exchange

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// Conflict says what import does when the store already holds a different
// handoff with the same id.
type Conflict string

// The conflict policies.
const (
	ConflictFail    Conflict = "fail"
	ConflictSkip    Conflict = "skip"
	ConflictReplace Conflict = "replace"
)

// Policy is what an import accepts beyond a bundle verified by a trusted key.
type Policy struct {
	AllowUntrusted       bool
	AllowUnsigned        bool
	AllowOtherRecipients bool
	// TOFU trusts the signer of an untrusted bundle on first use: it pins
	// the principal the bundle names to its key, and refuses a different
	// key for that principal later.
	TOFU       bool
	OnConflict Conflict
}

// Allows is the policy's decision on a bundle's verification: nil when
// the import may go on. Import and a receive's dry run both decide
// through it.
func (p Policy) Allows(v bundle.Verification) error {
	switch v.Status {
	case bundle.StatusVerified:
		return nil
	case bundle.StatusUntrusted:
		if p.TOFU || p.AllowUntrusted {
			return nil
		}
		return fmt.Errorf("%w (%s)", ErrRefusedUntrusted, v.Fingerprint)
	case bundle.StatusUnsigned:
		if p.AllowUnsigned {
			return nil
		}
		return ErrRefusedUnsigned
	}
	return fmt.Errorf("invalid bundle: %s", v.Reason)
}

// Outcome is what an import did.
type Outcome string

// The outcomes of an import.
const (
	Imported Outcome = "imported"
	Replaced Outcome = "replaced"
	Skipped  Outcome = "skipped"
	// Already means this very bundle was imported before: nothing to do.
	Already Outcome = "already imported"
)

// ImportResult reports an import.
type ImportResult struct {
	Outcome  Outcome
	Record   *handoff.Record
	Bundle   *bundle.Result
	PinnedAs string // the principal pinned by TOFU, if any
}

// Refusal errors: the bundle is intact but the policy says no.
var (
	ErrRefusedUntrusted = errors.New("signed by a key that is not in the trust store")
	ErrRefusedUnsigned  = errors.New("the bundle is not signed")
	ErrRefusedRecipient = errors.New("signed for other recipients")
	ErrConflict         = errors.New("a different handoff with this id is already stored")
)

// Import reads a bundle from r, checks it completely, applies pol, and only
// then stores the record and its attachments in s. keys supplies the trust
// store (and is where TOFU pins go). On any error nothing is stored.
func Import(r io.Reader, s *store.Store, keys Keyring, ropts bundle.ReadOptions, pol Policy, now time.Time) (*ImportResult, error) {
	trust, err := keys.TrustStore()
	if err != nil {
		return nil, err
	}
	ropts.Trusted = trust
	// Blobs are staged inside the store, so that once checked they move in
	// by rename instead of being copied, hashed and synced a second time.
	staging, err := s.NewStaging()
	if err != nil {
		return nil, err
	}
	defer staging.Close()
	ropts.BlobDir = staging.Dir

	res, err := bundle.Read(r, ropts)
	if errors.Is(err, bundle.ErrWrongRecipient) && pol.AllowOtherRecipients && res != nil && res.Manifest != nil {
		err = nil
	}
	if errors.Is(err, bundle.ErrWrongRecipient) {
		return nil, ErrRefusedRecipient
	}
	if err != nil {
		return nil, err
	}
	m := res.Manifest
	v := res.Verification
	prov := &handoff.Provenance{BundleID: m.BundleID, ImportedAt: now.UTC().Truncate(time.Millisecond), Fingerprint: v.Fingerprint}
	if err := pol.Allows(v); err != nil {
		return nil, err
	}
	var pin *pinRequest
	switch v.Status {
	case bundle.StatusVerified:
		prov.Verification = "verified"
		if len(v.Principals) > 0 {
			prov.Signer = v.Principals[0]
		}
	case bundle.StatusUntrusted:
		if !pol.TOFU {
			prov.Verification = "untrusted"
			break
		}
		p, err := tofuPrincipal(m, v, trust)
		if err != nil {
			return nil, err
		}
		pin = p
		prov.Verification = "pinned"
		prov.Signer = p.principal
	case bundle.StatusUnsigned:
		prov.Verification = "unsigned"
	}

	rec := *m.Record
	rec.Source.Kind = handoff.SourceImport
	rec.Source.Import = prov
	result := &ImportResult{Record: &rec, Bundle: res}

	// decide applies the conflict rules to what the store holds under the
	// record's id: done (already there, or skipped), replace, or an error.
	decide := func() (done, replace bool, err error) {
		existing, err := s.Get(rec.ID)
		if errors.Is(err, store.ErrNotFound) {
			return false, false, nil
		}
		if err != nil {
			return false, false, err
		}
		switch old := existing.Source.Import; {
		case old != nil && old.BundleID == m.BundleID && old.Verification == prov.Verification && old.Signer == prov.Signer:
			result.Outcome = Already
			result.Record = existing
			return true, false, nil
		case old != nil && old.BundleID == m.BundleID:
			// The same bundle, now checked differently (its signer was
			// trusted or pinned since): record the new provenance.
			return false, true, nil
		case pol.OnConflict == ConflictSkip:
			result.Outcome = Skipped
			return true, false, nil
		case pol.OnConflict == ConflictReplace:
			return false, true, nil
		}
		return false, false, fmt.Errorf("%w: %s", ErrConflict, rec.ID)
	}
	done, replace, err := decide()
	if err != nil {
		return nil, err
	}
	if done {
		return result, nil
	}

	commit := func() error {
		// Blobs first: a record never points at a blob that is not there.
		for i, f := range res.BlobFiles {
			if err := s.AdoptBlob(staging, f, m.Blobs[i].SHA256); err != nil {
				return err
			}
		}
		replaced, err := s.Put(&rec, replace)
		if errors.Is(err, store.ErrExists) {
			// Another process stored this id since we looked (two imports
			// of one bundle at once): decide again on what it stored.
			var done bool
			if done, replace, err = decide(); err != nil || done {
				return err
			}
			replaced, err = s.Put(&rec, replace)
		}
		if err != nil {
			return err
		}
		result.Outcome = Imported
		if replaced {
			result.Outcome = Replaced
		}
		return nil
	}
	if pin == nil {
		return result, commit()
	}
	// Pin and store under the trust store's lock: if the pin is refused
	// (another key took the name meanwhile) nothing is stored.
	err = crypto.UpdateTrustStore(keys.TrustPath(), func(ts *crypto.TrustStore) error {
		if err := ts.Pin(pin.principal, pin.key); err != nil {
			return err
		}
		return commit()
	})
	if err != nil {
		return nil, err
	}
	result.PinnedAs = pin.principal
	return result, nil
}

type pinRequest struct {
	principal string
	key       crypto.PublicKey
}

// tofuPrincipal decides the name to pin for an untrusted signer: the name
// in the bundle's signer hint, which must be a valid principal not yet
// bound to another key.
func tofuPrincipal(m *bundle.Manifest, v bundle.Verification, trust *crypto.TrustStore) (*pinRequest, error) {
	if m.Signer == nil || m.Signer.Name == "" {
		return nil, errors.New("cannot trust on first use: the bundle names no signer")
	}
	if err := crypto.ValidatePrincipal(m.Signer.Name); err != nil {
		return nil, fmt.Errorf("cannot trust on first use: %w", err)
	}
	key, err := crypto.ParsePublicKey(v.Key)
	if err != nil {
		return nil, fmt.Errorf("cannot trust on first use: %w", err)
	}
	for _, e := range trust.Entries() {
		for _, p := range e.Principals {
			if p == m.Signer.Name && e.Key != key {
				return nil, fmt.Errorf("%w: %s is pinned to %s, this bundle is signed by %s", crypto.ErrPinnedToOtherKey, m.Signer.Name, e.Fingerprint, v.Fingerprint)
			}
		}
	}
	return &pinRequest{principal: m.Signer.Name, key: key}, nil
}

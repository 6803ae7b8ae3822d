package exchange

import (
	"errors"
	"io"
	"slices"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Verdict is what checking a bundle found, the answer of verify.
type Verdict string

// The verdicts. Verified, Untrusted and Unsigned are a bundle read
// completely; Invalid is one that failed a check (bad signature, hash
// mismatch, malformed, a limit hit, signed for other recipients, an
// unsupported version); Unchecked is one that could not be opened (no
// identity to decrypt it, wrong passphrase).
const (
	VerdictVerified  Verdict = Verdict(bundle.StatusVerified)
	VerdictUntrusted Verdict = Verdict(bundle.StatusUntrusted)
	VerdictUnsigned  Verdict = Verdict(bundle.StatusUnsigned)
	VerdictInvalid   Verdict = Verdict(bundle.StatusInvalid)
	VerdictUnchecked Verdict = "error"
)

// CheckReport is what Check found about a bundle, in the form verify and
// inspect print as JSON.
type CheckReport struct {
	Result       Verdict              `json:"result"`
	Reason       string               `json:"reason,omitempty"`
	Verification *bundle.Verification `json:"verification,omitempty"`
	// ForMe is set when the manifest was read and lists me among its
	// recipients (or has none: a passphrase or unencrypted bundle).
	ForMe      bool              `json:"for_me"`
	Encryption bundle.Encryption `json:"encryption,omitempty"`
	Armored    bool              `json:"armored"`
	BundleID   string            `json:"bundle_id,omitempty"`
	Manifest   *bundle.Manifest  `json:"manifest,omitempty"`
	Error      string            `json:"error,omitempty"`
	Kind       string            `json:"error_kind,omitempty"`
	Blobs      []bundle.Blob     `json:"blobs,omitempty"`
	// ClaimedSigner is the name the bundle gives its signer (the
	// manifest's signer hint): a claim, never proof.
	ClaimedSigner string `json:"claimed_signer,omitempty"`
	// ClaimPinnedTo lists the fingerprints the trust store binds the
	// claimed name to, when none of them signed the bundle: someone else's
	// key claims a name you trust.
	ClaimPinnedTo []string `json:"claimed_name_pinned_to,omitempty"`
}

// Check reads the bundle r completely against the trust store of keys,
// storing nothing, and classifies it. The result is nil when reading
// stopped before a manifest; the report is never nil. An error is
// returned only when the trust store cannot be read.
func Check(r io.Reader, keys Keyring, ropts bundle.ReadOptions) (*bundle.Result, *CheckReport, error) {
	trust, err := keys.TrustStore()
	if err != nil {
		return nil, nil, err
	}
	ropts.Trusted = trust
	res, err := bundle.Read(r, ropts)
	rep := Classify(res, err)
	checkClaim(rep, trust)
	return res, rep, nil
}

// checkClaim sets the report's claimed signer name and, when the trust
// store binds that name only to keys other than the ones that signed, those
// keys' fingerprints.
func checkClaim(rep *CheckReport, trust *crypto.TrustStore) {
	m := rep.Manifest
	if m == nil || m.Signer == nil || m.Signer.Name == "" || rep.Verification == nil {
		return
	}
	rep.ClaimedSigner = m.Signer.Name
	signed := rep.Verification.Fingerprints
	if len(signed) == 0 && rep.Verification.Fingerprint != "" {
		signed = []string{rep.Verification.Fingerprint}
	}
	var others []string
	for _, e := range trust.Entries() {
		if !e.Usable || !slices.Contains(e.Principals, m.Signer.Name) {
			continue
		}
		if slices.Contains(signed, e.Fingerprint) {
			return // the name is bound to a key that signed
		}
		if !slices.Contains(others, e.Fingerprint) {
			others = append(others, e.Fingerprint)
		}
	}
	rep.ClaimPinnedTo = others
}

// Classify turns what bundle.Read returned into a report: the verdict,
// and the manifest when one was read (also for a bundle signed for other
// recipients, which inspect still shows).
func Classify(res *bundle.Result, err error) *CheckReport {
	// For me only when the manifest says so: a bundle none of my
	// identities opens is not known to be for me.
	rep := &CheckReport{}
	if res != nil {
		rep.Encryption, rep.Armored = res.Encryption, res.Armored
		if res.Manifest != nil && (err == nil || errors.Is(err, bundle.ErrWrongRecipient)) {
			rep.Manifest = res.Manifest
			rep.BundleID = res.Manifest.BundleID
			rep.Blobs = res.Manifest.Blobs
			rep.ForMe = res.ForReader
			v := res.Verification
			rep.Verification = &v
		}
	}
	switch {
	case err == nil && res != nil:
		rep.Result = Verdict(res.Verification.Status)
		if res.Verification.Status == bundle.StatusInvalid {
			rep.Reason = res.Verification.Reason
			rep.Error = res.Verification.Reason
		}
	case err == nil:
		rep.Result, rep.Error, rep.Kind = VerdictInvalid, "no bundle read", "other"
		rep.Reason = rep.Error
	case errors.Is(err, bundle.ErrNoIdentity), errors.Is(err, bundle.ErrWrongPassphrase):
		rep.Result, rep.Error, rep.Kind = VerdictUnchecked, untrusted.OneLine(err.Error(), maxError), ErrorKind(err)
	default:
		rep.Result, rep.Error, rep.Kind = VerdictInvalid, untrusted.OneLine(err.Error(), maxError), ErrorKind(err)
		rep.Reason = rep.Error
	}
	return rep
}

// ErrorKind names the class of a bundle error for JSON readers:
// wrong_recipient, bad_signature, hash_mismatch, unsupported_version,
// limit, no_identity, wrong_passphrase, malformed or other.
func ErrorKind(err error) string {
	for _, k := range []struct {
		err  error
		name string
	}{
		{bundle.ErrWrongRecipient, "wrong_recipient"}, {bundle.ErrSignature, "bad_signature"},
		{bundle.ErrHashMismatch, "hash_mismatch"}, {bundle.ErrUnsupportedVersion, "unsupported_version"},
		{bundle.ErrLimit, "limit"}, {bundle.ErrNoIdentity, "no_identity"},
		{bundle.ErrWrongPassphrase, "wrong_passphrase"}, {bundle.ErrMalformed, "malformed"},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other"
}

// maxError bounds the error a report carries.
const maxError = 1 << 10

package exchange

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/changes"
	"github.com/session-handoff/session-handoff/internal/people"
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
	// ConflictNewer replaces a record from the same signing key when the
	// bundle's is newer (its session's last activity, else its creation,
	// is later) and skips an older one: the versions of one record that a
	// device of mine sends as its session goes on, in whatever order
	// they arrive. A record from another signer is a conflict, as with
	// ConflictFail.
	ConflictNewer Conflict = "newer"
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
	// Signers, when not empty, are the fingerprints of the only keys
	// whose bundles may be imported (sync takes my devices' alone); any
	// other bundle is refused, whatever the trust store says of it.
	Signers []string
}

// Allows is the policy's decision on a bundle's verification: nil when
// the import may go on. Import and a receive's dry run both decide
// through it.
func (p Policy) Allows(v bundle.Verification) error {
	if len(p.Signers) > 0 && (v.Status != bundle.StatusVerified || !slices.Contains(p.Signers, v.Fingerprint)) {
		return fmt.Errorf("%w (%s)", ErrRefusedNotListed, cmp.Or(v.Fingerprint, "unsigned"))
	}
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
	// ClaimedSigner and ClaimPinnedTo are CheckReport's: the name the
	// bundle gives its signer, and the keys the trust store binds that
	// name to when none of them signed (a bundle that impersonates).
	ClaimedSigner string
	ClaimPinnedTo []string
}

// Refusal errors: the bundle is intact but the policy says no.
var (
	ErrRefusedUntrusted = errors.New("signed by a key that is not in the trust store")
	ErrRefusedUnsigned  = errors.New("the bundle is not signed")
	ErrRefusedRecipient = errors.New("signed for other recipients")
	// ErrRefusedNotListed refuses a bundle signed by a key that
	// Policy.Signers does not list.
	ErrRefusedNotListed = errors.New("not signed by one of my devices")
	ErrConflict         = errors.New("a different handoff with this id is already stored")
	// ErrFuture refuses a record dated, or whose id is dated, after
	// MaxClockSkew from now: it would stay at the top of the list.
	ErrFuture = errors.New("dated in the future")
)

// MaxClockSkew is how far in the future a record imported may be dated
// (clocks differ); a record dated later is refused.
const MaxClockSkew = 24 * time.Hour

// checkDate refuses a record dated more than MaxClockSkew after now, by
// its created_at or by the time its id carries (the sender chooses both).
func checkDate(rec *handoff.Record, now time.Time) error {
	limit := now.Add(MaxClockSkew)
	if rec.CreatedAt.After(limit) {
		return fmt.Errorf("handoff %s: %w: created %s, more than a day after this machine's clock (%s)", rec.ID, ErrFuture,
			rec.CreatedAt.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if at := rec.ID.Time(); at.After(limit) {
		return fmt.Errorf("handoff %s: %w: its id says %s, more than a day after this machine's clock (%s)", rec.ID, ErrFuture,
			at.Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return nil
}

// Import reads a bundle from r, checks it completely, applies pol, and only
// then stores the record and its attachments in s. keys supplies the trust
// store (and is where TOFU pins go). On any error nothing is stored.
//
// A record already stored under the bundle's record id is decided on by
// what it holds and who signed it, never by the bundle id the sender
// chose: the same content from the same signing key is Already (or gets
// the provenance of the new check, when the key was trusted since); a
// record from another signer, or saved on this machine, is replaced only
// with ConflictReplace, and the error names both signers.
func Import(r io.Reader, s *store.Store, keys Keyring, ropts bundle.ReadOptions, pol Policy, now time.Time) (*ImportResult, error) {
	trust, err := keys.TrustStore()
	if err != nil {
		return nil, err
	}
	return importWith(r, s, keys, ropts, pol, now, trust)
}

// importWith is Import judging the bundle against trust, the trust store
// as it was when the receive began: a key pinned by an earlier bundle of
// the same receive is not in it, so its later bundles are pinned too,
// never verified by that pin (ImportMany). Pins are still made in the
// trust store as it is now (keys.TrustPath).
func importWith(r io.Reader, s *store.Store, keys Keyring, ropts bundle.ReadOptions, pol Policy, now time.Time, trust *crypto.TrustStore) (*ImportResult, error) {
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
	if err := acceptRead(res, err, pol); err != nil {
		return nil, err
	}
	rec, pin, err := judge(res, trust, pol, now)
	if err != nil {
		return nil, err
	}
	result := newResult(rec, res, trust)
	// Decided once before any lock, so that a bundle already imported
	// pins nothing; commit decides again under the store's lock.
	existing, outcome, _, err := decide(s.Get, rec, pol)
	if err != nil {
		return nil, err
	}
	if outcome != "" {
		result.Outcome = outcome
		if outcome == Already {
			result.Record = existing
		}
		return result, nil
	}
	store1 := func() error {
		return s.Batch(func(b *store.Batch) error { return commit(b, staging, result, pol) })
	}
	if pin == nil {
		if err := store1(); err != nil {
			return result, err
		}
		keepHeaders(s, result)
		return result, nil
	}
	// Pin and store under the trust store's lock: if the pin is refused
	// (another key took the name meanwhile) nothing is stored.
	err = crypto.UpdateTrustStore(keys.TrustPath(), func(ts *crypto.TrustStore) error {
		if err := ts.Pin(pin.principal, pin.key); err != nil {
			return err
		}
		return store1()
	})
	if err != nil {
		return nil, err
	}
	result.PinnedAs = pin.principal
	keepHeaders(s, result)
	return result, nil
}

// keepHeaders stores the headers sidecar of the changes.patch the record
// result imported carries (changes.KeepHeaders), so that the briefings
// need not read the patch. The record is stored by then: a sidecar that
// could not be written is left for the first briefing to write.
func keepHeaders(s *store.Store, result *ImportResult) {
	if result.Outcome != Imported && result.Outcome != Replaced {
		return
	}
	if at, ok := result.Record.Changes(); ok {
		_ = changes.KeepHeaders(s, at)
	}
}

// newResult is the result of importing res, whose record is rec, before
// it is stored: with the signer the bundle claims, and the keys the trust
// store pins that name to when they are not the signer's.
func newResult(rec *handoff.Record, res *bundle.Result, trust *crypto.TrustStore) *ImportResult {
	claim := &CheckReport{Manifest: res.Manifest, Verification: &res.Verification}
	checkClaim(claim, trust)
	return &ImportResult{Record: rec, Bundle: res, ClaimedSigner: claim.ClaimedSigner, ClaimPinnedTo: claim.ClaimPinnedTo}
}

// acceptRead is the import's answer to what bundle.Read returned: its
// error, except that a bundle signed for other recipients is refused
// (ErrRefusedRecipient) unless the policy allows it.
func acceptRead(res *bundle.Result, err error, pol Policy) error {
	if errors.Is(err, bundle.ErrWrongRecipient) && pol.AllowOtherRecipients && res != nil && res.Manifest != nil {
		return nil
	}
	if errors.Is(err, bundle.ErrWrongRecipient) {
		return ErrRefusedRecipient
	}
	return err
}

// commit stores the record of a checked bundle (result.Record, with
// result.Bundle's blobs in st) within the store batch b: it decides on it
// against what the store holds, under the batch's lock, then moves its
// blobs in and puts the record (a record never points at a blob that is
// not there), and sets result.Outcome.
func commit(b *store.Batch, st *store.Staging, result *ImportResult, pol Policy) error {
	existing, outcome, replace, err := decide(b.Get, result.Record, pol)
	if err != nil {
		return err
	}
	if outcome != "" {
		result.Outcome = outcome
		if outcome == Already {
			result.Record = existing
		}
		return nil
	}
	m := result.Bundle.Manifest
	for i, f := range result.Bundle.BlobFiles {
		if err := b.AdoptBlob(st, f, m.Blobs[i].SHA256); err != nil {
			return err
		}
	}
	replaced, err := b.Put(result.Record, replace)
	if err != nil {
		return err
	}
	result.Outcome = Imported
	if replaced {
		result.Outcome = Replaced
	}
	return nil
}

// Preview says what Import would do with a bundle that has been read and
// checked (res, read with the trust store of keys), storing and pinning
// nothing: the outcome (Imported or Replaced for a record it would store,
// Already or Skipped for one it would not) or the error Import would
// return. A receive's dry run reports through it, so that it and the
// receive agree.
func Preview(res *bundle.Result, s *store.Store, keys Keyring, pol Policy, now time.Time) (Outcome, error) {
	trust, err := keys.TrustStore()
	if err != nil {
		return "", err
	}
	rec, _, err := judge(res, trust, pol, now)
	if err != nil {
		return "", err
	}
	existing, outcome, replace, err := decide(s.Get, rec, pol)
	switch {
	case err != nil:
		return "", err
	case outcome != "":
		return outcome, nil
	case replace && existing != nil:
		return Replaced, nil
	}
	return Imported, nil
}

// judge applies the policy to a checked bundle and returns the record to
// store, with the provenance of this check in place of whatever source the
// bundle claims, and the pin TOFU asks for (nil for none).
func judge(res *bundle.Result, trust *crypto.TrustStore, pol Policy, now time.Time) (*handoff.Record, *pinRequest, error) {
	m := res.Manifest
	v := res.Verification
	if m == nil || m.Record == nil {
		return nil, nil, errors.New("invalid bundle: no record")
	}
	if err := pol.Allows(v); err != nil {
		return nil, nil, err
	}
	if err := checkDate(m.Record, now); err != nil {
		return nil, nil, err
	}
	made := m.CreatedAt.UTC()
	prov := &handoff.Provenance{BundleID: m.BundleID, ImportedAt: now.UTC().Truncate(time.Millisecond), Fingerprint: v.Fingerprint,
		BundleCreatedAt: &made}
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
			return nil, nil, err
		}
		pin = p
		prov.Verification = "pinned"
		prov.Signer = p.principal
	case bundle.StatusUnsigned:
		prov.Verification = "unsigned"
		prov.Fingerprint = ""
	}
	rec := *m.Record
	rec.Source = handoff.Source{Kind: handoff.SourceImport, Import: prov}
	return &rec, pin, nil
}

// decide applies the conflict rules to what the store holds under rec's
// id (get reads it). It returns the stored record (nil when there is
// none) and either an outcome that ends the import (Already, Skipped),
// or whether storing rec replaces the stored record, or the conflict.
func decide(get func(handoff.ID) (*handoff.Record, error), rec *handoff.Record, pol Policy) (existing *handoff.Record, done Outcome, replace bool, err error) {
	existing, err = get(rec.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, err
	}
	old, prov := existing.Source.Import, rec.Source.Import
	sameSigner := signerKey(existing) == signerKey(rec)
	merged := false
	if k := signerKey(rec); sameSigner && k != "local" && k != "unsigned" && SameHandoff(existing, rec) {
		// The same handoff, signed by the same key, with other
		// attachments: they merge; a bundle that adds nothing to the
		// copy stored is that copy.
		mergeAttachments(existing, rec, pol.OnConflict == ConflictNewer && newerVersion(rec, existing))
		merged = true
	}
	same := sameSigner && SameContent(existing, rec)
	switch {
	case same && old.Verification == prov.Verification && old.Signer == prov.Signer:
		return existing, Already, false, nil
	case same, merged:
		// The same record from the same key, now checked differently
		// (its signer was trusted or pinned since): record the new
		// provenance. Or the same handoff with attachments the copy
		// lacks: store it with all of them.
		return existing, "", true, nil
	case pol.OnConflict == ConflictNewer && sameSigner && signerKey(rec) != "unsigned":
		if newerVersion(rec, existing) {
			return existing, "", true, nil
		}
		return existing, Skipped, false, nil
	case pol.OnConflict == ConflictSkip:
		return existing, Skipped, false, nil
	case pol.OnConflict == ConflictReplace:
		return existing, "", true, nil
	case sameSigner:
		return existing, "", false, fmt.Errorf("%w: %s (%s; %s)", ErrConflict, rec.ID, describeSigner(existing), differs(existing, rec))
	}
	return existing, "", false, fmt.Errorf("%w: %s is stored %s; this bundle is %s (%s)", ErrConflict, rec.ID, describeSigner(existing), describeSigner(rec), differs(existing, rec))
}

// SameHandoff reports whether two records are the same handoff: equal in
// every field but Source (import's own), Attachments and Redactions (what
// was attached, and what was redacted from it, may differ between two
// exports of one handoff, and merge).
func SameHandoff(a, b *handoff.Record) bool {
	return len(differingFields(a, b)) == 0
}

// differingFields names the record's fields, as JSON names them, whose
// values differ between a and b, but source, attachments and redactions.
func differingFields(a, b *handoff.Record) []string {
	fa, fb := fields(a), fields(b)
	var out []string
	for k, va := range fa {
		if vb, ok := fb[k]; !ok || !bytes.Equal(va, vb) {
			out = append(out, k)
		}
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// fields is r's JSON object by field, without the fields SameHandoff
// leaves out; nil if it cannot be marshalled.
func fields(r *handoff.Record) map[string]json.RawMessage {
	data, err := json.Marshal(r)
	var m map[string]json.RawMessage
	if err != nil || json.Unmarshal(data, &m) != nil {
		return nil
	}
	delete(m, "source")
	delete(m, "attachments")
	delete(m, "redactions")
	return m
}

// differs says what differs between the stored record and the bundle's,
// for a conflict's error.
func differs(stored, rec *handoff.Record) string {
	if f := differingFields(stored, rec); len(f) > 0 {
		return "they differ in " + strings.Join(f, ", ")
	}
	return "they differ in their attachments"
}

// mergeAttachments gives rec the attachments of existing it lacks, in
// existing's order then rec's new ones (of two of one name, the stored
// one, unless recNewer: a newer version of the record, by sync's rule,
// brings its own), and of the redactions of each kind the larger count:
// the same handoff, attached to differently, is stored once with all of
// it.
func mergeAttachments(existing, rec *handoff.Record, recNewer bool) {
	byName := map[string]handoff.Attachment{}
	for _, at := range rec.Attachments {
		byName[at.Name] = at
	}
	var merged []handoff.Attachment
	seen := map[string]bool{}
	for _, at := range existing.Attachments {
		if n, ok := byName[at.Name]; ok && recNewer {
			at = n
		}
		merged = append(merged, at)
		seen[at.Name] = true
	}
	for _, at := range rec.Attachments {
		if !seen[at.Name] {
			merged = append(merged, at)
		}
	}
	rec.Attachments = merged
	counts := map[string]int{}
	var kinds []string
	for _, r := range append(append([]handoff.Redaction(nil), existing.Redactions...), rec.Redactions...) {
		if _, ok := counts[r.Kind]; !ok {
			kinds = append(kinds, r.Kind)
		}
		counts[r.Kind] = max(counts[r.Kind], r.Count)
	}
	rec.Redactions = nil
	for _, k := range kinds {
		rec.Redactions = append(rec.Redactions, handoff.Redaction{Kind: k, Count: counts[k]})
	}
}

// newerVersion reports whether rec, from the key that sent existing, is a
// later version of it: its session's activity is later, or, the activity
// being the same (words added by hand, an agent's save), its bundle was
// made later (a copy stored before bundles' times were kept counts as
// older). The same time is not newer: the copy stays.
func newerVersion(rec, existing *handoff.Record) bool {
	ra, ea := activity(rec), activity(existing)
	if !ra.Equal(ea) {
		return ra.After(ea)
	}
	rb, eb := bundleMade(rec), bundleMade(existing)
	switch {
	case rb == nil:
		return false
	case eb == nil:
		return true
	}
	return rb.After(*eb)
}

// bundleMade is when the bundle an imported record came in was made.
func bundleMade(r *handoff.Record) *time.Time {
	if r.Source.Import == nil {
		return nil
	}
	return r.Source.Import.BundleCreatedAt
}

// activity is when a record was last worked on: its session's last
// activity, else its creation.
func activity(r *handoff.Record) time.Time {
	if r.Session != nil && r.Session.LastActivity != nil {
		return *r.Session.LastActivity
	}
	return r.CreatedAt
}

// signerKey names who a stored or imported record comes from, for the
// conflict rules: the fingerprint of the key that signed its bundle, or
// one of two words for unsigned bundles and records made on this machine.
// A fingerprint is "SHA256:" and base64, so it never equals either word.
func signerKey(r *handoff.Record) string {
	p := r.Source.Import
	switch {
	case r.Source.Kind != handoff.SourceImport || p == nil:
		return "local"
	case p.Verification == "unsigned" || p.Fingerprint == "":
		return "unsigned"
	}
	return p.Fingerprint
}

// describeSigner says where a record comes from, for a conflict's error.
func describeSigner(r *handoff.Record) string {
	p := r.Source.Import
	switch k := signerKey(r); {
	case k == "local":
		return "from this machine"
	case k == "unsigned":
		return "unsigned"
	case p.Signer != "":
		return fmt.Sprintf("signed by %s (%s)", handoff.Shorten(handoff.CleanText(p.Signer), 80), k)
	default:
		return fmt.Sprintf("signed by %s (%s)", k, p.Verification)
	}
}

// SameContent reports whether two records hold the same handoff: every
// field but Source (which import replaces with its own provenance) is
// equal.
func SameContent(a, b *handoff.Record) bool {
	ca, cb := *a, *b
	ca.Source, cb.Source = handoff.Source{}, handoff.Source{}
	ja, err := json.Marshal(&ca)
	if err != nil {
		return false
	}
	jb, err := json.Marshal(&cb)
	return err == nil && bytes.Equal(ja, jb)
}

type pinRequest struct {
	principal string
	key       crypto.PublicKey
}

// tofuPrincipal decides the name to pin for an untrusted signer: the name
// in the bundle's signer hint, which must be a name (people.CheckName, so
// never one of my devices' "me@" names) not yet bound to another key.
func tofuPrincipal(m *bundle.Manifest, v bundle.Verification, trust *crypto.TrustStore) (*pinRequest, error) {
	if m.Signer == nil || m.Signer.Name == "" {
		return nil, errors.New("cannot trust on first use: the bundle names no signer")
	}
	if err := people.CheckName(m.Signer.Name); err != nil {
		// Never one of my devices' names: only pairing gives one.
		return nil, fmt.Errorf("cannot trust on first use: %w", err)
	}
	if err := trust.CheckNew(m.Signer.Name); err != nil {
		return nil, fmt.Errorf("cannot trust on first use: %w", err)
	}
	key, err := crypto.ParsePublicKey(v.Key)
	if err != nil {
		return nil, fmt.Errorf("cannot trust on first use: %w", err)
	}
	for _, e := range trust.Entries() {
		for _, p := range e.Principals {
			if p == m.Signer.Name && e.Key != key {
				return nil, fmt.Errorf("%w: your trust store binds %s to %s; this bundle is signed by %s", crypto.ErrPinnedToOtherKey, m.Signer.Name, e.Fingerprint, v.Fingerprint)
			}
		}
	}
	return &pinRequest{principal: m.Signer.Name, key: key}, nil
}

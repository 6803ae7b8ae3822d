package handoff

// Origin says in a few words how far to trust where a record came from,
// for list and show: "mine" (saved or captured on this machine),
// "verified: alice@laptop" (signed by a key the trust store names),
// "pinned: alice@laptop" (trusted on first use by its import), "no longer
// trusted: alice@laptop" (verified at import by a key the trust store no
// longer binds to that name: Source.Recheck), "untrusted"
// (signed by a key not trusted), "unsigned", or "legacy" (written by an
// earlier version). The signer is cleaned and shortened, as it is record
// text.
func (s Source) Origin() string {
	switch s.Kind {
	case SourceHand, SourceTranscript:
		return "mine"
	case SourceLegacy:
		return "legacy"
	case SourceImport:
	default:
		return "unknown"
	}
	p := s.Import
	if p == nil {
		return "unknown" // Normalize requires the provenance of an import
	}
	if p.Verification == "verified" && p.Withdrawn {
		who := p.Signer
		if who == "" {
			who = p.Fingerprint
		}
		return "no longer trusted: " + Shorten(CleanText(who), 64)
	}
	switch p.Verification {
	case "verified", "pinned":
		who := p.Signer
		if who == "" {
			who = p.Fingerprint
		}
		if who == "" {
			return p.Verification
		}
		return p.Verification + ": " + Shorten(CleanText(who), 64)
	case "untrusted", "unsigned":
		return p.Verification
	}
	return "unknown"
}

// Vouched reports whether where the record came from is vouched for: made
// on this machine (saved or captured here), or imported with a signature
// by a key in the trust store, which still holds it (Recheck). Everything
// else is unverified: a key
// pinned on first use (nobody vouched for it before), a key not in the
// trust store (--allow-untrusted), no signature (--allow-unsigned), a
// legacy record (import --legacy, stored unsigned) and an import with no
// record of its check. It is the one decision every rendering words
// from (render, resume, the hooks, MCP): an unverified handoff's claims
// are to be checked, and its next steps reviewed with the user rather
// than carried out.
func (s Source) Vouched() bool {
	switch s.Kind {
	case SourceHand, SourceTranscript:
		return true
	case SourceImport:
		return s.Import != nil && s.Import.Verification == "verified" && !s.Import.Withdrawn
	}
	return false
}

// Recheck decides again, when the record is read, what its import
// decided: trust is the trust store as it is now, not as it was. A record
// verified at import stays vouched for only while binds(fingerprint,
// signer) says the trust store still binds its signer's name to its key;
// otherwise it is Withdrawn (a device removed with 'devices rm', a key
// with 'trust rm'). A check only withdraws: a record pinned, untrusted or
// unsigned at import becomes verified by being imported again, never by
// being read (a key pinned on first use is in the trust store, and must
// not vouch for what arrived with it). Every reader gets records so
// rechecked (store.Store.SetTrust), so that render, the briefing, show,
// apply and latest decide on the trust store as it is.
func (s *Source) Recheck(binds func(fingerprint, signer string) bool) {
	if p := s.Import; s.Kind == SourceImport && p != nil && p.Verification == "verified" {
		p.Withdrawn = !binds(p.Fingerprint, p.Signer)
	}
}

package handoff

// Origin says in a few words how far to trust where a record came from,
// for list and show: "mine" (saved or captured on this machine),
// "verified: alice@laptop" (signed by a key the trust store names),
// "pinned: alice@laptop" (trusted on first use by its import), "untrusted"
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

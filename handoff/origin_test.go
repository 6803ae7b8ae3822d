package handoff

import "testing"

func TestOrigin(t *testing.T) {
	cases := []struct {
		src  Source
		want string
	}{
		{Source{Kind: SourceHand}, "mine"},
		{Source{Kind: SourceTranscript}, "mine"},
		{Source{Kind: SourceLegacy}, "legacy"},
		{Source{Kind: SourceImport, Import: &Provenance{Verification: "verified", Signer: "alice@laptop", Fingerprint: "SHA256:x"}}, "verified: alice@laptop"},
		{Source{Kind: SourceImport, Import: &Provenance{Verification: "pinned", Signer: "bob\x1b[2J@desk"}}, "pinned: bob[2J@desk"},
		{Source{Kind: SourceImport, Import: &Provenance{Verification: "pinned", Fingerprint: "SHA256:abc"}}, "pinned: SHA256:abc"},
		{Source{Kind: SourceImport, Import: &Provenance{Verification: "untrusted", Fingerprint: "SHA256:abc"}}, "untrusted"},
		{Source{Kind: SourceImport, Import: &Provenance{Verification: "unsigned"}}, "unsigned"},
		{Source{Kind: SourceImport}, "unknown"},
		{Source{Kind: "forged"}, "unknown"},
		{Source{Kind: SourceImport, Import: &Provenance{Verification: "mine"}}, "unknown"},
	}
	for _, c := range cases {
		if got := c.src.Origin(); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.src, got, c.want)
		}
	}
}

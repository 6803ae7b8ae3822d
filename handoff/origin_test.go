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

// Recheck decides an import's trust again when it is read: a record
// verified at import whose signer's key the trust store no longer binds
// reads as no longer trusted and is not vouched for; one still bound
// stays verified; a check never promotes a pinned, untrusted or unsigned
// record, nor touches one made here.
func TestRecheck(t *testing.T) {
	const fp = "SHA256:AAAA"
	src := func(v string) Source {
		return Source{Kind: SourceImport, Import: &Provenance{Verification: v, Signer: "me@laptop", Fingerprint: fp}}
	}
	bindsNone := func(string, string) bool { return false }
	bindsAll := func(string, string) bool { return true }
	bindsOther := func(f, signer string) bool { return f == fp && signer == "bob" }

	s := src("verified")
	s.Recheck(bindsAll)
	if !s.Vouched() || s.Origin() != "verified: me@laptop" {
		t.Fatalf("still trusted: %v %q", s.Vouched(), s.Origin())
	}
	for _, binds := range []func(string, string) bool{bindsNone, bindsOther} {
		s := src("verified")
		s.Recheck(binds)
		if s.Vouched() || s.Origin() != "no longer trusted: me@laptop" {
			t.Fatalf("withdrawn: %v %q", s.Vouched(), s.Origin())
		}
	}
	for _, v := range []string{"pinned", "untrusted", "unsigned"} {
		s := src(v)
		s.Recheck(bindsAll)
		if s.Vouched() || s.Import.Withdrawn {
			t.Fatalf("%s read as vouched for after a recheck", v)
		}
	}
	mine := Source{Kind: SourceHand}
	mine.Recheck(bindsNone)
	if !mine.Vouched() {
		t.Fatal("a record made here was withdrawn")
	}
}

package paths

import "testing"

// The file names are on disk in users' directories: they must never
// change.
func TestConfigDirNames(t *testing.T) {
	d := ConfigDir("/c")
	for got, want := range map[string]string{
		d.SigningKey():        "/c/signing_key",
		d.SigningPublicKey():  "/c/signing_key.pub",
		d.AgeIdentity():       "/c/age_identity.txt",
		d.Trust():             "/c/allowed_signers",
		d.RedactPatterns():    "/c/redact-patterns",
		d.People():            "/c/people",
		d.Remotes():           "/c/remotes",
		d.HandoverApprovals(): "/c/handover-approved",
		d.Pause():             "/c/PAUSE",
	} {
		if got != want {
			t.Errorf("%s, want %s", got, want)
		}
	}
}

package legacy

import (
	"flag"
	"os"
	"testing"

	"github.com/session-handoff/session-handoff/internal/legacy/oldtools"
)

var update = flag.Bool("update", false, "rewrite the legacy fixtures in testdata")

func TestUpdateFixtures(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata fixtures")
	}
	// Written as session-handoff v0.7.5 wrote them (package oldtools):
	// its store, its signed bundle, and that bundle encrypted (the salt
	// and nonce, random then, fixed here).
	must(t, os.WriteFile("testdata/handoffs.json", oldtools.StoreFile([]oldtools.Record{oldRec}), 0o644))
	must(t, os.WriteFile("testdata/bundle-v3.json", bundleJSON(3), 0o644))
	must(t, os.WriteFile("testdata/bundle-v3.enc.json", oldtools.Encrypt(bundleJSON(3), "legacy pass", []byte("0123456789abcdef"), []byte("unique nonce")), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

package legacy

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the legacy fixtures in testdata")

func TestUpdateFixtures(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata fixtures")
	}
	store := []byte(`{"version":1,"items":[` + item + `]}` + "\n")
	must(t, os.WriteFile("testdata/handoffs.json", store, 0o644))
	must(t, os.WriteFile("testdata/bundle-v3.json", append(bundleJSON(3), '\n'), 0o644))
	must(t, os.WriteFile("testdata/bundle-v3.enc.json", append(encrypt(t, bundleJSON(3), "legacy pass", 32768), '\n'), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

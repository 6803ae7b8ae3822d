package paths

import (
	"errors"
	"strings"
	"testing"
)

func TestHostnameRule(t *testing.T) {
	for _, tc := range []struct {
		name, host string
		err        error
		want       string
	}{
		{"plain", "build-01", nil, "build-01"},
		{"error", "x", errors.New("no"), ""},
		{"controls removed", "ho\x1b[2Jst\r", nil, "ho[2Jst"},
		{"bounded on a character", strings.Repeat("a", 254) + "é", nil, strings.Repeat("a", 254)},
	} {
		got := hostname(func() (string, error) { return tc.host, tc.err })
		if got != tc.want {
			t.Errorf("%s: hostname = %q, want %q", tc.name, got, tc.want)
		}
	}
	if len(Hostname()) > MaxHostname {
		t.Fatal("Hostname over MaxHostname")
	}
}

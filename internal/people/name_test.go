package people

import (
	"errors"
	"testing"
)

// CheckName is the one rule of a name given to a signer: never a "me@"
// name (pairing alone gives one), never a path or an option; a device's
// name follows it too.
func TestCheckName(t *testing.T) {
	for _, ok := range []string{"bob", "bob@desk", "alice.smith@example.com", "ünïcode"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q): %v", ok, err)
		}
		if err := CheckDeviceName(ok); err != nil {
			t.Errorf("CheckDeviceName(%q): %v", ok, err)
		}
	}
	for _, mine := range []string{"me@phone", "me@laptop", "me@"} {
		if err := CheckName(mine); !errors.Is(err, ErrMine) {
			t.Errorf("CheckName(%q): %v, want ErrMine", mine, err)
		}
		if err := CheckDeviceName(mine); !errors.Is(err, ErrMine) {
			t.Errorf("CheckDeviceName(%q): %v, want ErrMine", mine, err)
		}
	}
	for _, bad := range []string{"../x", "a/b", `a\b`, ".hidden", "-rf", "", "a b", "a,b"} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) accepted", bad)
		}
		if err := CheckDeviceName(bad); err == nil {
			t.Errorf("CheckDeviceName(%q) accepted", bad)
		}
	}
}

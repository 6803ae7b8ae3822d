package people

import (
	"errors"
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// MinePrefix starts the trust-store principal of every device of mine: a
// device named laptop signs as "me@laptop". Pairing ('devices add') alone
// gives a key such a name; CheckName refuses it everywhere else.
const MinePrefix = "me@"

// Errors of CheckName that callers tell apart.
var (
	// ErrMine is wrapped when a name other than pairing's starts with
	// MinePrefix: it would make a stranger's key read as one of mine.
	ErrMine = errors.New("names one of my devices, and only pairing ('session-handoff devices add') gives such a name")
	// ErrNotAName is wrapped when a name reads as a path or an option.
	ErrNotAName = errors.New("is not a name")
)

// CheckName is the one check of a name given to a signer, wherever it
// comes from: 'trust add' (a key line's comment or --principal), 'people
// add', trust on first use (the name a bundle gives its signer), and a
// device's name in pairing (checked without its MinePrefix, which pairing
// adds). A name is a valid trust-store principal (crypto.ValidatePrincipal)
// that reads as a name and not as a path or an option (no '/' or '\', not
// starting with '.' or '-'), and does not start with MinePrefix.
func CheckName(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if strings.HasPrefix(name, MinePrefix) {
		return fmt.Errorf("%s %w", untrusted.Quote(name, 80), ErrMine)
	}
	return nil
}

// CheckDeviceName checks the name of one of my devices: a name as
// CheckName has it, whose principal MinePrefix+name is valid too.
func CheckDeviceName(name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	return checkName(MinePrefix + name)
}

// checkName is CheckName without the MinePrefix rule.
func checkName(name string) error {
	if err := crypto.ValidatePrincipal(name); err != nil {
		return fmt.Errorf("name %s: %w", untrusted.Quote(name, 80), err)
	}
	if strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "-") {
		return fmt.Errorf("%s %w: it holds a slash or starts with '.' or '-'", untrusted.Quote(name, 80), ErrNotAName)
	}
	return nil
}

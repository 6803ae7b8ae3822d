package exchange

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// TestKeyringRefusesHostileKeyFiles: the keyring's own files are used only
// when they are what they claim to be (the hostile-input campaign runs the
// same through the CLI).
func TestKeyringRefusesHostileKeyFiles(t *testing.T) {
	newKeys := func(t *testing.T) Keyring {
		kr := Keyring{Dir: filepath.Join(t.TempDir(), "config")}
		if _, err := kr.Generate("alice@test", nil, false); err != nil {
			t.Fatal(err)
		}
		return kr
	}
	t.Run("private keys others can read", func(t *testing.T) {
		kr := newKeys(t)
		for _, p := range []string{kr.SigningKeyPath(), kr.AgeIdentityPath()} {
			if err := os.Chmod(p, 0o640); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := kr.SigningKey(nil); err == nil || !strings.Contains(err.Error(), "has mode 0640") {
			t.Errorf("signing key: %v", err)
		}
		if _, _, err := kr.Identities(nil, nil); err == nil || !strings.Contains(err.Error(), kr.AgeIdentityPath()+" has mode 0640") {
			t.Errorf("identity: %v", err)
		}
		// The public side stays readable: key show needs no secret.
		if _, err := kr.Info(); err != nil {
			t.Errorf("info: %v", err)
		}
	})
	t.Run("FIFOs are not waited on", func(t *testing.T) {
		kr := newKeys(t)
		for _, p := range []string{kr.SigningKeyPath(), kr.AgeIdentityPath(), kr.TrustPath()} {
			testsys.Absent(t, p) // no trust store yet
			testsys.Mkfifo(t, p)
		}
		if _, err := kr.SigningKey(nil); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("signing key: %v", err)
		}
		if _, _, err := kr.Identities(nil, nil); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("identity: %v", err)
		}
		if _, err := kr.Info(); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("info: %v", err)
		}
		if _, err := kr.TrustStore(); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("trust store: %v", err)
		}
	})
	t.Run("a public key that is not the private key's", func(t *testing.T) {
		kr := newKeys(t)
		other := newKeys(t)
		pub, err := os.ReadFile(other.SigningKeyPath() + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(kr.SigningKeyPath()+".pub", pub, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := kr.Info(); err == nil || !strings.Contains(err.Error(), "does not match the signing key") {
			t.Errorf("info: %v", err)
		}
	})
}

package bundle

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// A key derivation that an interrupt comes into returns at once with the
// interrupt, whatever the work factor: here 2^30 (128 GiB of memory), the
// most a limit allows, which would not return at all if it ran.
func TestInterruptStopsTheKeyDerivation(t *testing.T) {
	k := loadKeys(t)
	data := scryptWorkFactor(t, k, 30)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := k.readOptions()
	opts.Limits.MaxScryptWorkFactor = 30
	opts.Context = ctx
	asked := false
	opts.Passphrase = func() ([]byte, error) {
		asked = true
		cancel() // Ctrl-C while the passphrase is being read
		return k.passphrase, nil
	}
	_, err := Read(bytes.NewReader(data), opts)
	if !asked || !errors.Is(err, context.Canceled) || !errors.Is(err, ErrIO) {
		t.Fatalf("interrupted derivation: asked %v, %v", asked, err)
	}
}

package exchange

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/store"
)

// ImportMany gives each bundle the outcome Import gives it in turn, with
// one difference: with TOFU the first bundle from a new signer pins it,
// and the next ones of the same batch are pinned too, never verified by
// that pin (a key trusted on first use in this receive vouches for none of
// its bundles: SECURITY.md "Trust on first use"; the same bundle again is
// already imported), a damaged bundle and one the caller's check
// refuses are refused for themselves (ReadErr). Attachments are adopted;
// the store lists each record once.
func TestImportManyMatchesImportInTurn(t *testing.T) {
	alice, carol, bob := newParty(t, "alice@test"), newParty(t, "carol@test"), newParty(t, "bob@test")
	a1, a2, c1 := export(t, alice, bob), export(t, alice, bob), export(t, carol, bob)
	damaged := bytes.Clone(a2)
	damaged[len(damaged)/2] ^= 0xff
	inputs := [][]byte{a1, a1, damaged, c1, a2, c1}
	var opened []int
	refused := errors.New("refused by the caller")
	res, err := ImportMany(ManyOptions{
		N: len(inputs),
		Open: func(i int) (io.ReadCloser, error) {
			opened = append(opened, i)
			return io.NopCloser(bytes.NewReader(inputs[i])), nil
		},
		Check: func(i int, _ *bundle.Result, err error) error {
			if i == 5 {
				return refused
			}
			return err
		},
		Store: bob.store, Keys: bob.keys, Read: bob.readOptions(t), Policy: Policy{TOFU: true}, Now: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	outcome := func(r ManyResult) string {
		switch {
		case r.ReadErr != nil:
			return "read error"
		case r.Err != nil:
			return "error: " + r.Err.Error()
		}
		return string(r.Result.Outcome) + " " + r.Result.Record.Source.Import.Verification
	}
	want := []string{"imported pinned", "already imported pinned", "read error", "imported pinned", "imported pinned", "read error"}
	for i, r := range res {
		if got := outcome(r); got != want[i] {
			t.Errorf("bundle %d: %s, want %s", i, got, want[i])
		}
	}
	if !errors.Is(res[5].ReadErr, refused) {
		t.Errorf("the caller's check: %v", res[5].ReadErr)
	}
	// Each bundle opened once in order, then the ones that pin again.
	if want := []int{0, 1, 2, 3, 4, 5, 0, 1, 3, 4}; !slices.Equal(opened, want) {
		t.Errorf("opened %v, want %v", opened, want)
	}
	list, err := bob.store.List(store.Filter{})
	if err != nil || len(list) != 3 {
		t.Fatalf("the store lists %d records (%v), want 3", len(list), err)
	}
	for _, r := range res[:5] {
		if r.Result == nil {
			continue
		}
		got, err := bob.store.Get(r.Result.Record.ID)
		if err != nil || len(got.Attachments) != 1 {
			t.Fatalf("record %s: %v", r.Result.Record.ID, err)
		}
		rc, _, err := bob.store.OpenBlob(got.Attachments[0].SHA256)
		if err != nil {
			t.Fatalf("its attachment: %v", err)
		}
		rc.Close()
	}
}

// Two copies of one bundle in one batch: the second finds the record the
// first stored in the same batch, and is already imported.
func TestImportManyTwiceInOneBatch(t *testing.T) {
	alice, bob := newParty(t, "alice@test"), newParty(t, "bob@test")
	b := export(t, alice, bob)
	res, err := ImportMany(ManyOptions{
		N:     2,
		Open:  func(int) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		Store: bob.store, Keys: bob.keys, Read: bob.readOptions(t), Policy: Policy{AllowUntrusted: true}, Now: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || res[1].Err != nil || res[0].Result.Outcome != Imported || res[1].Result.Outcome != Already {
		t.Fatalf("outcomes: %+v, %+v", res[0], res[1])
	}
	if list, _ := bob.store.List(store.Filter{}); len(list) != 1 {
		t.Fatalf("the store lists %d records", len(list))
	}
}

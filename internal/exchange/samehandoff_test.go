package exchange

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
)

// exportWith makes a bundle from alice to bob of rec (stored in alice's
// store) with the files named in attach (name → content).
func exportWith(t *testing.T, alice, bob party, rec *handoff.Record, attach map[string]string) []byte {
	t.Helper()
	var files []string
	dir := t.TempDir()
	for name, text := range attach {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	r, _, err := crypto.ParseRecipient(bob.info.AgeRecipient)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := alice.keys.SigningKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, err = Export(context.Background(), &buf, alice.store, rec, ExportOptions{SigningKey: sk, Attach: files,
		Recipients: []crypto.RecipientInfo{{Recipient: r, Canonical: bob.info.AgeRecipient}},
		Producer:   bundle.Producer{Name: "session-handoff", Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The same handoff (every field but its source, attachments and
// redactions equal) sent twice with different attachments is one
// handoff: the attachments merge, and a bundle that adds nothing is
// "already imported"; of two attachments of one name, the stored one
// stays. A handoff that differs otherwise is a conflict
// that names the fields that differ. Before, any other set of attachments
// was "a different handoff with this id", refused on every receive,
// without a word of what differed.
func TestTheSameHandoffWithOtherAttachmentsMerges(t *testing.T) {
	alice, bob := newParty(t, "alice@test"), newParty(t, "bob@test")
	trustParty(t, bob, alice)
	rec := newRecord(t, "Port the parser")
	if err := alice.store.Save(rec); err != nil {
		t.Fatal(err)
	}
	imp := func(data []byte) (*ImportResult, error) {
		return Import(bytes.NewReader(data), bob.store, bob.keys, bob.readOptions(t), Policy{}, time.Now())
	}
	for i, s := range []struct {
		attach map[string]string
		want   Outcome
	}{
		{map[string]string{"notes.md": "# notes\n"}, Imported},
		{map[string]string{"notes.md": "# notes\n", "plan.md": "# plan\n"}, Replaced},
		{map[string]string{"plan.md": "# plan\n"}, Already},
		{nil, Already},
		{map[string]string{"notes.md": "# other notes\n"}, Already}, // the stored one stays
	} {
		res, err := imp(exportWith(t, alice, bob, rec, s.attach))
		if err != nil || res.Outcome != s.want {
			t.Fatalf("step %d: %v, %v; want %s", i, res, err, s.want)
		}
	}
	got, err := bob.store.Get(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, at := range got.Attachments {
		names = append(names, at.Name)
	}
	if strings.Join(names, " ") != "notes.md plan.md" {
		t.Fatalf("stored attachments %q, want both", names)
	}
	other := *rec
	other.Title, other.NextSteps = "Another title", []string{"Something else"}
	if _, err := alice.store.Put(&other, true); err != nil {
		t.Fatal(err)
	}
	_, err = imp(exportWith(t, alice, bob, &other, nil))
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "they differ in next_steps, title") {
		t.Fatalf("a different handoff: %v, want a conflict naming next_steps and title", err)
	}
}

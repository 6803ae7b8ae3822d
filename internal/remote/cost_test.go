package remote

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
)

// Many entries of my ref that point to one blob cost one read of that
// blob (two when the first name is not the bundle's own), not one git
// cat-file and one decryption each: the receive's git processes do not
// grow with the copies. The copy named by the bundle's own id is imported
// wherever it sorts; every other name is rejected as a copy.
func TestManyEntriesOfOneBlobAreReadOnce(t *testing.T) {
	r := bareRemote(t)
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	bob.trusts(alice)
	alice.send(r, alice.save("first"), bob) // the refs exist
	bob.receive(r)
	data, id := alice.exportTo("copied", exchange.ExportOptions{Recipients: []crypto.RecipientInfo{bob.recipient()}})
	dir := inboxDir(r, bob.hash())
	const copies = 150
	files := []planted{{path: dir + "/" + id + bundleExt, content: data}}
	for i := range copies {
		// Half sort before the true name, half after.
		prefix := "0"
		if i%2 == 1 {
			prefix = "f"
		}
		files = append(files, planted{path: dir + "/" + prefix + fmt.Sprintf("%031x", i) + bundleExt, content: data})
	}
	plant(t, r, files, "", "")
	reads := 0
	checkoutHook = func([]string) { reads++ }
	defer func() { checkoutHook = nil }()
	gits := countGit(t)
	res := bob.receive(r)
	if n := gits(); n > 12 {
		t.Errorf("the receive started %d git processes for %d copies of one blob, want at most 12", n, copies)
	}
	if reads > 2 {
		t.Errorf("the blob was opened %d times, want at most 2", reads)
	}
	if countOutcome(res, OutcomeImported) != 1 || countOutcome(res, OutcomeRejected) != copies {
		t.Fatalf("receive: %d imported, %d rejected, want 1 and %d", countOutcome(res, OutcomeImported), countOutcome(res, OutcomeRejected), copies)
	}
	for _, it := range res.Items {
		if it.Outcome == OutcomeRejected && !strings.Contains(it.Reason, "the file holds bundle "+id) {
			t.Errorf("%s: %q", it.Path, it.Reason)
		}
	}
	if res.Removed != copies+1 || bob.count() != 2 {
		t.Errorf("removed %d, stored %d", res.Removed, bob.count())
	}
}

// One receive reads at most maxReads new bundles; the rest are refused
// for now and read by the next receive.
func TestReceiveReadsAtMostMaxReads(t *testing.T) {
	defer func(n int) { maxReads = n }(maxReads)
	maxReads = 2
	r := bareRemote(t)
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	bob.trusts(alice)
	for i := range 3 {
		alice.send(r, alice.save(fmt.Sprint("h", i)), bob)
	}
	res := bob.receive(r)
	if countOutcome(res, OutcomeImported) != 2 || countOutcome(res, OutcomeRefused) != 1 {
		t.Fatalf("first receive: %+v", res)
	}
	if res := bob.receive(r); countOutcome(res, OutcomeImported) != 1 || bob.count() != 3 {
		t.Fatalf("second receive: %+v", res)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	io.ReadSeekCloser
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.ReadSeekCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// A stranger's bundle is refused once its signature envelope is read,
// before any of its blobs is decompressed or staged: a receive reads the
// start of the file, not the 4 MiB attachment behind the envelope.
func TestStrangersBundleIsRefusedBeforeItsBlobs(t *testing.T) {
	r := bareRemote(t)
	mallory, bob := newMachine(t, "mallory@x"), newMachine(t, "bob@desk")
	mallory.send(r, mallory.save("first"), bob) // the refs exist
	big := make([]byte, 4<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	sum, size, err := mallory.s.PutBlob(bytes.NewReader(big), int64(len(big)))
	if err != nil {
		t.Fatal(err)
	}
	rec := mallory.save("large")
	rec.Attachments = append(rec.Attachments, handoff.Attachment{Name: "big.bin", MediaType: "application/octet-stream", Size: size, SHA256: sum})
	if _, err := mallory.s.Put(rec, true); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	man, err := exchange.Export(context.Background(), &buf, mallory.s, rec, exchange.ExportOptions{Recipients: []crypto.RecipientInfo{bob.recipient()},
		SigningKey: mallory.sk, Producer: bundle.Producer{Name: "session-handoff", Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	plant(t, r, []planted{{path: inboxDir(r, bob.hash()) + "/" + man.BundleID + bundleExt, content: buf.Bytes()}}, "", "")
	var read atomic.Int64
	readHook = func(f io.ReadSeekCloser) io.ReadSeekCloser { return countingReader{f, &read} }
	defer func() { readHook = nil }()
	res := bob.receive(r)
	if countOutcome(res, OutcomeRefused) != 2 || countOutcome(res, OutcomeImported) != 0 {
		t.Fatalf("receive: %+v", res)
	}
	for _, it := range res.Items {
		if !errors.Is(it.Err, exchange.ErrRefusedUntrusted) || !strings.Contains(it.Reason, "not in the trust store") {
			t.Errorf("%s: %q", it.Path, it.Reason)
		}
	}
	if n := read.Load(); n > int64(buf.Len())/2 {
		t.Errorf("the receive read %d bytes of bundles whose envelopes it refused (%d bytes of bundle)", n, buf.Len())
	}
}

// A bundle refused for its signer is remembered by its object: the next
// receive reports it as still refused without reading it, inbox shows it
// refused with the reason, a change to the trust store has it read again,
// and Drop records it and removes it from my ref.
func TestRefusedBundleIsRememberedThenDropped(t *testing.T) {
	r := bareRemote(t)
	mallory, bob, carol := newMachine(t, "mallory@x"), newMachine(t, "bob@desk"), newMachine(t, "carol@lab")
	mallory.send(r, mallory.save("from a stranger"), bob)
	if res := bob.receive(r); countOutcome(res, OutcomeRefused) != 1 {
		t.Fatalf("first receive: %+v", res)
	}
	var read atomic.Int64
	readHook = func(f io.ReadSeekCloser) io.ReadSeekCloser { return countingReader{f, &read} }
	defer func() { readHook = nil }()
	res := bob.receive(r)
	if countOutcome(res, OutcomeStillRefused) != 1 || len(res.Items) != 1 || !strings.Contains(res.Items[0].Reason, "not in the trust store") {
		t.Fatalf("second receive: %+v", res)
	}
	if n := read.Load(); n != 0 {
		t.Errorf("a remembered refusal was read again: %d bytes", n)
	}
	l := bob.inbox(r)
	if len(l.Bundles) != 1 || l.Bundles[0].Status != "refused" || !strings.Contains(l.Bundles[0].Reason, "not in the trust store") {
		t.Fatalf("inbox: %+v", l.Bundles)
	}
	bob.trusts(carol) // the trust store changed: read again
	if res := bob.receive(r); countOutcome(res, OutcomeRefused) != 1 || read.Load() == 0 {
		t.Fatalf("after a trust change: %+v (read %d bytes)", res, read.Load())
	}
	o := bob.receiveOpts(r)
	o.Drop = []string{res.Items[0].BundleID}
	res, err := Receive(context.Background(), o)
	if err != nil || countOutcome(res, OutcomeDropped) != 1 || res.Removed != 1 {
		t.Fatalf("drop: %v %+v", err, res)
	}
	if n := bundlesFor(t, r, bob); n != 0 || bob.count() != 0 {
		t.Fatalf("after the drop: %d bundles on the remote, %d stored", n, bob.count())
	}
	if res := bob.receive(r); len(res.Items) != 0 {
		t.Fatalf("after the drop: %+v", res)
	}
	if mem := loadRefusals(bob.data); len(mem) != 0 {
		t.Errorf("refusals of bundles no longer on the remote are remembered: %v", mem)
	}
}

// inbox reads a file under many names once too, and lists a stranger's
// bundle from its envelope.
func TestInboxReadsOneBlobOnce(t *testing.T) {
	r := bareRemote(t)
	mallory, bob := newMachine(t, "mallory@x"), newMachine(t, "bob@desk")
	mallory.send(r, mallory.save("first"), bob)
	data, id := mallory.exportTo("copied", exchange.ExportOptions{Recipients: []crypto.RecipientInfo{bob.recipient()}})
	dir := inboxDir(r, bob.hash())
	files := []planted{{path: dir + "/" + id + bundleExt, content: data}}
	for i := range 100 {
		files = append(files, planted{path: dir + "/" + fmt.Sprintf("%032x", i) + bundleExt, content: data})
	}
	plant(t, r, files, "", "")
	bob.inbox(r) // the fetch
	reads := 0
	checkoutHook = func([]string) { reads++ }
	defer func() { checkoutHook = nil }()
	gits := countGit(t)
	l, err := Inbox(context.Background(), InboxOptions{Remote: r, DataDir: bob.data, Keys: bob.keys, Read: bob.readOptions(), NoFetch: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := gits(); n > 8 || reads > 3 {
		t.Errorf("inbox started %d git processes and read %d files for 100 copies of one", n, reads)
	}
	invalid, untrusted := 0, 0
	for _, b := range l.Bundles {
		switch {
		case b.Status == "invalid" && strings.Contains(b.Reason, "the file holds bundle "+id):
			invalid++
		case b.Status == "new" && b.Verification != nil && b.Verification.Status == bundle.StatusUntrusted:
			untrusted++
		default:
			t.Errorf("%s: %s %q", b.BundleID, b.Status, b.Reason)
		}
	}
	if invalid != 100 || untrusted != 2 {
		t.Errorf("%d invalid, %d untrusted, want 100 and 2", invalid, untrusted)
	}
}

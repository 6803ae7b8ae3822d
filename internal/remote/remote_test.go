package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/session-handoff/session-handoff/bundle"
)

// Two machines exchange bundles both ways; a third sees nothing, and its
// key opens nothing.
func TestTwoMachinesBothWaysThirdSeesNothing(t *testing.T) {
	r := bareRemote(t)
	alice, bob, carol := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk"), newMachine(t, "carol@lab")
	alice.trusts(bob)
	bob.trusts(alice)

	secret := "Rotate the payroll secret"
	ha := alice.save(secret)
	sent := alice.send(r, ha, bob)
	if len(sent.Bundles) != 1 || sent.Commit == "" || sent.Attempts != 1 || sent.Bundles[0].Earlier {
		t.Fatalf("send = %+v", sent)
	}
	data := string(remoteBlob(t, r, inboxDir(r, bob.hash())+"/"+sent.Bundles[0].BundleID+bundleExt))
	hb := bob.save("Bob's reply")
	bob.send(r, hb, alice)

	for _, tc := range []struct {
		m     *machine
		title string
	}{{bob, secret}, {alice, "Bob's reply"}} {
		res := tc.m.receive(r)
		if len(res.Items) != 1 || res.Items[0].Outcome != OutcomeImported || res.Items[0].Verification.Status != bundle.StatusVerified {
			t.Fatalf("%s: receive = %+v", tc.m.name, res.Items)
		}
		if tc.m.count() != 2 {
			t.Fatalf("%s: store holds %d handoffs, want 2", tc.m.name, tc.m.count())
		}
		rec, err := tc.m.s.Get(res.Items[0].HandoffID)
		if err != nil || rec.Title != tc.title || rec.Source.Import == nil || rec.Source.Import.Verification != "verified" {
			t.Fatalf("%s: stored %+v, %v", tc.m.name, rec, err)
		}
	}

	// Carol: nothing imported, nothing listed as hers.
	res := carol.receive(r)
	if len(res.Items) != 0 || res.Earlier != 0 || carol.count() != 0 {
		t.Fatalf("carol received %+v", res)
	}
	for _, b := range carol.inbox(r).Bundles {
		if b.Mine {
			t.Fatalf("carol's inbox shows %+v as hers", b)
		}
	}
	// Her key cannot open Bob's bundle.
	if _, err := bundle.Read(strings.NewReader(data), carol.readOptions()); !errors.Is(err, bundle.ErrNoIdentity) {
		t.Fatalf("carol reading bob's bundle: %v, want ErrNoIdentity", err)
	}
}

// The layout is hashes and random ids only: no title, name or content in
// a path, a ref, a commit message or a commit's author.
func TestLayoutRevealsNothing(t *testing.T) {
	r := bareRemote(t)
	alice, bob, carol := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk"), newMachine(t, "carol@lab")
	h := alice.save("Payroll migration plan")
	res := alice.send(r, h, bob, carol)
	id := res.Bundles[0].BundleID
	want := []string{
		markerFile,
		inboxDir(r, bob.hash()) + "/" + id + bundleExt,
		inboxDir(r, carol.hash()) + "/" + id + bundleExt,
	}
	got := remoteFiles(t, r)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("remote holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bare := strings.TrimPrefix(r.URL, "file://")
	if got := remoteBlob(t, r, markerFile); string(got) != markerV2 {
		t.Fatalf("marker %q", got)
	}
	refs := gitT(t, bare, "for-each-ref", "--format=%(refname)")
	if want := r.markerRef() + "\n" + r.recipientRef(bob.hash()) + "\n" + r.recipientRef(carol.hash()); refs != want && refs != r.markerRef()+"\n"+r.recipientRef(carol.hash())+"\n"+r.recipientRef(bob.hash()) {
		t.Fatalf("refs:\n%s", refs)
	}
	meta := ""
	for _, ref := range []string{r.recipientRef(bob.hash()), r.recipientRef(carol.hash())} {
		m := gitT(t, bare, "log", "--format=%an <%ae> %cn <%ce> %P %B", ref)
		if m != "session-handoff <session-handoff@invalid> session-handoff <session-handoff@invalid>  session-handoff: 1 bundle" {
			t.Fatalf("%s: commit says %q", ref, m)
		}
		meta += m
	}
	for _, leak := range []string{"Payroll", "alice", "bob", "carol", "laptop"} {
		if strings.Contains(strings.Join(remoteFiles(t, r), " ")+refs+meta, leak) {
			t.Fatalf("the inbox reveals %q", leak)
		}
	}
}

// Receiving twice imports once; the ledger remembers.
func TestReceiveTwiceImportsOnce(t *testing.T) {
	r := bareRemote(t)
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	bob.trusts(alice)
	alice.send(r, alice.save("one"), bob)
	alice.send(r, alice.save("two"), bob)
	if res := bob.receive(r); countOutcome(res, OutcomeImported) != 2 || res.Removed != 2 {
		t.Fatalf("first receive: %+v", res)
	}
	if n := bundlesFor(t, r, bob); n != 0 {
		t.Fatalf("%d delivered bundles left on the remote", n)
	}
	// A ref of mine is read even if the inbox branch is gone.
	alice.send(r, alice.save("three"), bob)
	gitT(t, strings.TrimPrefix(r.URL, "file://"), "update-ref", "-d", r.markerRef())
	if res := bob.receive(r); countOutcome(res, OutcomeImported) != 1 || res.Removed != 1 {
		t.Fatalf("receive without the inbox branch: %+v", res)
	}
	res := bob.receive(r)
	if len(res.Items) != 0 || res.Earlier != 0 || bob.count() != 3 {
		t.Fatalf("second receive: %+v, store %d", res, bob.count())
	}
	// Even after the handoff is removed from the store, the ledger keeps
	// the bundle from coming back (with layout 2 it has left the remote).
	list, _ := bob.s.List(storeFilter())
	if err := bob.s.Remove(list[0].ID); err != nil {
		t.Fatal(err)
	}
	if res := bob.receive(r); len(res.Items) != 0 || bob.count() != 2 {
		t.Fatalf("after rm: %+v", res.Items)
	}
}

// Twenty senders pushing at the same moment, each to one recipient they
// all share and one they share with three others, all land without
// anyone retrying by hand: every bundle once in each of its recipients'
// refs, none lost, none twice.
func TestConcurrentSendersAllLand(t *testing.T) {
	r := bareRemote(t)
	carol := newMachine(t, "carol@lab")
	var others [5]*machine
	for i := range others {
		others[i] = newMachine(t, fmt.Sprintf("other%d@lab", i))
	}
	var senders []*machine
	for i := range 20 {
		s := newMachine(t, fmt.Sprintf("sender%d@desk", i))
		carol.trusts(s)
		others[i%len(others)].trusts(s)
		senders = append(senders, s)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(senders))
	start := make(chan struct{})
	for i, s := range senders {
		rec := s.save("from " + s.name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if _, err := Send(context.Background(), s.sendOpts(r, rec, carol, others[i%len(others)])); err != nil {
				errs <- fmt.Errorf("%s: %w", s.name, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("send: %v", err)
	}
	if n := bundlesFor(t, r, carol); n != len(senders) {
		t.Fatalf("remote holds %d bundles for carol, want %d", n, len(senders))
	}
	if res := carol.receive(r); countOutcome(res, OutcomeImported) != len(senders) || carol.count() != len(senders) {
		t.Fatalf("carol imported %d, stores %d", countOutcome(res, OutcomeImported), carol.count())
	}
	for _, o := range others {
		if n := bundlesFor(t, r, o); n != len(senders)/len(others) {
			t.Fatalf("remote holds %d bundles for %s, want %d", n, o.name, len(senders)/len(others))
		}
		if res := o.receive(r); countOutcome(res, OutcomeImported) != len(senders)/len(others) {
			t.Fatalf("%s imported %d", o.name, countOutcome(res, OutcomeImported))
		}
	}
}

// TestStaleGitLockIsCleared plants the index.lock a receive killed during
// its checkout leaves, and checks the next receive is not stopped by it.
func TestStaleGitLockIsCleared(t *testing.T) {
	dataDir := t.TempDir()
	bare := filepath.Join(t.TempDir(), "inbox.git")
	if out, err := exec.Command("git", "init", "--quiet", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r := Remote{Name: "team", URL: "file://" + bare, Branch: DefaultBranch}
	c, err := openClone(context.Background(), dataDir, r)
	if err != nil {
		t.Fatal(err)
	}
	c.close()
	// And the lock of a remote-tracking ref, left by an update-ref or
	// fetch killed in the clone.
	refLock := filepath.Join(clonePath(dataDir, "team"), ".git", "refs", "remotes", "origin", "inbox", strings.Repeat("a", 64)+".lock")
	lockFile := filepath.Join(clonePath(dataDir, "team"), ".git", "index.lock")
	if err := os.MkdirAll(filepath.Dir(refLock), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{lockFile, refLock} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err = openClone(context.Background(), dataDir, r)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for _, f := range []string{lockFile, refLock} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("the stale %s is still there", filepath.Base(f))
		}
	}
}

// The first receive on a new machine starts ten git processes (init,
// config, one fetch, for-each-ref, two ls-tree, cat-file, commit-tree,
// push, update-ref; none for the clone's configuration, nor for an empty
// tree), and a receive with nothing new one: the ls-remote that finds my
// refs as the last receive left them. Something new, or a change to the
// ledger, and the receive does its work again.
func TestReceiveGitProcesses(t *testing.T) {
	r := bareRemote(t)
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	bob.trusts(alice)
	alice.send(r, alice.save("one"), bob)
	alice.send(r, alice.save("two"), bob)
	gits := countGit(t)
	receive := func(want int) *ReceiveResult {
		t.Helper()
		before := gits()
		res := bob.receive(r)
		if n := gits() - before; n != want {
			t.Errorf("the receive started %d git processes, want %d", n, want)
		}
		return res
	}
	if res := receive(10); countOutcome(res, OutcomeImported) != 2 || res.Removed != 2 {
		t.Fatalf("first receive: %+v", res)
	}
	if res := receive(1); len(res.Items) != 0 || res.Earlier != 0 {
		t.Fatalf("nothing new: %+v", res)
	}
	alice.send(r, alice.save("three"), bob)
	if res := receive(10); countOutcome(res, OutcomeImported) != 1 || res.Removed != 1 {
		t.Fatalf("one new: %+v", res)
	}
	receive(1)
	// Another remote's receive (or anyone) wrote the ledger: my refs are
	// read again (ls-remote, for-each-ref, two ls-tree).
	if err := os.Remove(ledgerPath(bob.data)); err != nil {
		t.Fatal(err)
	}
	if res := receive(4); len(res.Items) != 0 || bob.count() != 3 {
		t.Fatalf("after the ledger changed: %+v", res)
	}
	receive(1)
}

// A receive killed after the store placed its records but before it
// appended them to the index (the batch's marker left, no ledger line,
// the bundles still on the remote) is finished by the next receive: the
// index is rebuilt from the records, each bundle is found already
// imported, recorded and removed; nothing is lost or stored twice.
func TestReceiveAfterKillInsideTheBatch(t *testing.T) {
	r := bareRemote(t)
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	bob.trusts(alice)
	bob.save("mine")
	for _, title := range []string{"one", "two", "three"} {
		alice.send(r, alice.save(title), bob)
	}
	bare := strings.TrimPrefix(r.URL, "file://")
	ref := r.recipientRef(bob.hash())
	tip := gitT(t, bare, "rev-parse", ref)
	indexPath := filepath.Join(bob.data, "index")
	before, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	if res := bob.receive(r); countOutcome(res, OutcomeImported) != 3 {
		t.Fatalf("first receive: %+v", res.Items)
	}
	// Back to the moment of the kill.
	gitT(t, bare, "update-ref", ref, tip)
	for _, p := range []string{ledgerPath(bob.data), filepath.Join(bob.data, "search")} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(indexPath, before, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bob.data, "pending"), []byte("session-handoff-pending 1\nbatch\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := bob.receive(r)
	if n := countOutcome(res, OutcomeAlready); n != 3 || res.Removed != 3 {
		t.Fatalf("receive after the kill: %d already imported, %d removed: %+v", n, res.Removed, res.Items)
	}
	list, err := bob.s.List(storeFilter())
	if err != nil || len(list) != 4 {
		t.Fatalf("the store lists %d handoffs (%v), want 4", len(list), err)
	}
	if n := bundlesFor(t, r, bob); n != 0 {
		t.Fatalf("%d bundles left on the remote", n)
	}
	if res := bob.receive(r); len(res.Items) != 0 {
		t.Fatalf("a third receive: %+v", res.Items)
	}
}

// The first receive on a new machine fetches the inbox branch and my ref
// and nothing else, on a remote whose branch is not the default one too
// (its recipient refs, B-inbox/*, begin with the branch's name).
func TestFirstReceiveFetchesOnlyMine(t *testing.T) {
	r := bareRemote(t)
	r.Branch = "team"
	alice, bob, carol := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk"), newMachine(t, "carol@lab")
	bob.trusts(alice)
	alice.send(r, alice.save("for both"), bob, carol)
	if res := bob.receive(r); countOutcome(res, OutcomeImported) != 1 {
		t.Fatalf("receive: %+v", res.Items)
	}
	got := gitT(t, clonePath(bob.data, r.Name), "for-each-ref", "--format=%(refname)")
	want := "refs/remotes/origin/team\nrefs/remotes/origin/team-inbox/" + hexOf(bob.hash())
	if got != want {
		t.Fatalf("the new clone holds\n%s\nwant\n%s", got, want)
	}
}

// Imported is called once the store holds what arrived and before the
// delivered bundles leave the remote: a session start waiting on it is
// briefed with them without waiting for the removal's push (issue 49).
func TestReceiveSaysImportedBeforeRemoving(t *testing.T) {
	r := bareRemote(t)
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	bob.trusts(alice)
	alice.send(r, alice.save("one"), bob)
	calls := 0
	opts := bob.receiveOpts(r)
	opts.Imported = func() {
		calls++
		if n := bob.count(); n != 1 {
			t.Errorf("imported said with %d records stored, want 1", n)
		}
		if n := bundlesFor(t, r, bob); n != 1 {
			t.Errorf("imported said after the removal: %d bundles left", n)
		}
	}
	res, err := Receive(context.Background(), opts)
	if err != nil || res.Removed != 1 {
		t.Fatalf("receive: %+v, %v", res, err)
	}
	if calls != 1 {
		t.Fatalf("Imported called %d times, want 1", calls)
	}
}

package remote

import (
	"context"
	"errors"
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
	bare := strings.TrimPrefix(r.URL, "file://")
	path := BundlePath(bob.hash(), sent.Bundles[0].BundleID)
	data, err := gitIn(bare, "", "show", "refs/heads/"+r.Branch+":"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bundle.Read(strings.NewReader(data), carol.readOptions()); !errors.Is(err, bundle.ErrNoIdentity) {
		t.Fatalf("carol reading bob's bundle: %v, want ErrNoIdentity", err)
	}
}

// The layout is hashes and random ids only: no title, name or content in
// a path, a commit message, a log line or the commit's author.
func TestLayoutRevealsNothing(t *testing.T) {
	r := bareRemote(t)
	alice, bob, carol := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk"), newMachine(t, "carol@lab")
	h := alice.save("Payroll migration plan")
	res := alice.send(r, h, bob, carol)
	id := res.Bundles[0].BundleID
	sender := SenderHash(alice.sk.Public())
	want := []string{
		LogPath(sender),
		markerFile,
		BundlePath(bob.hash(), id),
		BundlePath(carol.hash(), id),
	}
	slices.Sort(want)
	if got := remoteFiles(t, r); !slices.Equal(got, want) {
		t.Fatalf("remote holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bare := strings.TrimPrefix(r.URL, "file://")
	meta := gitT(t, bare, "log", "--format=%an <%ae> %cn <%ce> %B", "refs/heads/"+r.Branch)
	if meta != "session-handoff <session-handoff@invalid> session-handoff <session-handoff@invalid> session-handoff: 1 bundle" {
		t.Fatalf("commit says %q", meta)
	}
	log := gitT(t, bare, "show", "refs/heads/"+r.Branch+":"+LogPath(sender))
	f := strings.Split(log, "\t")
	hashes := []string{bob.hash(), carol.hash()}
	slices.Sort(hashes)
	if len(f) != 3 || f[1] != id || f[2] != strings.Join(hashes, ",") || strings.Contains(log, "\n") {
		t.Fatalf("log line %q", log)
	}
	for _, leak := range []string{"Payroll", "alice", "bob", "carol", "laptop"} {
		if strings.Contains(strings.Join(remoteFiles(t, r), " ")+meta+log, leak) {
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
	if res := bob.receive(r); countOutcome(res, OutcomeImported) != 2 {
		t.Fatalf("first receive: %+v", res.Items)
	}
	res := bob.receive(r)
	if len(res.Items) != 0 || res.Earlier != 2 || bob.count() != 2 {
		t.Fatalf("second receive: %+v, store %d", res, bob.count())
	}
	// Even after the handoff is removed from the store, the ledger keeps
	// the bundle from coming back.
	list, _ := bob.s.List(storeFilter())
	if err := bob.s.Remove(list[0].ID); err != nil {
		t.Fatal(err)
	}
	if res := bob.receive(r); len(res.Items) != 0 || bob.count() != 1 {
		t.Fatalf("after rm: %+v", res.Items)
	}
}

// Senders pushing at the same moment all land: each round of pushes has
// a winner, so with at most maxAttempts senders at once nobody gives up.
func TestConcurrentSendersAllLand(t *testing.T) {
	r := bareRemote(t)
	carol := newMachine(t, "carol@lab")
	senders := []*machine{newMachine(t, "alice@laptop"), newMachine(t, "bob@desk"), newMachine(t, "dave@home"), newMachine(t, "erin@ci")}
	for _, s := range senders {
		carol.trusts(s)
	}
	const each = 1
	var wg sync.WaitGroup
	errs := make(chan error, len(senders)*each)
	start := make(chan struct{})
	for _, s := range senders {
		wg.Add(1)
		go func(s *machine) {
			defer wg.Done()
			<-start
			for i := 0; i < each; i++ {
				rec := s.save("from " + s.name)
				if _, err := Send(context.Background(), s.sendOpts(r, rec, carol)); err != nil {
					errs <- err
				}
			}
		}(s)
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("send: %v", err)
	}
	n := 0
	for _, p := range remoteFiles(t, r) {
		if strings.HasPrefix(p, RecipientDir(carol.hash())+"/") {
			n++
		}
	}
	if n != len(senders)*each {
		t.Fatalf("remote holds %d bundles for carol, want %d", n, len(senders)*each)
	}
	if res := carol.receive(r); countOutcome(res, OutcomeImported) != len(senders)*each {
		t.Fatalf("carol imported %d", countOutcome(res, OutcomeImported))
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
	lockFile := filepath.Join(clonePath(dataDir, "team"), ".git", "index.lock")
	if err := os.WriteFile(lockFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = openClone(context.Background(), dataDir, r)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if _, err := os.Stat(lockFile); !os.IsNotExist(err) {
		t.Fatal("the stale index.lock is still there")
	}
}

package remote

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// rejectPushes makes the bare repository refuse every push that carries
// objects (its receive.maxInputSize is one byte: no hook, since a push
// runs none of the remote's), and returns a function that lifts that.
func rejectPushes(t *testing.T, r Remote) func() {
	t.Helper()
	dir := strings.TrimPrefix(r.URL, "file://")
	gitT(t, dir, "config", "receive.maxInputSize", "1")
	return func() { gitT(t, dir, "config", "--unset", "receive.maxInputSize") }
}

// bundlesFor counts the bundles for m on the remote.
func bundlesFor(t *testing.T, r Remote, m *machine) int {
	n := 0
	for _, p := range remoteFiles(t, r) {
		if strings.HasPrefix(p, inboxDir(r, m.hash())+"/") {
			n++
		}
	}
	return n
}

// A send whose push failed is kept; sending the same handoff again pushes
// that same bundle, once.
func TestSendRetriedAfterPushFailureDoesNotDuplicate(t *testing.T) {
	r := bareRemote(t)
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	alice.send(r, alice.save("first"), bob) // the branch exists
	rec := alice.save("second")

	allow := rejectPushes(t, r)
	_, err := Send(context.Background(), alice.sendOpts(r, rec, bob))
	if err == nil || !strings.Contains(err.Error(), "push to team") {
		t.Fatalf("send through a refusing remote: %v", err)
	}
	if bundlesFor(t, r, bob) != 1 {
		t.Fatal("the refused push landed")
	}
	allow()

	res := alice.send(r, rec, bob)
	if len(res.Bundles) != 1 || !res.Bundles[0].Earlier || res.Commit == "" {
		t.Fatalf("retry: %+v", res)
	}
	if n := bundlesFor(t, r, bob); n != 2 {
		t.Fatalf("remote holds %d bundles for bob, want 2", n)
	}
	// Nothing waits any more: a send without a handoff has nothing to do,
	// and sending the same handoff again is a new, deliberate send.
	if _, err := Send(context.Background(), alice.sendOpts(r, nil)); !errors.Is(err, ErrNothingToSend) {
		t.Fatalf("send of nothing: %v", err)
	}
	if res := alice.send(r, rec, bob); res.Bundles[0].Earlier {
		t.Fatalf("a new send reused a bundle: %+v", res)
	}
}

// If a push reached the remote but the sender never heard (a connection
// lost after the update), the next send finds the bundle there and adds
// nothing.
func TestSendFindsLostPushOnRemote(t *testing.T) {
	r := bareRemote(t)
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	allow := rejectPushes(t, r)
	if _, err := Send(context.Background(), alice.sendOpts(r, alice.save("lost"), bob)); err == nil {
		t.Fatal("send through a refusing remote succeeded")
	}
	allow()
	// The push that "got lost": made and pushed from the clone by hand.
	ctx := context.Background()
	c, err := openClone(ctx, alice.data, r)
	if err != nil {
		t.Fatal(err)
	}
	pend, _ := c.loadPending()
	st, err := c.sync(ctx, false, r.markerRef(), r.recipientRef(bob.hash()))
	if err != nil {
		t.Fatal(err)
	}
	ups, err := c.build(ctx, st, pend)
	if err != nil || len(ups) != 2 {
		t.Fatalf("build: %+v, %v", ups, err)
	}
	if _, err := c.git.Run(ctx, "push", "origin", ups[0].new+":"+ups[0].ref, ups[1].new+":"+ups[1].ref); err != nil {
		t.Fatal(err)
	}
	c.close()

	res, err := Send(ctx, alice.sendOpts(r, nil))
	if err != nil || res.Commit != "" || len(res.Bundles) != 1 {
		t.Fatalf("send: %+v, %v", res, err)
	}
	if bundlesFor(t, r, bob) != 1 {
		t.Fatal("the bundle was added twice")
	}
	if _, err := Send(ctx, alice.sendOpts(r, nil)); !errors.Is(err, ErrNothingToSend) {
		t.Fatalf("pending not cleared: %v", err)
	}
}

// An unreachable remote fails with git's own message, keeps the bundle,
// and the send goes through once the remote is back.
func TestOfflineRemoteKeepsSendForLater(t *testing.T) {
	r := bareRemote(t)
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	bob.trusts(alice)
	bare := strings.TrimPrefix(r.URL, "file://")
	if err := os.Rename(bare, bare+".away"); err != nil {
		t.Fatal(err)
	}
	_, err := Send(context.Background(), alice.sendOpts(r, alice.save("offline"), bob))
	if err == nil || !strings.Contains(err.Error(), "fetch team: git fetch: ") {
		t.Fatalf("offline send: %v", err)
	}
	if _, err := Receive(context.Background(), bob.receiveOpts(r)); err == nil {
		t.Fatal("offline receive succeeded")
	}
	if err := os.Rename(bare+".away", bare); err != nil {
		t.Fatal(err)
	}
	res, err := Send(context.Background(), alice.sendOpts(r, nil))
	if err != nil || len(res.Bundles) != 1 || !res.Bundles[0].Earlier {
		t.Fatalf("send after coming back: %+v, %v", res, err)
	}
	if got := bob.receive(r); countOutcome(got, OutcomeImported) != 1 {
		t.Fatalf("bob: %+v", got.Items)
	}
}

// Credentials in a remote's URL never reach an error.
func TestCredentialsNeverInErrors(t *testing.T) {
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	r := Remote{Name: "team", URL: "https://alice:s3cr3t-t0ken@127.0.0.1:1/inbox.git", Branch: DefaultBranch}
	_, err := Send(context.Background(), alice.sendOpts(r, alice.save("x"), bob))
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("send error: %v", err)
	}
	_, err = Receive(context.Background(), bob.receiveOpts(r))
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("receive error: %v", err)
	}
	if d := r.DisplayURL(); strings.Contains(d, "s3cr3t") {
		t.Fatalf("DisplayURL: %s", d)
	}
}

// A branch that holds something else than an inbox is refused, not
// written to.
func TestForeignBranchRefused(t *testing.T) {
	r := bareRemote(t)
	alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
	plant(t, r, []planted{{path: markerFile, content: []byte("session-handoff-inbox 3\n")}}, "", "")
	if _, err := Send(context.Background(), alice.sendOpts(r, alice.save("x"), bob)); err == nil || !strings.Contains(err.Error(), "not a session-handoff inbox of layout 1 or 2") {
		t.Fatalf("send: %v", err)
	}
	if _, err := Receive(context.Background(), bob.receiveOpts(r)); err == nil {
		t.Fatal("receive read a foreign branch")
	}
}

// With Supersede, a changed record whose earlier send is still waiting
// replaces that send, whatever its recipients: the remote then gets the
// new version alone, and only for the recipients of the new send.
func TestSendSupersedeReplacesAWaitingVersion(t *testing.T) {
	r := bareRemote(t)
	alice, bob, carol := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk"), newMachine(t, "carol@lab")
	alice.send(r, alice.save("first"), bob) // the branch exists
	rec := alice.save("v1")

	allow := rejectPushes(t, r)
	if _, err := Send(context.Background(), alice.sendOpts(r, rec, bob, carol)); err == nil {
		t.Fatal("send through a refusing remote succeeded")
	}
	allow()
	rec.Title = "v2"
	o := alice.sendOpts(r, rec, bob)
	o.Supersede = true
	res, err := Send(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bundles) != 1 || res.Bundles[0].Earlier || len(res.Bundles[0].Recipients) != 1 {
		t.Fatalf("supersede: %+v", res.Bundles)
	}
	if n := bundlesFor(t, r, bob); n != 2 {
		t.Fatalf("remote holds %d bundles for bob, want 2", n)
	}
	if n := bundlesFor(t, r, carol); n != 0 {
		t.Fatalf("the superseded send reached carol: %d bundles", n)
	}
}

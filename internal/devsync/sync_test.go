package devsync

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/devices"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/remote"
	"github.com/session-handoff/session-handoff/store"
)

func TestMain(m *testing.M) {
	// Nothing of the developer's git configuration may change a test.
	for k, v := range map[string]string{"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1"} {
		if err := os.Setenv(k, v); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// machine is one of my computers: its keys, store and paired devices.
type machine struct {
	t    *testing.T
	keys exchange.Keyring
	s    *store.Store
	info *exchange.KeyInfo
}

func newMachine(t *testing.T, name string) *machine {
	t.Helper()
	dir := t.TempDir()
	m := &machine{t: t, keys: exchange.Keyring{Dir: filepath.Join(dir, "config")}}
	var err error
	if m.info, err = m.keys.Generate("me@"+name+"-key", nil, false); err != nil {
		t.Fatal(err)
	}
	if m.s, err = store.Open(filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	return m
}

// pair pairs a and b, each as the other's device.
func pair(t *testing.T, a, b *machine) {
	t.Helper()
	for _, p := range [][2]*machine{{a, b}, {b, a}} {
		d, err := devices.New(strings.TrimPrefix(strings.TrimSuffix(p[1].info.Name, "-key"), "me@"), p[1].info.AgeRecipient, p[1].info.SigningKey)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := devices.Add(p[0].keys.Dir, d, true); err != nil {
			t.Fatal(err)
		}
	}
}

func bareRemote(t *testing.T) remote.Remote {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "handoffs.git")
	if out, err := exec.Command("git", "init", "--quiet", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	return remote.Remote{Name: "mine", URL: "file://" + dir, Branch: remote.DefaultBranch}
}

func (m *machine) save(title string) *handoff.Record {
	m.t.Helper()
	rec, err := handoff.New(time.Now(), "generic", title)
	if err != nil {
		m.t.Fatal(err)
	}
	rec.Project = handoff.Project{Path: "/p", Name: "p"}
	if err := m.s.Save(rec); err != nil {
		m.t.Fatal(err)
	}
	return rec
}

func (m *machine) key() (*crypto.SigningKey, error) { return m.keys.SigningKey(nil) }

func (m *machine) pushOpts(r remote.Remote, id handoff.ID) PushOptions {
	return PushOptions{ConfigDir: m.keys.Dir, Remote: r, Store: m.s, ID: id, Project: "/p", SigningKey: m.key,
		Producer: bundle.Producer{Name: "session-handoff", Version: "test"}, Now: time.Now(), Wait: true}
}

func (m *machine) pull(r remote.Remote) *remote.ReceiveResult {
	m.t.Helper()
	ids, recips, err := m.keys.Identities(nil, nil)
	if err != nil {
		m.t.Fatal(err)
	}
	res, err := Pull(context.Background(), PullOptions{Remote: r, Store: m.s, Keys: m.keys,
		Read: bundle.ReadOptions{Identities: ids, Recipients: recips}, Now: time.Now()})
	if err != nil {
		m.t.Fatalf("pull: %v", err)
	}
	return res
}

func (m *machine) pending(r remote.Remote) (int, *Failure) {
	m.t.Helper()
	n, f, err := PendingThrough(m.s.Dir(), r.Name)
	if err != nil {
		m.t.Fatal(err)
	}
	return n, f
}

// A push sends a record to my other device, and its pull imports it once;
// a newer version of it, pushed within the same second, replaces the copy.
func TestPushThenPull(t *testing.T) {
	laptop, desktop := newMachine(t, "laptop"), newMachine(t, "desktop")
	pair(t, laptop, desktop)
	r := bareRemote(t)
	rec := laptop.save("Port the parser")
	res, err := Push(context.Background(), laptop.pushOpts(r, rec.ID))
	if err != nil || len(res.Sent) != 1 || res.Coalesced {
		t.Fatalf("push: %+v, %v", res, err)
	}
	if n, f := laptop.pending(r); n != 0 || f != nil {
		t.Fatalf("after the push: %d pending, %v", n, f)
	}
	if got := desktop.pull(r); imported(got) != 1 {
		t.Fatalf("pull: %+v", got)
	}
	rec.NextSteps = []string{"Write the migration by hand"}
	if _, err := laptop.s.Put(rec, true); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(context.Background(), laptop.pushOpts(r, rec.ID)); err != nil {
		t.Fatal(err)
	}
	desktop.pull(r)
	got, err := desktop.s.Get(rec.ID)
	if err != nil || len(got.NextSteps) != 1 {
		t.Fatalf("the desktop's copy: %+v, %v; want the newer version", got, err)
	}
}

// hintErr is an error that says what to do, as the command's are.
type hintErr struct{ error }

func (hintErr) Hint() string { return "remove the passphrase" }

// A push that cannot sign keeps the send asked for, with the reason and
// the fix; the next push that can sign delivers it and clears both.
// Before, the request existed only in the argv of a background process,
// and its failure only in hooks.log.
func TestPushThatCannotSignKeepsTheSend(t *testing.T) {
	laptop, desktop := newMachine(t, "laptop"), newMachine(t, "desktop")
	pair(t, laptop, desktop)
	r := bareRemote(t)
	rec := laptop.save("Port the parser")
	o := laptop.pushOpts(r, rec.ID)
	o.SigningKey = func() (*crypto.SigningKey, error) { return nil, hintErr{errors.New("no terminal to ask on")} }
	if _, err := Push(context.Background(), o); err == nil {
		t.Fatal("a push that cannot sign succeeded")
	}
	n, f := laptop.pending(r)
	if n != 1 || f == nil || !strings.Contains(f.Reason, "no terminal") || f.Fix != "remove the passphrase" {
		t.Fatalf("after the failure: %d pending, %+v", n, f)
	}
	o = laptop.pushOpts(r, "")
	if res, err := Push(context.Background(), o); err != nil || len(res.Sent) != 1 {
		t.Fatalf("the next push: %+v, %v", res, err)
	}
	if n, f := laptop.pending(r); n != 0 || f != nil {
		t.Fatalf("after delivery: %d pending, %+v", n, f)
	}
	if got := desktop.pull(r); imported(got) != 1 {
		t.Fatalf("pull: %+v", got)
	}
}

// A push while another holds the remote's lock leaves its request to it
// and returns; the running push sends what arrived while it ran.
func TestPushCoalescesIntoTheRunningOne(t *testing.T) {
	laptop, desktop := newMachine(t, "laptop"), newMachine(t, "desktop")
	pair(t, laptop, desktop)
	r := bareRemote(t)
	first, second := laptop.save("First"), laptop.save("Second")
	o := laptop.pushOpts(r, first.ID)
	o.Prepare = func(rec *handoff.Record, _ string) error {
		if rec.ID != first.ID {
			return nil
		}
		// A hook's push arrives while this one runs.
		later := laptop.pushOpts(r, second.ID)
		later.Wait = false
		res, err := Push(context.Background(), later)
		if err != nil || !res.Coalesced || len(res.Sent) != 0 {
			t.Errorf("the later push: %+v, %v; want it left to the running one", res, err)
		}
		return nil
	}
	res, err := Push(context.Background(), o)
	if err != nil || len(res.Sent) < 2 {
		t.Fatalf("the running push: %+v, %v; want both sent", res, err)
	}
	if n, _ := laptop.pending(r); n != 0 {
		t.Fatalf("%d pending", n)
	}
	if got := desktop.pull(r); imported(got) != 2 {
		t.Fatalf("pull: %+v", got)
	}
}

// A push past its deadline gives up, keeps the send and says why.
func TestPushDeadlineKeepsTheSend(t *testing.T) {
	laptop, desktop := newMachine(t, "laptop"), newMachine(t, "desktop")
	pair(t, laptop, desktop)
	r := bareRemote(t)
	rec := laptop.save("Port the parser")
	o := laptop.pushOpts(r, rec.ID)
	o.Deadline = -1 // already past
	if _, err := Push(context.Background(), o); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("push: %v, want the deadline", err)
	}
	if n, f := laptop.pending(r); n != 1 || f == nil {
		t.Fatalf("%d pending, %+v", n, f)
	}
}

// A record removed after its send was asked for is not sent, and its
// request goes.
func TestPushDropsARemovedRecord(t *testing.T) {
	laptop, desktop := newMachine(t, "laptop"), newMachine(t, "desktop")
	pair(t, laptop, desktop)
	r := bareRemote(t)
	rec := laptop.save("Gone")
	if err := Want(laptop.s.Dir(), r.Name, rec.ID, "/p", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := laptop.s.Remove(rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(context.Background(), laptop.pushOpts(r, "")); err != nil && !errors.Is(err, remote.ErrNothingToSend) {
		t.Fatal(err)
	}
	if n, f := laptop.pending(r); n != 0 || f != nil {
		t.Fatalf("%d pending, %+v", n, f)
	}
}

// The state file reads back what was written, and a send asked for again
// while it was sent stays asked for.
func TestStateRequestsAskedAgainStay(t *testing.T) {
	dir := t.TempDir()
	id := handoff.ID("01M8JX1MN5J4N5B2WT5M99SWQC")
	t1 := time.Now()
	t2 := t1.Add(time.Second)
	if err := Want(dir, "mine", id, "/src/a\tb", t1); err != nil {
		t.Fatal(err)
	}
	if err := Want(dir, "mine", id, "/src/a\tb", t2); err != nil {
		t.Fatal(err)
	}
	if err := delivered(dir, Request{Remote: "mine", ID: id, Time: t1}, t1); err != nil {
		t.Fatal(err)
	}
	st, err := LoadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	wanted, _ := st.For("mine")
	if len(wanted) != 1 || !wanted[0].Time.Equal(t2) || wanted[0].Project != "/src/a\tb" {
		t.Fatalf("wanted %+v", wanted)
	}
	if got := st.bundleTime("mine", id, t1); !got.After(t1.Truncate(time.Second)) {
		t.Fatalf("the next bundle's time %s is not after the last %s", got, t1)
	}
}

// imported counts the records a pull stored.
func imported(res *remote.ReceiveResult) int {
	n := 0
	for _, it := range res.Items {
		if it.Outcome == remote.OutcomeImported || it.Outcome == remote.OutcomeReplaced {
			n++
		}
	}
	return n
}

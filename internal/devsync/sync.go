// Package devsync keeps my machines in step: the records a session leaves
// on one machine are sent, signed and encrypted to my other devices alone
// (internal/devices), through a git inbox (internal/remote), and received
// on them, where only bundles signed by one of my devices are imported.
// The hooks start both in the background (Push after a capture, Pull at a
// session's start), so no hook waits on the network; a send is asked for
// in the sync state (queue.go) before its push starts, and stays asked for,
// with the reason of any failure, until the remote has it.
//
// The settings (on or off, for every project or one) are a file in the
// configuration directory; locks in the data directory let one Push per
// remote and one Pull run at a time.
package devsync

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/devices"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/remote"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/store"
)

// ErrNoDevices is returned when no other device is paired: there is no
// one to sync with.
var ErrNoDevices = errors.New("no other device is paired")

// ErrBusy is returned by Pull when another pull is running.
var ErrBusy = errors.New("another sync pull is running")

// Lock files in the data directory: one push per remote at a time
// (sync-push-REMOTE.lock), one pull at a time.
const (
	pushLockPrefix = "sync-push-"
	pullLock       = "sync-pull.lock"
)

// DefaultDeadline bounds a whole push, however many sends it makes: a
// remote that hangs holds one background push this long, never more.
const DefaultDeadline = 10 * time.Minute

// maxRounds bounds how often a push goes round again for requests that
// arrived while it ran.
const maxRounds = 8

// PushOptions say what Push sends.
type PushOptions struct {
	// ConfigDir holds the devices list.
	ConfigDir string
	// Remote is the inbox to send through.
	Remote remote.Remote
	// Store holds the records; its directory holds the clone, the sync
	// state and the locks.
	Store *store.Store
	// ID, when set, is the record to send: asked for (the sync state)
	// before anything else is done, then sent with every other record
	// asked for through Remote and not yet delivered. Empty sends what
	// is asked for, and pushes what earlier sends left pending.
	ID handoff.ID
	// Project is the project ID was captured in (for Prepare).
	Project string
	// SigningKey returns the key to sign with; it is called once there
	// is something to send. Its error is the push's failure, kept in the
	// sync state with the fix its Hint method gives, if any.
	SigningKey func() (*crypto.SigningKey, error)
	// Prepare, when set, is called on each record before it is sent,
	// with the project it was asked for in (to attach the worktree's
	// changes); the record is sent from the store afterwards.
	Prepare func(rec *handoff.Record, project string) error
	// Producer names this program in the manifest.
	Producer bundle.Producer
	// Now is the time of the send.
	Now time.Time
	// Wait waits for a running push through Remote, then pushes; without
	// it Push leaves what it asked for to the running one and returns
	// (PushResult.Coalesced), as the hooks' background pushes do.
	Wait bool
	// Deadline bounds the whole push (DefaultDeadline when zero).
	Deadline time.Duration
}

// PushResult is what Push did.
type PushResult struct {
	// Sent are the bundles now on the remote.
	Sent []remote.Sent
	// Coalesced is set when another push through the remote was running:
	// it sends what this one asked for.
	Coalesced bool
}

// hinter is an error that says what to do about it.
type hinter interface{ Hint() string }

// Push sends what is asked for through o.Remote to every paired device,
// each record in one bundle signed by this machine and encrypted to them
// alone, and pushes what earlier sends left pending. o.ID is asked for
// first, so a push killed or failing at any later point leaves it for the
// next push. One push per remote runs at a time; a later one leaves its
// request to the running one (o.Wait waits instead), which goes round
// again for requests that arrived while it ran. A push that fails keeps
// every request and records why (LoadState, Failure), for 'sync status',
// 'doctor' and the next session's briefing; the next push that goes
// through clears it. An earlier pending version of a record is dropped
// for the new one (remote.SendOptions.Supersede), and the bundles of one
// record are made at least a second apart, so the receiver orders them.
func Push(ctx context.Context, o PushOptions) (*PushResult, error) {
	dir := o.Store.Dir()
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	if o.ID != "" {
		if err := Want(dir, o.Remote.Name, o.ID, o.Project, now); err != nil {
			return nil, fmt.Errorf("sync push: %w", err)
		}
	}
	deadline := o.Deadline
	if deadline == 0 {
		deadline = DefaultDeadline
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	res := &PushResult{}
	for round := 0; ; round++ {
		lock, err := lockIn(dir, pushLockPrefix+o.Remote.Name+".lock", !o.Wait)
		if err != nil {
			return nil, fmt.Errorf("sync push: %w", err)
		}
		if lock == nil {
			res.Coalesced = true
			return res, nil
		}
		sent, err := drain(ctx, o)
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// A remote that hangs: said so, whatever git said.
			err = fmt.Errorf("sync push: gave up after %s (the remote did not answer in time): %w", deadline, context.DeadlineExceeded)
		}
		res.Sent = append(res.Sent, sent...)
		if uerr := lock.Unlock(); err == nil {
			err = uerr
		}
		if err != nil {
			if !errors.Is(err, remote.ErrNothingToSend) {
				fail := Failure{Remote: o.Remote.Name, Time: time.Now(), Reason: err.Error()}
				var h hinter
				if errors.As(err, &h) {
					fail.Fix = h.Hint()
				}
				if ferr := failed(dir, fail); ferr != nil {
					err = fmt.Errorf("%w (and the failure could not be recorded: %v)", err, ferr)
				}
			}
			if len(res.Sent) > 0 && errors.Is(err, remote.ErrNothingToSend) {
				return res, nil
			}
			return res, err
		}
		// A request that arrived while the lock was held was left to
		// this push: another round sends it.
		st, err := LoadState(dir)
		if err != nil {
			return res, err
		}
		if wanted, _ := st.For(o.Remote.Name); len(wanted) == 0 || round+1 == maxRounds {
			return res, nil
		}
	}
}

// drain sends, under the push lock, every record asked for through
// o.Remote, then what earlier sends left pending.
func drain(ctx context.Context, o PushOptions) ([]remote.Sent, error) {
	dir := o.Store.Dir()
	st, err := LoadState(dir)
	if err != nil {
		return nil, err
	}
	wanted, _ := st.For(o.Remote.Name)
	if len(wanted) == 0 {
		if ls, err := remote.State(dir, o.Remote.Name); err != nil || len(ls.Unsent) == 0 {
			return nil, cmp.Or(err, remote.ErrNothingToSend)
		}
	}
	list, err := devices.Load(o.ConfigDir)
	if err != nil {
		return nil, err
	}
	recipients, err := list.Recipients()
	if err != nil {
		return nil, err
	}
	if len(recipients) == 0 && len(wanted) > 0 {
		return nil, ErrNoDevices
	}
	if o.SigningKey == nil {
		return nil, errors.New("sync push: no signing key")
	}
	key, err := o.SigningKey()
	if err != nil {
		return nil, err
	}
	so := remote.SendOptions{Remote: o.Remote, DataDir: dir, Store: o.Store, SigningKey: key,
		Producer: o.Producer, Supersede: true}
	var sent []remote.Sent
	for _, req := range wanted {
		if err := ctx.Err(); err != nil {
			return sent, fmt.Errorf("sync push: %w", err)
		}
		rec, err := o.Store.Get(req.ID)
		if errors.Is(err, store.ErrNotFound) {
			// Removed since it was asked for: nothing to send.
			if err := dropRequest(dir, req); err != nil {
				return sent, err
			}
			continue
		}
		if err != nil {
			return sent, err
		}
		if o.Prepare != nil {
			if err := o.Prepare(rec, req.Project); err != nil {
				return sent, err
			}
		}
		so.Record, so.Recipients = rec, recipients
		so.Now = st.bundleTime(o.Remote.Name, req.ID, time.Now())
		res, err := remote.Send(ctx, so)
		if err != nil {
			return sent, err
		}
		sent = append(sent, res.Bundles...)
		if err := delivered(dir, req, so.Now); err != nil {
			return sent, err
		}
	}
	if len(wanted) == 0 {
		so.Record, so.Recipients = nil, nil
		res, err := remote.Send(ctx, so)
		if err != nil {
			return nil, err
		}
		sent = res.Bundles
	}
	return sent, succeeded(dir, o.Remote.Name)
}

// PullOptions say what Pull receives.
type PullOptions struct {
	// Remote is the inbox to receive from.
	Remote remote.Remote
	// Store receives the records; its directory holds the clone, the
	// ledger and the lock.
	Store *store.Store
	// Keys is my keyring: the devices list and the trust store.
	Keys exchange.Keyring
	// Read carries my identities and the limits, as for remote.Receive.
	Read bundle.ReadOptions
	// Now is the time of the import.
	Now time.Time
	// Imported is remote.ReceiveOptions.Imported.
	Imported func()
}

// Pull receives what my devices sent me: only bundles signed by a paired
// device's key (trusted as "me@NAME") are imported; anything else in my
// inbox stays there for 'receive'. A newer version of a record replaces
// the one stored from the same device, an older one is skipped
// (exchange.ConflictNewer), so versions arriving out of order, or twice,
// leave the newest once. When another pull is running, Pull returns
// ErrBusy at once.
func Pull(ctx context.Context, o PullOptions) (*remote.ReceiveResult, error) {
	list, err := devices.Load(o.Keys.Dir)
	if err != nil {
		return nil, err
	}
	signers := list.Fingerprints()
	if len(signers) == 0 {
		return nil, ErrNoDevices
	}
	lock, err := lockIn(o.Store.Dir(), pullLock, true)
	if err != nil {
		return nil, fmt.Errorf("sync pull: %w", err)
	}
	if lock == nil {
		return nil, ErrBusy
	}
	defer lock.Unlock()
	// The time recorded is what a session start waits for: until what
	// arrived is stored (the removal from the remote comes after), or
	// until the pull knows nothing is new.
	began := time.Now()
	var took time.Duration
	imported := func() {
		took = time.Since(began)
		if o.Imported != nil {
			o.Imported()
		}
	}
	pol := exchange.Policy{OnConflict: exchange.ConflictNewer, Signers: signers}
	res, err := remote.Receive(ctx, remote.ReceiveOptions{Remote: o.Remote, DataDir: o.Store.Dir(), Store: o.Store,
		Keys: o.Keys, Read: o.Read, Policy: pol, Now: o.Now, Imported: imported})
	if err == nil {
		if took == 0 {
			took = time.Since(began)
		}
		// Only a guide for the next session start's wait: not worth
		// failing a pull that went through.
		_ = RecordPullTime(o.Store.Dir(), took)
	}
	return res, err
}

// lockIn takes the lock file name in the data directory dir (made when
// missing): waiting for it, or with try, returning a nil lock at once when
// another process holds it.
func lockIn(dir, name string, try bool) (*safefile.Lock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if try {
		return safefile.TryLockFile(filepath.Join(dir, name))
	}
	return safefile.LockFile(filepath.Join(dir, name))
}

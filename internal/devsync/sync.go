// Package devsync keeps my machines in step: the records a session leaves
// on one machine are sent, signed and encrypted to my other devices alone
// (internal/devices), through a git inbox (internal/remote), and received
// on them, where only bundles signed by one of my devices are imported.
// The hooks start both in the background (Push after a capture, Pull at a
// session's start), so no hook waits on the network; a send that cannot
// reach the remote stays pending and goes with the next Push.
//
// The settings (on or off, for every project or one) are a file in the
// configuration directory; a lock in the data directory lets one Push and
// one Pull run at a time.
package devsync

import (
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

// Lock files in the data directory.
const (
	pushLock = "sync-push.lock"
	pullLock = "sync-pull.lock"
)

// PushOptions say what Push sends.
type PushOptions struct {
	// ConfigDir holds the devices list.
	ConfigDir string
	// Remote is the inbox to send through.
	Remote remote.Remote
	// Store holds Record; its directory holds the clone and the lock.
	Store *store.Store
	// Record is the record to send; nil pushes only what earlier pushes
	// left pending.
	Record *handoff.Record
	// SigningKey signs the bundle.
	SigningKey *crypto.SigningKey
	// Producer names this program in the manifest.
	Producer bundle.Producer
	// Now is the time of the send.
	Now time.Time
}

// Push sends Record to every paired device, in one bundle signed by this
// machine and encrypted to them alone, and pushes whatever earlier pushes
// left pending. An earlier pending version of the same record is dropped
// for this one (remote.SendOptions.Supersede). Pushes wait for each other
// (a lock in the data directory). A push that cannot reach the remote
// keeps its bundle and fails; the next push delivers it.
func Push(ctx context.Context, o PushOptions) (*remote.SendResult, error) {
	list, err := devices.Load(o.ConfigDir)
	if err != nil {
		return nil, err
	}
	recipients, err := list.Recipients()
	if err != nil {
		return nil, err
	}
	if len(recipients) == 0 && o.Record != nil {
		return nil, ErrNoDevices
	}
	lock, err := lockIn(o.Store.Dir(), pushLock, false)
	if err != nil {
		return nil, fmt.Errorf("sync push: %w", err)
	}
	defer lock.Unlock()
	so := remote.SendOptions{Remote: o.Remote, DataDir: o.Store.Dir(), Store: o.Store, SigningKey: o.SigningKey,
		Producer: o.Producer, Now: o.Now, Supersede: true}
	if o.Record != nil {
		so.Record, so.Recipients = o.Record, recipients
	}
	return remote.Send(ctx, so)
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
	pol := exchange.Policy{OnConflict: exchange.ConflictNewer, Signers: signers}
	return remote.Receive(ctx, remote.ReceiveOptions{Remote: o.Remote, DataDir: o.Store.Dir(), Store: o.Store,
		Keys: o.Keys, Read: o.Read, Policy: pol, Now: o.Now})
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

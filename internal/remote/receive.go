package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/store"
)

// ReceiveOptions say how Receive imports what a remote inbox holds for me.
type ReceiveOptions struct {
	// Remote is the inbox.
	Remote Remote
	// DataDir holds the remote's clone and the ledger (the store's
	// directory).
	DataDir string
	// Store receives the handoffs.
	Store *store.Store
	// Keys is my keyring: the trust store (and where --tofu pins go).
	Keys exchange.Keyring
	// Read carries my identities, the canonical recipient strings of each
	// (they name my directories of the inbox) and the limits. Receive sets
	// the passphrase (none: a passphrase bundle is refused), the trust
	// store and the blob directory itself. A zero Limits.MaxInput is
	// DefaultMaxBundle.
	Read bundle.ReadOptions
	// Policy is the import policy, as for import.
	Policy exchange.Policy
	// DryRun checks every new bundle and says what would happen, writing
	// nothing (neither the store nor the ledger).
	DryRun bool
	// Retry reconsiders bundles the ledger records as rejected.
	Retry bool
	// NoFetch works from what was fetched last.
	NoFetch bool
	// Drop names bundles (by bundle id) to drop if they are refused, now
	// or as remembered: recorded in the ledger as dropped, removed from my
	// ref, never imported. DropRefused drops every refused bundle.
	Drop        []string
	DropRefused bool
	// Imported, when set, is called once the store and the ledger hold
	// what this receive imported, before the delivered bundles are
	// removed from the remote (a session start waits for no more).
	Imported func()
	// Now is the time of the import (time.Now when zero).
	Now time.Time
}

// Outcome is what happened to one bundle of a receive.
type Outcome string

// Outcomes of Receive. Imported, replaced and already imported bundles,
// and rejected ones, are recorded in the ledger and not considered again
// (rejected ones are with ReceiveOptions.Retry); refused ones are: the
// policy may accept them once their signer is trusted.
const (
	OutcomeImported    Outcome = "imported"
	OutcomeReplaced    Outcome = "replaced"
	OutcomeAlready     Outcome = "already imported"
	OutcomeSkipped     Outcome = "skipped"
	OutcomeWouldImport Outcome = "would import"
	OutcomeRefused     Outcome = "refused"
	OutcomeRejected    Outcome = "rejected"
	// OutcomeIgnored is an entry of my directory that is not named like a
	// bundle: reported, never read.
	OutcomeIgnored Outcome = "ignored"
	// OutcomeStillRefused is a bundle an earlier receive refused for its
	// signer, unchanged since, as are the trust store and the policy
	// (RefusedFile): reported, not read again, and no failure of this
	// receive.
	OutcomeStillRefused Outcome = "still refused"
	// OutcomeDropped is a refused bundle the user dropped
	// (ReceiveOptions.Drop): recorded in the ledger and removed from my
	// ref like a rejected one.
	OutcomeDropped Outcome = "dropped"
)

// Item reports one entry of my directories.
type Item struct {
	// Path is the entry's path in the inbox.
	Path     string  `json:"path"`
	BundleID string  `json:"bundle_id,omitempty"`
	Outcome  Outcome `json:"outcome"`
	// Reason explains refused, rejected and ignored entries.
	Reason       string               `json:"reason,omitempty"`
	HandoffID    handoff.ID           `json:"handoff_id,omitempty"`
	Title        string               `json:"title,omitempty"`
	Verification *bundle.Verification `json:"verification,omitempty"`
	PinnedAs     string               `json:"pinned_as,omitempty"`
	// Err is the refusal or rejection, for callers that map errors to
	// hints.
	Err error `json:"-"`
	// entry is the entry's tree entry.
	entry entry
	// holds is the bundle id the file's signed manifest names, once read.
	holds string
	// admit is set when the policy refused the bundle's signer.
	admit bool
}

// Failed reports whether the item was refused or rejected.
func (it Item) Failed() bool { return it.Outcome == OutcomeRefused || it.Outcome == OutcomeRejected }

// ReceiveResult is what Receive did.
type ReceiveResult struct {
	Remote string `json:"remote"`
	// Commit is the inbox commit read ("" when the remote has no inbox yet).
	Commit string `json:"commit"`
	// Directories are my directories of the inbox.
	Directories []string `json:"directories"`
	// Items are the entries considered this time, in path order.
	Items []Item `json:"items"`
	// Earlier counts bundles the ledger already records.
	Earlier int `json:"earlier"`
	// Removed counts the bundles removed from my refs of a layout-2 inbox
	// after they were imported or rejected, by this receive or an earlier
	// one; RemoveError says why some could not be (they are removed by a
	// later receive).
	Removed     int    `json:"removed"`
	RemoveError string `json:"remove_error,omitempty"`
}

// errPassphraseBundle refuses passphrase bundles: an inbox is never a
// reason to ask for a passphrase.
var errPassphraseBundle = errors.New("passphrase bundles are not received from a remote")

// forRemote adapts read options to bundles from a remote: the remote's
// default size limit, and no passphrase, ever.
func forRemote(read bundle.ReadOptions) bundle.ReadOptions {
	if read.Limits.MaxInput == 0 {
		read.Limits.MaxInput = DefaultMaxBundle
	}
	read.Passphrase = func() ([]byte, error) { return nil, errPassphraseBundle }
	return read
}

// mine returns the inbox directories of my identities, as recipient
// hashes, sorted.
func mine(read bundle.ReadOptions) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, r := range read.Recipients {
		h := crypto.RecipientHash(r)
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no identity to receive with: %w", exchange.ErrNoKeys)
	}
	sort.Strings(out)
	return out, nil
}

// Receive fetches the inbox and imports every new bundle in my
// directories (and nowhere else: other recipients' bundles are never
// read). When my refs and the ledger are as the last receive that left
// nothing behind saw them, one ls-remote is all it does. Otherwise the new
// bundles are imported together by exchange.ImportMany: each read once
// and checked completely (it must be a bundle encrypted to me, signed for
// me, named by its own bundle id, then pass the policy) before anything
// of it is stored, the records stored in one batch. A bundle that fails
// is reported in its Item and left where it is; nothing of it is stored.
// Its cost is bounded by what is new, whoever wrote my refs: a bundle's
// signer is judged from its envelope before any blob is read (refused
// there when the policy refuses it), a refusal is remembered
// (RefusedFile) and not read again while nothing changed, a file under
// several names is read once (readOnce), and at most maxReads bundles are
// read.
func Receive(ctx context.Context, opts ReceiveOptions) (*ReceiveResult, error) {
	dirs, err := mine(opts.Read)
	if err != nil {
		return nil, err
	}
	opts.Read = forRemote(opts.Read)
	// The signer is judged from the envelope, before any blob of the
	// bundle is decompressed or staged: a stranger's bundle, or one signed
	// for others, costs its first entry (FORMAT.md §4: the envelope comes
	// first).
	opts.Read.Admit = func(res *bundle.Result) error {
		if !res.ForReader && !opts.Policy.AllowOtherRecipients {
			return bundle.ErrWrongRecipient
		}
		return opts.Policy.Allows(res.Verification)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	c, err := openClone(ctx, opts.DataDir, opts.Remote)
	if err != nil {
		return nil, err
	}
	defer c.close()
	// Whether anything is new is answered first, by one ls-remote.
	checkpoint := !opts.NoFetch && !opts.DryRun && !opts.Retry
	if checkpoint && !c.fresh {
		res, same, err := c.nothingNew(ctx, dirs, ledgerPath(opts.DataDir))
		if err != nil || same {
			return res, err
		}
		if err := c.forgetReceived(); err != nil {
			return nil, err
		}
	}
	lay, err := c.open(ctx, dirs, opts.NoFetch)
	if err != nil {
		return nil, err
	}
	res := &ReceiveResult{Remote: opts.Remote.Name, Commit: lay.commit(), Directories: dirs, Items: []Item{}}
	led, err := loadLedger(opts.DataDir)
	if err != nil {
		return nil, err
	}
	es, err := lay.entries(ctx)
	if err != nil {
		return nil, err
	}
	cands, items, earlier, err := candidates(es, lay.parse, led, opts.Retry, opts.Read.Limits.MaxInput)
	if err != nil {
		return nil, err
	}
	res.Earlier = earlier
	state, err := refusalState(opts.Keys, opts.Policy)
	if err != nil {
		return nil, err
	}
	if !opts.Retry {
		cands, items = remembered(cands, items, loadRefusals(opts.DataDir), opts.Remote.Name, state)
	}
	open, clear, err := lay.reader(ctx, cands, opts.Read.Limits.MaxInput)
	defer clear()
	if err != nil {
		return nil, err
	}
	trust, err := opts.Keys.TrustStore()
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		checked, _ := readOnce(cands, func(cands []Item) ([]Item, error) {
			var out []Item
			for _, it := range cands {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				out = append(out, dryRunOne(it, open, trust, opts, now))
			}
			return out, nil
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		items = append(items, checked...)
	} else {
		imported, err := readOnce(cands, func(cands []Item) ([]Item, error) { return importAll(ctx, cands, open, opts, now) })
		if err != nil {
			return nil, err
		}
		items = append(items, imported...)
		dropSelected(items, opts)
		// The outcomes go to the ledger once the store holds the
		// records: a crash before leaves them to the next receive, which
		// finds them already imported.
		if err := led.recordAll(ledgerEntries(items, opts.Remote.Name, now)); err != nil {
			return nil, err
		}
		// What stays in my refs: entries the ledger does not record.
		present := map[string]bool{}
		for _, e := range es {
			if _, id, ok := lay.parse(e.path); ok {
				if _, done := led.entries[id]; !done {
					present[e.object] = true
				}
			}
		}
		if err := saveRefusals(opts.DataDir, opts.Remote.Name, state, refusals(items), present); err != nil {
			return nil, err
		}
		if opts.Imported != nil {
			opts.Imported()
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Path < items[j].Path })
	res.Items = items
	left := lay.st
	if lay.version == 2 && !opts.DryRun && !opts.NoFetch {
		// Delivered bundles leave the remote only now that the ledger
		// records them: a crash before this point leaves them for the
		// next receive to remove, never to import again.
		if res.Removed, left, err = c.removeDelivered(ctx, lay, led); err != nil {
			res.RemoveError = err.Error()
		}
	}
	if checkpoint && res.RemoveError == "" && allRecorded(items) {
		r := received{ledger: fileSize(led.path), earlier: res.Earlier + len(items) - res.Removed, refs: left}
		if err := c.saveReceived(r); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// remembered takes out of cands the bundles an earlier receive refused for
// their signer, whose object, trust store and policy are unchanged: each
// becomes an item still refused, with the reason then, not read again.
func remembered(cands, items []Item, mem map[string]refusal, remote, state string) ([]Item, []Item) {
	if len(mem) == 0 {
		return cands, items
	}
	var left []Item
	for _, it := range cands {
		r, ok := mem[refusal{remote: remote, object: it.entry.object, state: state}.key()]
		if !ok || r.bundleID != it.BundleID {
			left = append(left, it)
			continue
		}
		it.Outcome, it.Reason = OutcomeStillRefused, r.reason
		items = append(items, it)
	}
	return left, items
}

// dropSelected turns the refused items that opts.Drop or DropRefused
// names into dropped ones.
func dropSelected(items []Item, opts ReceiveOptions) {
	for i, it := range items {
		if (it.Outcome == OutcomeRefused || it.Outcome == OutcomeStillRefused) && (opts.DropRefused || slices.Contains(opts.Drop, it.BundleID)) {
			items[i].Outcome = OutcomeDropped
		}
	}
}

// refusals are the items to remember as refused for their signer.
func refusals(items []Item) []refusal {
	var out []refusal
	for _, it := range items {
		if it.Outcome == OutcomeStillRefused || it.Outcome == OutcomeRefused && it.admit {
			out = append(out, refusal{object: it.entry.object, bundleID: it.BundleID, reason: it.Reason})
		}
	}
	return out
}

// readOnce reads each distinct file of cands once, however many entries
// point to it: do reads the first entry of each file, then, when that
// file's signed manifest names another of those entries (its own name),
// that one; every other entry of the file is a copy under a name that is
// not its bundle's, rejected without being read. A hostile writer's many
// names for one large file cost one or two reads, not one each.
func readOnce(cands []Item, do func([]Item) ([]Item, error)) ([]Item, error) {
	var firsts []Item
	copies := map[string][]Item{}
	for _, it := range cands {
		obj := it.entry.object
		if _, ok := copies[obj]; ok {
			copies[obj] = append(copies[obj], it)
			continue
		}
		copies[obj] = []Item{}
		firsts = append(firsts, it)
	}
	out, err := do(firsts)
	if err != nil || len(firsts) == len(cands) {
		return out, err
	}
	var again []Item
	for i, first := range out {
		group := copies[firsts[i].entry.object]
		for _, it := range group {
			if first.holds != "" && it.BundleID == first.holds && first.holds != first.BundleID {
				again = append(again, it)
				continue
			}
			it.Outcome = OutcomeRejected
			it.Reason = fmt.Sprintf("the same file as %s", first.Path)
			if first.holds != "" {
				it.Reason = fmt.Sprintf("the file holds bundle %s, not %s (%s)", first.holds, it.BundleID, it.Reason)
			} else if first.Reason != "" {
				it.Outcome, it.Reason = first.Outcome, first.Reason+" ("+it.Reason+")"
			}
			out = append(out, it)
		}
	}
	if len(again) == 0 {
		return out, nil
	}
	more, err := do(again)
	return append(out, more...), err
}

// allRecorded reports whether the ledger records every item: nothing is
// left to try again.
func allRecorded(items []Item) bool {
	for _, it := range items {
		switch it.Outcome {
		case OutcomeImported, OutcomeReplaced, OutcomeAlready, OutcomeSkipped, OutcomeRejected, OutcomeDropped:
		default:
			return false
		}
	}
	return true
}

// maxReads bounds the bundles one receive reads (and the time it holds
// the remote's lock): the rest are refused for now, and read by the next
// receive once these are recorded and removed.
var maxReads = 10000

// candidates sorts the entries of my directories into bundles to read
// (Item with an empty Outcome), entries reported without reading them,
// and a count of bundles the ledger already records. parse names the
// recipient hash and bundle id of an entry's path, and refuses any other.
func candidates(es []entry, parse func(string) (string, string, bool), led *ledger, retry bool, limit int64) (cands, items []Item, earlier int, err error) {
	seen := map[string]bool{}
	for _, e := range es {
		it := Item{Path: e.path, entry: e}
		_, id, ok := parse(e.path)
		if !ok {
			it.Outcome, it.Reason = OutcomeIgnored, "not named like a bundle (<bundle-id>.handoff in my directory)"
			items = append(items, it)
			continue
		}
		it.BundleID = id
		if seen[id] {
			continue
		}
		seen[id] = true
		if le, ok := led.entries[id]; ok && (le.Outcome == ledgerImported || !retry) {
			earlier++
			continue
		}
		if why := e.unreadable(limit); why != "" {
			it.Outcome, it.Reason = OutcomeRejected, why
		}
		if it.Outcome == "" && len(cands) >= maxReads {
			it.Outcome, it.Reason = OutcomeRefused, fmt.Sprintf("left for the next receive: one receive reads at most %d new bundles", maxReads)
		}
		if it.Outcome != "" {
			items = append(items, it)
			continue
		}
		cands = append(cands, it)
	}
	return cands, items, earlier, nil
}

// ledgerEntries are the ledger lines of a receive's items: the bundles
// imported (or found imported or skipped) and those rejected for good.
func ledgerEntries(items []Item, remote string, now time.Time) []ledgerEntry {
	var out []ledgerEntry
	for _, it := range items {
		e := ledgerEntry{Time: now, BundleID: it.BundleID, Outcome: ledgerImported, Remote: remote, Detail: string(it.HandoffID)}
		switch it.Outcome {
		case OutcomeRejected:
			e.Outcome, e.Detail = ledgerRejected, it.Reason
		case OutcomeDropped:
			e.Outcome, e.Detail = ledgerRejected, "dropped by the user: "+it.Reason
		case OutcomeImported, OutcomeReplaced, OutcomeAlready, OutcomeSkipped:
		default:
			continue
		}
		out = append(out, e)
	}
	return out
}

// importAll reads and imports the candidates in one exchange.ImportMany:
// each is read once, several at a time, checked as check does, and the
// records are stored in one batch. A bundle that fails its own checks is
// rejected (refused when reading it failed for want of resources: it is
// tried again); one the policy or the store stops is refused.
func importAll(ctx context.Context, cands []Item, open func(Item) (io.ReadSeekCloser, error), opts ReceiveOptions, now time.Time) ([]Item, error) {
	res, err := exchange.ImportMany(exchange.ManyOptions{
		N: len(cands),
		Open: func(i int) (io.ReadCloser, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return open(cands[i])
		},
		Check: func(i int, res *bundle.Result, err error) error { return checkRead(res, err, cands[i].BundleID) },
		Store: opts.Store, Keys: opts.Keys, Read: opts.Read, Policy: opts.Policy, Now: now,
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	items := make([]Item, len(cands))
	for i, r := range res {
		it := describe(cands[i], r.Read)
		switch {
		case notAdmitted(r.ReadErr) != nil:
			// The policy refused its signer: tried again next time.
			cause := notAdmitted(r.ReadErr)
			it.Outcome, it.Reason, it.Err, it.admit = OutcomeRefused, cause.Error(), cause, true
		case r.ReadErr != nil:
			it.Outcome, it.Reason, it.Err = OutcomeRejected, r.ReadErr.Error(), r.ReadErr
			if errors.Is(r.ReadErr, bundle.ErrIO) || errors.Is(r.ReadErr, ctx.Err()) {
				it.Outcome = OutcomeRefused
			}
		case r.Err != nil:
			// The bundle itself passed: what stopped it is the policy,
			// or the store; either may change, so it is tried again
			// next time.
			it.Outcome, it.Reason, it.Err = OutcomeRefused, r.Err.Error(), r.Err
		default:
			ir := r.Result
			it.Outcome = Outcome(ir.Outcome)
			it.HandoffID, it.Title, it.PinnedAs = ir.Record.ID, ir.Record.Title, ir.PinnedAs
			v := ir.Bundle.Verification
			it.Verification = &v
		}
		items[i] = it
	}
	return items, nil
}

// notAdmitted is the policy's refusal that stopped a read at the
// envelope (ReceiveOptions' Admit), or nil.
func notAdmitted(err error) error {
	var be *bundle.Error
	if !errors.Is(err, bundle.ErrNotAdmitted) || !errors.As(err, &be) || be.Err == nil {
		return nil
	}
	return be.Err
}

// describe fills in what reading a bundle found out about it: how it was
// signed, and the handoff it holds.
func describe(it Item, res *bundle.Result) Item {
	if res != nil && res.Manifest != nil {
		it.holds = res.Manifest.BundleID
	}
	if res != nil && res.Verification.Status != "" {
		v := res.Verification
		it.Verification = &v
		if m := res.Manifest; m != nil && m.Record != nil {
			it.HandoffID, it.Title = m.Record.ID, m.Record.Title
		}
	}
	return it
}

// dryRunOne reads one bundle of my directory and says what its import
// would do, storing nothing.
func dryRunOne(it Item, open func(Item) (io.ReadSeekCloser, error), trust *crypto.TrustStore, opts ReceiveOptions, now time.Time) Item {
	f, err := open(it)
	if err != nil {
		it.Outcome, it.Reason, it.Err = OutcomeRejected, err.Error(), err
		return it
	}
	defer f.Close()
	res, err := check(f, it.BundleID, trust, opts.Read)
	it = describe(it, res)
	if cause := notAdmitted(err); cause != nil {
		it.Outcome, it.Reason, it.Err = OutcomeRefused, cause.Error(), cause
		return it
	}
	if err != nil {
		it.Outcome, it.Reason, it.Err = OutcomeRejected, err.Error(), err
		if errors.Is(err, bundle.ErrIO) {
			it.Outcome = OutcomeRefused
		}
		return it
	}
	// The same decision as the import's: the policy, then the conflict
	// rules against what the store holds.
	out, err := exchange.Preview(res, opts.Store, opts.Keys, opts.Policy, now)
	switch {
	case err != nil:
		it.Outcome, it.Reason, it.Err = OutcomeRefused, err.Error(), err
	case out == exchange.Already || out == exchange.Skipped:
		it.Outcome = Outcome(out)
	default:
		it.Outcome = OutcomeWouldImport
	}
	return it
}

// check reads a whole bundle without storing anything and checks what
// an inbox adds to a bundle's own checks: it is encrypted to recipients,
// one of them me (the signed list, not just the encryption), and the file
// is named by the bundle's own id (so a copy under another name, a
// replay, is refused).
func check(r io.Reader, wantID string, trust *crypto.TrustStore, ropts bundle.ReadOptions) (*bundle.Result, error) {
	ropts.Trusted = trust
	ropts.BlobDir = ""
	res, err := bundle.Read(r, ropts)
	return res, checkRead(res, err, wantID)
}

// checkRead is check's answer to what bundle.Read returned for a bundle
// named wantID: its error, or nil, or why the inbox refuses the bundle.
func checkRead(res *bundle.Result, err error, wantID string) error {
	if errors.Is(err, bundle.ErrWrongRecipient) {
		return exchange.ErrRefusedRecipient
	}
	if err != nil {
		return err
	}
	m := res.Manifest
	switch {
	case res.Encryption != bundle.EncryptRecipients || m.Encryption != bundle.EncryptRecipients:
		return fmt.Errorf("not encrypted to its recipients (%s)", res.Encryption)
	case m.BundleID != wantID:
		return fmt.Errorf("the file holds bundle %s, not %s", m.BundleID, wantID)
	}
	return nil
}

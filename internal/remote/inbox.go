package remote

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/exchange"
)

// InboxOptions say what Inbox looks at.
type InboxOptions struct {
	Remote  Remote
	DataDir string
	// Keys is my keyring (its trust store decides "verified").
	Keys exchange.Keyring
	// Read carries my identities and their recipient strings, as for
	// Receive.
	Read bundle.ReadOptions
	// NoFetch works from what was fetched last.
	NoFetch bool
	// NoVerify skips reading my new bundles (no decryption at all).
	NoVerify bool
}

// InboxEntry is one bundle in the inbox.
type InboxEntry struct {
	BundleID string `json:"bundle_id"`
	// For is the recipient hash of the directory the bundle is in.
	For string `json:"for"`
	// Mine is set for my directories (every entry listed is mine).
	Mine bool `json:"mine"`
	// From is the hash of the key that signed a new bundle, and SentAt
	// the time its manifest gives; both are set only for new bundles
	// read (not with NoVerify), and From only when the signature is valid.
	From   string    `json:"from,omitempty"`
	SentAt time.Time `json:"sent_at,omitzero"`
	Size   int64     `json:"size"`
	// Status is set for mine only: "new" (not yet received), "imported",
	// "rejected" (with Reason, a dropped one's too), "refused" (a receive
	// refused its signer, with Reason: see RefusedFile), or "invalid" (a
	// new one that fails its checks, with Reason).
	Status string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Verification is what a new bundle of mine proves about its signer.
	Verification *bundle.Verification `json:"verification,omitempty"`
	Title        string               `json:"title,omitempty"`
}

// InboxListing is what Inbox found.
type InboxListing struct {
	Remote string `json:"remote"`
	Commit string `json:"commit"`
	// Layout is the inbox's layout (1 or 2; 0 when there is none yet).
	Layout      int          `json:"layout"`
	Directories []string     `json:"directories"`
	Bundles     []InboxEntry `json:"bundles"`
	// Others are the recipient hashes, not mine, the inbox holds bundles
	// for (their bundles are never read or counted).
	Others []string `json:"others,omitempty"`
	// Ignored are entries of my directories not named like bundles.
	Ignored []string `json:"ignored,omitempty"`
	// Outgoing are my sends not yet pushed.
	Outgoing []Sent `json:"outgoing,omitempty"`
}

// Inbox lists the bundles in my directories of the inbox, and for whom
// else the inbox holds bundles. Only my directories and the names of the
// others are read: never anyone else's bundles, nor whole trees. New
// bundles of mine are decrypted and verified, without storing anything,
// to say whether they would be verified, and who signed them when.
func Inbox(ctx context.Context, opts InboxOptions) (*InboxListing, error) {
	dirs, err := mine(opts.Read)
	if err != nil {
		return nil, err
	}
	opts.Read = forRemote(opts.Read)
	c, err := openClone(ctx, opts.DataDir, opts.Remote)
	if err != nil {
		return nil, err
	}
	defer c.close()
	v, err := c.open(ctx, dirs, opts.NoFetch)
	if err != nil {
		return nil, err
	}
	out := &InboxListing{Remote: opts.Remote.Name, Commit: v.commit(), Layout: v.version, Directories: dirs, Bundles: []InboxEntry{}}
	pend, err := c.loadPending()
	if err != nil {
		return nil, err
	}
	for _, p := range pend {
		out.Outgoing = append(out.Outgoing, Sent{BundleID: p.BundleID, HandoffID: p.HandoffID, Recipients: p.Recipients, Time: p.Time, Earlier: true})
	}
	if out.Others, err = v.others(ctx, opts.NoFetch); err != nil {
		return nil, err
	}
	es, err := v.entries(ctx)
	if err != nil {
		return nil, err
	}
	led, err := loadLedger(opts.DataDir)
	if err != nil {
		return nil, err
	}
	var verify []Item
	// What a receive refused for its signer, and remembers, is listed with
	// its reason, not read again.
	memo := map[string]string{}
	for _, r := range loadRefusals(opts.DataDir) {
		if r.remote == opts.Remote.Name {
			memo[r.object+"/"+r.bundleID] = r.reason
		}
	}
	for _, e := range es {
		rh, id, ok := v.parse(e.path)
		if !ok {
			out.Ignored = append(out.Ignored, e.path)
			continue
		}
		ie := InboxEntry{BundleID: id, For: rh, Mine: true, Size: e.size}
		switch le, ok := led.entries[id]; {
		case ok && le.Outcome == ledgerImported:
			ie.Status = "imported"
		case ok:
			ie.Status, ie.Reason = "rejected", le.Detail
		case e.unreadable(opts.Read.Limits.MaxInput) != "":
			ie.Status, ie.Reason = "invalid", e.unreadable(opts.Read.Limits.MaxInput)
		case memo[e.object+"/"+id] != "":
			ie.Status, ie.Reason = "refused", memo[e.object+"/"+id]
		default:
			ie.Status = "new"
			if !opts.NoVerify {
				verify = append(verify, Item{Path: e.path, BundleID: id, entry: e})
			}
		}
		out.Bundles = append(out.Bundles, ie)
	}
	open, clear, err := v.reader(ctx, verify, opts.Read.Limits.MaxInput)
	defer clear()
	if err != nil {
		return nil, err
	}
	var trust *crypto.TrustStore
	if len(verify) > 0 {
		if trust, err = opts.Keys.TrustStore(); err != nil {
			return nil, err
		}
	}
	checked := map[string]InboxEntry{}
	// A bundle whose signer I do not trust is listed from its envelope:
	// its blobs are not decompressed (receive would refuse it there).
	read := opts.Read
	read.Admit = func(res *bundle.Result) error {
		if res.Verification.Status != bundle.StatusVerified {
			return errEnvelopeEnough
		}
		return nil
	}
	// A file under several names is read once (twice when the first name
	// is not its own): holds is the bundle id each file's manifest names,
	// failed why reading it failed before that.
	holds, failed := map[string]string{}, map[string]string{}
	for _, it := range verify {
		if _, ok := checked[it.BundleID]; ok {
			continue
		}
		obj := it.entry.object
		if h, ok := holds[obj]; ok && h != it.BundleID {
			checked[it.BundleID] = InboxEntry{Status: "invalid", Reason: fmt.Sprintf("the file holds bundle %s, not %s", h, it.BundleID)}
			continue
		}
		if why, ok := failed[obj]; ok {
			checked[it.BundleID] = InboxEntry{Status: "invalid", Reason: why}
			continue
		}
		b := InboxEntry{Status: "new"}
		f, err := open(it)
		if err != nil {
			b.Status, b.Reason = "invalid", err.Error()
			checked[it.BundleID] = b
			continue
		}
		res, err := check(f, it.BundleID, trust, read)
		f.Close()
		if errors.Is(err, bundle.ErrNotAdmitted) && res != nil {
			err = envelopeCheck(res, it.BundleID)
		}
		if res != nil && res.Manifest != nil {
			holds[obj] = res.Manifest.BundleID
		} else if err != nil {
			failed[obj] = err.Error()
		}
		if res != nil && res.Manifest != nil {
			b.SentAt = res.Manifest.CreatedAt
			if res.Manifest.Record != nil {
				b.Title = res.Manifest.Record.Title
			}
		}
		if err != nil {
			b.Status, b.Reason = "invalid", err.Error()
		} else {
			vr := res.Verification
			b.Verification = &vr
			if vr.Key != "" {
				b.From = crypto.RecipientHash(vr.Key)
			}
		}
		checked[it.BundleID] = b
	}
	for i := range out.Bundles {
		b := &out.Bundles[i]
		if r, ok := checked[b.BundleID]; ok && b.Status == "new" {
			b.Status, b.Reason, b.Verification, b.Title, b.From, b.SentAt = r.Status, r.Reason, r.Verification, r.Title, r.From, r.SentAt
		}
	}
	sort.SliceStable(out.Bundles, func(i, j int) bool {
		a, b := out.Bundles[i], out.Bundles[j]
		if !a.SentAt.Equal(b.SentAt) {
			return a.SentAt.Before(b.SentAt)
		}
		return a.BundleID < b.BundleID
	})
	return out, nil
}

// errEnvelopeEnough stops inbox's read of a bundle whose signer I do not
// trust once its envelope is read.
var errEnvelopeEnough = errors.New("listed from its envelope")

// envelopeCheck is check's answer for a bundle read up to its envelope
// only: the checks that need no blob.
func envelopeCheck(res *bundle.Result, wantID string) error {
	if !res.ForReader {
		return exchange.ErrRefusedRecipient
	}
	return checkRead(res, nil, wantID)
}

// others lists the recipient hashes, not mine, for whom the inbox holds
// bundles: layout 1's directories (one level of one tree), layout 2's
// refs (by name, from the remote; nothing when noFetch).
func (v *view) others(ctx context.Context, noFetch bool) ([]string, error) {
	mineSet := map[string]bool{}
	for _, d := range v.dirs {
		mineSet[d] = true
	}
	var hs []string
	switch {
	case v.version == 1:
		es, err := v.c.list(ctx, v.commit(), false, toDir+"/")
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if h, ok := strings.CutPrefix(e.path, toDir+"/"); ok && e.typ == "tree" && isHex(h, 64) {
				hs = append(hs, "sha256:"+h)
			}
		}
	case v.version == 2 && !noFetch:
		st, err := v.c.lsRemote(ctx, v.c.remote.refPrefix()+"*")
		if err != nil {
			return nil, err
		}
		for ref := range st {
			if h := strings.TrimPrefix(ref, v.c.remote.refPrefix()); isHex(h, 64) {
				hs = append(hs, "sha256:"+h)
			}
		}
	}
	var out []string
	for _, h := range hs {
		if !mineSet[h] {
			out = append(out, h)
		}
	}
	sort.Strings(out)
	return out, nil
}

package remote

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/safefile"
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
	// Mine is set for my directories.
	Mine bool `json:"mine"`
	// From is the sender hash whose log names the bundle, and SentAt the
	// time that log gives: claims anyone with write access could make,
	// for display only ("" and zero when no log names it).
	From   string    `json:"from,omitempty"`
	SentAt time.Time `json:"sent_at,omitzero"`
	Size   int64     `json:"size"`
	// Status is set for mine only: "new" (not yet received), "imported",
	// "rejected" (with Reason), or "invalid" (a new one that fails its
	// checks, with Reason).
	Status string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Verification is what a new bundle of mine proves about its signer.
	Verification *bundle.Verification `json:"verification,omitempty"`
	Title        string               `json:"title,omitempty"`
}

// InboxListing is what Inbox found.
type InboxListing struct {
	Remote      string       `json:"remote"`
	Commit      string       `json:"commit"`
	Directories []string     `json:"directories"`
	Bundles     []InboxEntry `json:"bundles"`
	// Ignored are entries of my directories not named like bundles.
	Ignored []string `json:"ignored,omitempty"`
	// Outgoing are my sends not yet pushed.
	Outgoing []Sent `json:"outgoing,omitempty"`
}

// Inbox lists every bundle of the inbox, for whom and (by the senders'
// logs) from whom. Only my own bundles are read: new ones are decrypted
// and verified, without storing anything, to say whether they would be
// verified. Other recipients' bundles are listed by name only.
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
	commit, err := c.sync(ctx, opts.NoFetch)
	if err != nil {
		return nil, err
	}
	out := &InboxListing{Remote: opts.Remote.Name, Commit: commit, Directories: dirs, Bundles: []InboxEntry{}}
	pend, err := c.loadPending()
	if err != nil {
		return nil, err
	}
	for _, p := range pend {
		out.Outgoing = append(out.Outgoing, Sent{BundleID: p.BundleID, HandoffID: p.HandoffID, Recipients: p.Recipients, Time: p.Time, Earlier: true})
	}
	es, err := c.list(ctx, commit, true, toDir+"/", logDir+"/")
	if err != nil {
		return nil, err
	}
	mineSet := map[string]bool{}
	for _, d := range dirs {
		mineSet[d] = true
	}
	led, err := loadLedger(opts.DataDir)
	if err != nil {
		return nil, err
	}
	var logs []string
	var verify []int
	for _, e := range es {
		if _, ok := parseLogPath(e.path); ok {
			if e.regular() && e.size <= MaxLogSize {
				logs = append(logs, e.path)
			}
			continue
		}
		rh, id, ok := parseBundlePath(e.path)
		if !ok {
			if parts := strings.SplitN(e.path, "/", 3); len(parts) == 3 && parts[0] == toDir && mineSet["sha256:"+parts[1]] {
				out.Ignored = append(out.Ignored, e.path)
			}
			continue
		}
		ie := InboxEntry{BundleID: id, For: rh, Mine: mineSet[rh], Size: e.size}
		if ie.Mine {
			switch le, ok := led.entries[id]; {
			case ok && le.Outcome == ledgerImported:
				ie.Status = "imported"
			case ok:
				ie.Status, ie.Reason = "rejected", le.Detail
			case e.mode == "120000":
				ie.Status, ie.Reason = "invalid", "a symbolic link: never followed"
			case !e.regular():
				ie.Status, ie.Reason = "invalid", "not a regular file"
			case e.size > opts.Read.Limits.MaxInput:
				ie.Status, ie.Reason = "invalid", "over the size limit (--max-input)"
			default:
				ie.Status = "new"
				if !opts.NoVerify {
					verify = append(verify, len(out.Bundles))
				}
			}
		}
		out.Bundles = append(out.Bundles, ie)
	}
	paths := append([]string(nil), logs...)
	for _, i := range verify {
		paths = append(paths, BundlePath(out.Bundles[i].For, out.Bundles[i].BundleID))
	}
	clear, err := c.checkout(ctx, commit, paths)
	defer clear()
	if err != nil {
		return nil, err
	}
	sent := map[string]LogEntry{}
	from := map[string]string{}
	for _, lp := range logs {
		f, err := c.openChecked(lp, MaxLogSize)
		if err != nil {
			continue
		}
		data, err := safefile.ReadAllLimit(f, MaxLogSize)
		f.Close()
		if err != nil {
			continue
		}
		sh, _ := parseLogPath(lp)
		for _, le := range parseLog(data) {
			if _, dup := sent[le.BundleID]; !dup {
				sent[le.BundleID], from[le.BundleID] = le, sh
			}
		}
	}
	for i := range out.Bundles {
		b := &out.Bundles[i]
		if le, ok := sent[b.BundleID]; ok {
			b.From, b.SentAt = from[b.BundleID], le.Time
		}
	}
	var trust *crypto.TrustStore
	if len(verify) > 0 {
		if trust, err = opts.Keys.TrustStore(); err != nil {
			return nil, err
		}
	}
	seen := map[string]*InboxEntry{}
	for _, i := range verify {
		b := &out.Bundles[i]
		if prev, ok := seen[b.BundleID]; ok {
			b.Status, b.Reason, b.Verification, b.Title = prev.Status, prev.Reason, prev.Verification, prev.Title
			continue
		}
		seen[b.BundleID] = b
		f, err := c.openChecked(BundlePath(b.For, b.BundleID), opts.Read.Limits.MaxInput)
		if err != nil {
			b.Status, b.Reason = "invalid", err.Error()
			continue
		}
		res, err := check(f, b.BundleID, trust, opts.Read)
		f.Close()
		if res != nil && res.Manifest != nil && res.Manifest.Record != nil {
			b.Title = res.Manifest.Record.Title
		}
		if err != nil {
			b.Status, b.Reason = "invalid", err.Error()
			continue
		}
		v := res.Verification
		b.Verification = &v
	}
	sort.SliceStable(out.Bundles, func(i, j int) bool {
		a, b := out.Bundles[i], out.Bundles[j]
		if a.Mine != b.Mine {
			return a.Mine
		}
		if !a.SentAt.Equal(b.SentAt) {
			return a.SentAt.Before(b.SentAt)
		}
		return a.BundleID < b.BundleID
	})
	return out, nil
}

package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/store"
)

// SendOptions say what Send puts into a remote inbox.
type SendOptions struct {
	// Remote is the inbox.
	Remote Remote
	// DataDir is the data directory that holds the remote's local clone
	// (the store's directory).
	DataDir string
	// Store holds Record and its attachments.
	Store *store.Store
	// Record is the handoff to send; nil sends only what earlier sends
	// left unpushed.
	Record *handoff.Record
	// Recipients the bundle is encrypted to; each gets it in their own
	// ref of the inbox.
	Recipients []crypto.RecipientInfo
	// SigningKey signs the bundle.
	SigningKey *crypto.SigningKey
	// Producer names this program in the manifest.
	Producer bundle.Producer
	// Now is the time of the send (time.Now when zero).
	Now time.Time
	// Supersede makes a new bundle of Record even when an earlier send of
	// it is still waiting, and drops every such send, whatever its
	// recipients: the record has changed since (sync sends each version
	// of a session's record; the newest is the one to deliver, and only
	// to the devices paired now).
	Supersede bool
}

// Sent describes one bundle a Send pushed.
type Sent struct {
	BundleID   string     `json:"bundle_id"`
	HandoffID  handoff.ID `json:"handoff_id"`
	Recipients []string   `json:"recipients"`
	Time       time.Time  `json:"time"`
	// Earlier is set for a bundle made by an earlier send that had not
	// reached the remote: it is pushed now, not made again.
	Earlier bool `json:"earlier,omitempty"`
}

// SendResult is what Send did.
type SendResult struct {
	// Bundles are the bundles now on the remote: this send's and any left
	// by earlier sends.
	Bundles []Sent `json:"bundles"`
	// Commit is the commit pushed, "" if the remote had everything.
	Commit string `json:"commit,omitempty"`
	// Attempts counts push rounds (more than one when another sender
	// pushed in between).
	Attempts int `json:"attempts"`
	// Migrated is set when this send first moved a layout-1 inbox to
	// layout 2.
	Migrated bool `json:"migrated,omitempty"`
}

// ErrNothingToSend is returned by Send without a record when no earlier
// send is waiting.
var ErrNothingToSend = errors.New("nothing waiting to be sent")

// Send exports opts.Record for opts.Recipients, signed, and pushes it into
// the remote inbox: into each recipient's ref, in one atomic push leased
// on what it was built on, retried on a lost race (a layout-1 inbox is
// migrated first). A send that cannot push (the remote is unreachable,
// refuses, or kept changing for maxRounds rounds or pushBudget) keeps its
// bundle in the clone's outbox and fails; sending the same handoff to the same
// recipients again pushes that bundle instead of making another, and a
// bundle already on the remote is never added twice. Handover runs call
// Send for their send steps.
func Send(ctx context.Context, opts SendOptions) (*SendResult, error) {
	if opts.SigningKey == nil {
		return nil, errors.New("send: a signing key is required")
	}
	if opts.Record != nil && len(opts.Recipients) == 0 {
		return nil, errors.New("send: no recipients")
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
	pend, err := c.loadPending()
	if err != nil {
		return nil, err
	}
	if err := c.cleanOutbox(pend); err != nil {
		return nil, err
	}
	sender := SenderHash(opts.SigningKey.Public())
	made := -1 // the index in pend of the bundle this call made
	if opts.Record != nil {
		var hashes []string
		for _, r := range opts.Recipients {
			hashes = append(hashes, crypto.RecipientHash(r.Canonical))
		}
		sort.Strings(hashes)
		hashes = slices.Compact(hashes)
		if opts.Supersede {
			pend = slices.DeleteFunc(pend, func(p pendingSend) bool { return p.HandoffID == opts.Record.ID && p.Sender == sender })
		}
		if i := pend.find(opts.Record.ID, sender, hashes); i < 0 {
			id, err := c.export(ctx, opts, now)
			if err != nil {
				return nil, err
			}
			pend = append(pend, pendingSend{Time: now.UTC().Truncate(time.Millisecond), BundleID: id,
				HandoffID: opts.Record.ID, Sender: sender, Recipients: hashes})
			if err := c.savePending(pend); err != nil {
				os.Remove(c.outboxPath(id))
				return nil, err
			}
			made = len(pend) - 1
		}
	}
	if len(pend) == 0 {
		return nil, ErrNothingToSend
	}
	res := &SendResult{}
	for i, p := range pend {
		res.Bundles = append(res.Bundles, Sent{BundleID: p.BundleID, HandoffID: p.HandoffID, Recipients: p.Recipients, Time: p.Time, Earlier: i != made})
	}
	var patterns []string
	for _, h := range pendingRecipients(pend) {
		patterns = append(patterns, opts.Remote.recipientRef(h))
	}
	patterns = append(patterns, opts.Remote.markerRef())
	migrated := false
	res.Attempts, err = c.pushRetrying(ctx, patterns, nil, func(st refState) ([]update, error) {
		v, err := c.version(ctx, st[opts.Remote.markerRef()])
		if err != nil {
			return nil, err
		}
		if v == 1 {
			// Layout 1 is never written again: move it to layout 2 in
			// a push of its own first.
			if err := c.migrate(ctx); err != nil {
				return nil, err
			}
			migrated = true
			if st, err = c.sync(ctx, false, patterns...); err != nil {
				return nil, err
			}
		}
		ups, err := c.build(ctx, st, pend)
		if len(ups) > 0 {
			res.Commit = ups[0].new
		}
		return ups, err
	})
	res.Migrated = migrated
	if err != nil {
		return nil, err
	}
	if err := c.savePending(nil); err != nil {
		return nil, err
	}
	if err := c.cleanOutbox(nil); err != nil {
		return nil, err
	}
	return res, nil
}

// pendingRecipients lists the recipient hashes of pend, each once, sorted.
func pendingRecipients(pend pendingList) []string {
	var out []string
	for _, p := range pend {
		out = append(out, p.Recipients...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// export writes the bundle into the outbox, atomically, and returns its id.
func (c *clone) export(ctx context.Context, opts SendOptions, now time.Time) (string, error) {
	dir := c.state(outboxDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp := filepath.Join(dir, "export")
	var id string
	err := safefile.Write(tmp, 0o600, func(w io.Writer) error {
		m, err := exchange.Export(ctx, w, opts.Store, opts.Record, exchange.ExportOptions{SigningKey: opts.SigningKey,
			Recipients: opts.Recipients, Producer: opts.Producer, Now: now})
		if err == nil {
			id = m.BundleID
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("export %s: %w", opts.Record.ID, err)
	}
	if err := os.Rename(tmp, c.outboxPath(id)); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return id, safefile.SyncDir(dir)
}

func (c *clone) outboxPath(id string) string { return c.state(outboxDir, id+bundleExt) }

// pendingSend is a bundle in the outbox that has not reached the remote.
type pendingSend struct {
	Time       time.Time
	BundleID   string
	HandoffID  handoff.ID
	Sender     string
	Recipients []string
}

type pendingList []pendingSend

const pendingHeader = "session-handoff-pending-sends 1"

// find returns the index of a waiting send of the same handoff by the same
// sender to the same recipients, or -1.
func (l pendingList) find(id handoff.ID, sender string, recipients []string) int {
	for i, p := range l {
		if p.HandoffID == id && p.Sender == sender && slices.Equal(p.Recipients, recipients) {
			return i
		}
	}
	return -1
}

func (c *clone) loadPending() (pendingList, error) {
	path := c.state("pending")
	data, err := safefile.ReadFile(path, 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, safefile.Wrap("read", path, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != pendingHeader {
		return nil, fmt.Errorf("%s:1: not a list of pending sends", path)
	}
	var out pendingList
	for i, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("%s:%d: damaged line", path, i+2)
		}
		e, err := parseLogLine(f[0] + "\t" + f[1] + "\t" + f[4])
		hid, herr := handoff.ParseID(f[2])
		if err != nil || herr != nil || !strings.HasPrefix(f[3], "sha256:") || !isHex(hexOf(f[3]), 64) {
			return nil, fmt.Errorf("%s:%d: damaged line", path, i+2)
		}
		out = append(out, pendingSend{Time: e.Time, BundleID: e.BundleID, HandoffID: hid, Sender: f[3], Recipients: e.Recipients})
	}
	return out, nil
}

func (c *clone) savePending(l pendingList) error {
	var b strings.Builder
	b.WriteString(pendingHeader + "\n")
	for _, p := range l {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", p.Time.UTC().Format(timeFormat), p.BundleID, p.HandoffID, p.Sender, strings.Join(p.Recipients, ","))
	}
	if err := os.MkdirAll(c.state(), 0o700); err != nil {
		return err
	}
	return safefile.WriteFile(c.state("pending"), []byte(b.String()), 0o600)
}

// cleanOutbox removes outbox files no pending send names (left by a crash
// between export and recording the send, or after a push).
func (c *clone) cleanOutbox(l pendingList) error {
	dir := c.state(outboxDir)
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, p := range l {
		keep[p.BundleID+bundleExt] = true
	}
	for _, de := range des {
		if !keep[de.Name()] {
			if err := os.Remove(filepath.Join(dir, de.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// build returns the updates that put each bundle of pend into each of its
// recipients' refs, on top of what st says they hold (a bundle a ref
// holds already is not added again), and create the marker branch of a
// new inbox. Each updated ref is one commit without parent.
func (c *clone) build(ctx context.Context, st refState, pend pendingList) ([]update, error) {
	var files []string
	for _, p := range pend {
		files = append(files, c.outboxPath(p.BundleID))
	}
	out, err := c.git.Run(ctx, append([]string{"hash-object", "-w", "--no-filters", "--"}, files...)...)
	if err != nil {
		return nil, err
	}
	objs := strings.Fields(string(out))
	if len(objs) != len(files) {
		return nil, fmt.Errorf("git hash-object: %d hashes for %d files", len(objs), len(files))
	}
	var ups []update
	for _, h := range pendingRecipients(pend) {
		ref := c.remote.recipientRef(h)
		recs, err := c.treeRecords(ctx, st[ref])
		if err != nil {
			return nil, err
		}
		added := 0
		for i, p := range pend {
			name := p.BundleID + bundleExt
			if _, ok := recs[name]; ok || !slices.Contains(p.Recipients, h) {
				continue
			}
			recs[name] = "100644 blob " + objs[i] + "\t" + name
			added++
		}
		if added == 0 {
			continue
		}
		commit, err := c.commitTree(ctx, recs, len(recs), "")
		if err != nil {
			return nil, err
		}
		ups = append(ups, update{ref: ref, old: st[ref], new: commit})
	}
	if len(ups) > 0 && st[c.remote.markerRef()] == "" {
		// A new inbox: its branch says which layout it is, so that a
		// client that knows only layout 1 refuses it instead of starting
		// one of its own beside it.
		commit, err := c.markerCommit(ctx)
		if err != nil {
			return nil, err
		}
		ups = append(ups, update{ref: c.remote.markerRef(), new: commit})
	}
	return ups, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

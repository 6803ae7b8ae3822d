package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
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
	// Recipients the bundle is encrypted to; each gets it in its own
	// directory of the inbox.
	Recipients []crypto.RecipientInfo
	// SigningKey signs the bundle; it also names the sender's log.
	SigningKey *crypto.SigningKey
	// Producer names this program in the manifest.
	Producer bundle.Producer
	// Now is the time of the send (time.Now when zero).
	Now time.Time
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
}

// ErrNothingToSend is returned by Send without a record when no earlier
// send is waiting.
var ErrNothingToSend = errors.New("nothing waiting to be sent")

// Send exports opts.Record for opts.Recipients, signed, and pushes it into
// the remote inbox: one copy per recipient directory and a line in the
// sender's log, in one commit. A send that cannot push (the remote is
// unreachable, or kept changing for five rounds) keeps its bundle in the
// clone's outbox and fails; sending the same handoff to the same
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
	var pushErr error
	prev := ""
	for res.Attempts = 1; res.Attempts <= maxAttempts; res.Attempts++ {
		base, err := c.fetch(ctx)
		if err != nil {
			return nil, err
		}
		if pushErr != nil && base == prev {
			// The push failed and nobody else pushed: not a race.
			return nil, fmt.Errorf("push to %s: %w", opts.Remote.Name, pushErr)
		}
		prev = base
		commit, n, err := c.build(ctx, base, pend)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			if _, err := c.net.Run(ctx, "push", "--quiet", "--no-verify", "origin", commit+":refs/heads/"+opts.Remote.branch()); err != nil {
				pushErr = err
				backoff(ctx, res.Attempts)
				continue
			}
			res.Commit = commit
		}
		if err := c.savePending(nil); err != nil {
			return nil, err
		}
		if err := c.cleanOutbox(nil); err != nil {
			return nil, err
		}
		return res, nil
	}
	return nil, fmt.Errorf("push to %s: gave up after %d attempts, the remote kept changing: %w", opts.Remote.Name, maxAttempts, pushErr)
}

// backoff waits a little, at random, after a lost race, so that senders
// pushing in step fall out of it.
func backoff(ctx context.Context, attempt int) {
	d := time.Duration(rand.Int64N(int64(attempt) * int64(40*time.Millisecond)))
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
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
		return nil, fmt.Errorf("read %s: %w", path, err)
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

// build makes, on top of base (or as the first commit when base is ""),
// a commit that adds what of pend the remote lacks: each bundle in each
// recipient's directory, each log line in its sender's log. It returns the
// commit and how many bundles it adds or completes; with none, no commit.
// The index is left empty.
func (c *clone) build(ctx context.Context, base string, pend pendingList) (commit string, n int, err error) {
	var paths []string
	for _, p := range pend {
		for _, r := range p.Recipients {
			paths = append(paths, BundlePath(r, p.BundleID))
		}
		paths = append(paths, LogPath(p.Sender))
	}
	paths = append(paths, markerFile)
	have := map[string]entry{}
	es, err := c.list(ctx, base, false, paths...)
	if err != nil {
		return "", 0, err
	}
	for _, e := range es {
		have[e.path] = e
	}
	if m, ok := have[markerFile]; ok && !markerOK(m) {
		return "", 0, c.errNotInbox()
	}

	// Hash every file that may go in, in one git call: the marker, each
	// bundle once (however many directories it goes to), changed logs.
	logs := map[string][]byte{}
	logged := map[string]bool{} // bundles whose log line is added
	var changedLogs []string
	for _, p := range pend {
		lp := LogPath(p.Sender)
		if _, ok := logs[lp]; !ok {
			logs[lp] = nil
			if e, ok := have[lp]; ok {
				data, err := c.catBlob(ctx, e, MaxLogSize)
				if err != nil {
					return "", 0, fmt.Errorf("%s: sender log: %w", c.remote.Name, err)
				}
				logs[lp] = data
			}
		}
		if logHas(logs[lp], p.BundleID) {
			continue
		}
		if l := logs[lp]; len(l) > 0 && l[len(l)-1] != '\n' {
			logs[lp] = append(l, '\n')
		}
		logs[lp] = append(logs[lp], LogEntry{Time: p.Time, BundleID: p.BundleID, Recipients: p.Recipients}.String()+"\n"...)
		logged[p.BundleID] = true
		if !slices.Contains(changedLogs, lp) {
			changedLogs = append(changedLogs, lp)
		}
	}
	files := []string{c.state("marker")}
	if err := os.WriteFile(files[0], []byte(markerContent), 0o600); err != nil {
		return "", 0, err
	}
	for _, p := range pend {
		files = append(files, c.outboxPath(p.BundleID))
	}
	for i, lp := range changedLogs {
		if int64(len(logs[lp])) > MaxLogSize {
			return "", 0, fmt.Errorf("%s: sender log %s would be over %d bytes", c.remote.Name, lp, MaxLogSize)
		}
		f := c.state(fmt.Sprintf("log-%d", i))
		if err := os.WriteFile(f, logs[lp], 0o600); err != nil {
			return "", 0, err
		}
		defer os.Remove(f)
		files = append(files, f)
	}
	out, err := c.git.Run(ctx, append([]string{"hash-object", "-w", "--no-filters", "--"}, files...)...)
	if err != nil {
		return "", 0, err
	}
	objs := strings.Fields(string(out))
	if len(objs) != len(files) {
		return "", 0, fmt.Errorf("git hash-object: %d hashes for %d files", len(objs), len(files))
	}
	var cacheinfo []string
	add := func(path, obj string) bool {
		if e, ok := have[path]; ok && e.regular() && e.object == obj {
			return false
		}
		cacheinfo = append(cacheinfo, "--cacheinfo", "100644,"+obj+","+path)
		return true
	}
	add(markerFile, objs[0])
	for i, p := range pend {
		added := false
		for _, r := range p.Recipients {
			added = add(BundlePath(r, p.BundleID), objs[1+i]) || added
		}
		if added || logged[p.BundleID] {
			n++
		}
	}
	for i, lp := range changedLogs {
		add(lp, objs[1+len(pend)+i])
	}
	if n == 0 {
		return "", 0, nil
	}
	if base == "" {
		_, err = c.git.Run(ctx, "read-tree", "--empty")
	} else {
		_, err = c.git.Run(ctx, "read-tree", base)
	}
	if err != nil {
		return "", 0, err
	}
	defer func() {
		if _, cerr := c.git.Run(ctx, "read-tree", "--empty"); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if _, err := c.git.Run(ctx, append([]string{"update-index", "--add", "--replace"}, cacheinfo...)...); err != nil {
		return "", 0, err
	}
	tree, err := c.git.Run(ctx, "write-tree")
	if err != nil {
		return "", 0, err
	}
	args := []string{"commit-tree", "--no-gpg-sign", "-m", fmt.Sprintf("%s%d bundle%s", commitPrefix, n, plural(n))}
	if base != "" {
		args = append(args, "-p", base)
	}
	out, err = c.git.Run(ctx, append(args, strings.TrimSpace(string(tree)))...)
	if err != nil {
		return "", 0, err
	}
	return strings.TrimSpace(string(out)), n, nil
}

// logHas reports whether a log names bundle id.
func logHas(log []byte, id string) bool {
	for _, line := range bytes.Split(log, []byte{'\n'}) {
		if f := bytes.SplitN(line, []byte{'\t'}, 3); len(f) == 3 && string(f[1]) == id {
			return true
		}
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

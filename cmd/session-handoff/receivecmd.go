package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/internal/remote"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/render"
)

// receiveOptions are receive's flags.
type receiveOptions struct {
	remote     string
	identities []string
	limits     *bundle.Limits
	dryRun     bool
	retry      bool
	noFetch    bool
	onConflict string
	policy     exchange.Policy // --allow-untrusted, --allow-unsigned, --tofu
	drop       []string        // bundle ids, or dropAllRefused
	json       bool
}

// dropAllRefused is the --drop value that drops every refused bundle.
const dropAllRefused = "all-refused"

func newReceiveCmd(a *app) *cobra.Command {
	var opts receiveOptions
	cmd := &cobra.Command{
		Use:   "receive [--remote NAME] [--dry-run] [--retry] [--drop BUNDLE-ID|all-refused] [--allow-untrusted] [--allow-unsigned] [--tofu] [--json]",
		Short: "fetch and import the bundles a git remote holds for me",
		Long: `Fetches each remote (or the one --remote names) and imports every new
bundle in my ref of its inbox, the one named by the hash of my age
recipient (and of each --identity). Only my refs are fetched; other
recipients' bundles are never read. Each bundle is checked completely first (encrypted and signed for
me, named by its own id, within the limits), then imported as 'import'
would, with the same trust policy: only bundles signed by a key in my
trust store unless --allow-untrusted, --allow-unsigned or --tofu.

One line per bundle says what happened. Imported and rejected (invalid)
bundles are recorded in a ledger in the data directory and not looked at
again, and then removed from my ref on the remote (a sender pushing at
the same moment loses nothing: the removal is leased and made again);
bundles refused by the policy stay, and are imported once their signer is
trusted. A bundle refused for its signer is remembered: later receives
say it is "still refused" without reading it again, until it changes or
the trust store does ('inbox' shows it refused, with the reason). --drop
BUNDLE-ID (repeatable) or --drop all-refused drops refused bundles: they
are recorded as dropped and removed from my ref, never imported.
--retry looks again at rejected bundles still on the remote (an inbox of
the earlier one-branch layout keeps them). Exit status 1 when a bundle
was refused or rejected by this receive, a remote could not be read, or a
--drop names no refused bundle; a bundle still refused since an earlier
receive, unchanged, does not count. --dry-run checks and writes nothing,
and removes nothing.`,
		Example: `  session-handoff receive
  session-handoff receive --remote team --dry-run
  session-handoff receive --drop 0123456789abcdef0123456789abcdef
  session-handoff receive --drop all-refused
  session-handoff receive --tofu --json`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runReceive(a, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.remote, "remote", "", "receive from this remote only (default: every remote)")
	repeatedVar(f, &opts.identities, "identity", "an age identity file or OpenSSH private key to receive for too (repeatable)")
	opts.limits = limitFlags(f)
	f.BoolVar(&opts.dryRun, "dry-run", false, "check and report, import nothing")
	f.BoolVar(&opts.retry, "retry", false, "look again at bundles rejected before")
	f.BoolVar(&opts.noFetch, "no-fetch", false, "use what was fetched last")
	repeatedVar(f, &opts.drop, "drop", "drop this refused bundle (its id as receive and inbox print it; repeatable), or every refused one with all-refused")
	f.StringVar(&opts.onConflict, "on-conflict", "fail", "when a different handoff with the same id is stored: fail, skip or replace")
	f.BoolVar(&opts.policy.AllowUntrusted, "allow-untrusted", false, "accept a valid signature by a key that is not in my trust store (RISK: anyone can make such a key)")
	f.BoolVar(&opts.policy.AllowUnsigned, "allow-unsigned", false, "accept unsigned bundles (RISK: anyone could have written them)")
	f.BoolVar(&opts.policy.TOFU, "tofu", false, "trust signers on first use and pin their names to their keys")
	f.BoolVar(&opts.json, "json", false, "print the result as JSON")
	_ = cmd.RegisterFlagCompletionFunc("remote", a.completeRemotes)
	return cmd
}

func runReceive(a *app, opts receiveOptions) error {
	pol := opts.policy
	pol.OnConflict = exchange.Conflict(opts.onConflict)
	switch pol.OnConflict {
	case exchange.ConflictFail, exchange.ConflictSkip, exchange.ConflictReplace:
	default:
		return usagef("--on-conflict %q: want fail, skip or replace", handoff.Shorten(opts.onConflict, 20))
	}
	dropAll := false
	var dropIDs []string
	for _, d := range opts.drop {
		switch {
		case d == dropAllRefused:
			dropAll = true
		case len(d) == 32 && strings.Trim(d, "0123456789abcdef") == "":
			dropIDs = append(dropIDs, d)
		default:
			return usagef("--drop %q: want a bundle id (32 lower-case hex characters, as receive and inbox print it) or %s", handoff.Shorten(d, 40), dropAllRefused)
		}
	}
	if opts.dryRun && len(opts.drop) > 0 {
		return usagef("--drop writes the ledger and changes the remote: not with --dry-run")
	}
	remotes, err := a.inboxRemotes(opts.remote)
	if err != nil {
		return err
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	kr, ropts, err := a.readOptions(readerOptions{identities: opts.identities, limits: opts.limits})
	if err != nil {
		return err
	}
	var tally receiveTally
	for _, r := range remotes {
		res, err := remote.Receive(a.ctx, remote.ReceiveOptions{Remote: r, DataDir: s.Dir(), Store: s, Keys: kr, Read: ropts,
			Policy: pol, DryRun: opts.dryRun, Retry: opts.retry, NoFetch: opts.noFetch, Drop: dropIDs, DropRefused: dropAll, Now: time.Now()})
		if errors.Is(err, exchange.ErrNoKeys) {
			return withHint(err, "run 'session-handoff keygen' first")
		}
		if err != nil {
			tally.failed++
			fmt.Fprintf(a.stderr, "session-handoff: receive: %s\n", untrusted.OneLine(err.Error(), maxLine))
			continue
		}
		tally.add(res)
		if !opts.json {
			a.printReceive(res)
		}
	}
	if opts.json {
		if tally.results == nil {
			tally.results = []*remote.ReceiveResult{}
		}
		if err := a.writeJSON(tally.results); err != nil {
			return err
		}
	}
	if err := tally.err(len(remotes)); err != nil {
		return err
	}
	for _, id := range dropIDs {
		if !slices.Contains(tally.dropped, id) {
			return withHint(fmt.Errorf("--drop %s: no refused bundle with this id in my refs", id), "'session-handoff inbox' lists my bundles and their ids")
		}
	}
	return nil
}

// receiveTally counts what a receive did across its remotes.
type receiveTally struct {
	results           []*remote.ReceiveResult
	failed            int // remotes that could not be read
	refused, rejected int
	hints             []string
	dropped           []string // bundle ids dropped
}

func (t *receiveTally) add(res *remote.ReceiveResult) {
	t.results = append(t.results, res)
	for _, it := range res.Items {
		switch it.Outcome {
		case remote.OutcomeRefused:
			t.refused++
			if h := refusalHint(it.Err); h != "" && !slices.Contains(t.hints, h) {
				t.hints = append(t.hints, h)
			}
		case remote.OutcomeRejected:
			t.rejected++
		case remote.OutcomeDropped:
			t.dropped = append(t.dropped, it.BundleID)
		}
	}
}

// err is the receive's outcome: exit 1 when a remote could not be read or
// a bundle was not imported.
func (t *receiveTally) err(remotes int) error {
	switch {
	case t.failed == 1 && remotes == 1:
		return exitError{exitFailure, nil}
	case t.failed > 0:
		return exitError{exitFailure, fmt.Errorf("%d of %d remotes could not be read", t.failed, remotes)}
	case t.refused+t.rejected > 0:
		n := t.refused + t.rejected
		err := fmt.Errorf("%d bundle%s not imported (%d refused, %d rejected)", n, pluralS(n), t.refused, t.rejected)
		if len(t.hints) > 0 {
			return withHint(err, strings.Join(t.hints, "; "))
		}
		return err
	}
	return nil
}

// inboxOptions are inbox's flags.
type inboxOptions struct {
	remote     string
	identities []string
	limits     *bundle.Limits
	noFetch    bool
	noVerify   bool
	json       bool
}

func newInboxCmd(a *app) *cobra.Command {
	var opts inboxOptions
	cmd := &cobra.Command{
		Use:   "inbox [--remote NAME] [--no-fetch] [--no-verify] [--json]",
		Short: "list what git remotes hold: for whom, from whom, verified or not",
		Long: `Fetches each remote (or the one --remote names) and lists my bundles
(those in the refs of my age recipient and identities), one per line,
with whether they are new, imported, rejected, or refused by an earlier
receive for their signer (with the reason), and, for new ones,
whether they verify against my trust store (they are decrypted and
checked, not stored: --no-verify skips that); "from" and "sent" are the
bundle's own signer and time. The other recipients the remote holds
bundles for are named, never read or counted. Names come from the address
book. Sends that did not reach the remote are listed too.`,
		Example: `  session-handoff inbox
  session-handoff inbox --remote team --json`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runInbox(a, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.remote, "remote", "", "list this remote only (default: every remote)")
	repeatedVar(f, &opts.identities, "identity", "an age identity file or OpenSSH private key whose directory is mine too (repeatable)")
	opts.limits = limitFlags(f)
	f.BoolVar(&opts.noFetch, "no-fetch", false, "use what was fetched last")
	f.BoolVar(&opts.noVerify, "no-verify", false, "do not decrypt and check my new bundles")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	_ = cmd.RegisterFlagCompletionFunc("remote", a.completeRemotes)
	return cmd
}

func runInbox(a *app, opts inboxOptions) error {
	remotes, err := a.inboxRemotes(opts.remote)
	if err != nil {
		return err
	}
	dataDir, err := a.dataDir()
	if err != nil {
		return err
	}
	kr, ropts, err := a.readOptions(readerOptions{identities: opts.identities, limits: opts.limits})
	if err != nil {
		return err
	}
	book, err := people.Load(kr.Dir)
	if err != nil {
		return err
	}
	byRecipient, bySigner := book.Names()
	out := []inboxJSON{}
	failed := 0
	for _, r := range remotes {
		l, err := remote.Inbox(a.ctx, remote.InboxOptions{Remote: r, DataDir: dataDir, Keys: kr, Read: ropts, NoFetch: opts.noFetch, NoVerify: opts.noVerify})
		if errors.Is(err, exchange.ErrNoKeys) {
			return withHint(err, "run 'session-handoff keygen' first")
		}
		if err != nil {
			failed++
			fmt.Fprintf(a.stderr, "session-handoff: inbox: %s\n", untrusted.OneLine(err.Error(), maxLine))
			continue
		}
		j := inboxJSON{InboxListing: l, URL: r.DisplayURL(), Branch: r.Branch, Bundles: []inboxEntry{}}
		for _, b := range l.Bundles {
			j.Bundles = append(j.Bundles, inboxEntry{InboxEntry: b, ForName: nameOr(byRecipient, b.For, b.Mine), FromName: nameOr(bySigner, b.From, false)})
		}
		for _, h := range l.Others {
			j.OtherNames = append(j.OtherNames, nameOr(byRecipient, h, false))
		}
		out = append(out, j)
	}
	if opts.json {
		if err := a.writeJSON(out); err != nil {
			return err
		}
	} else {
		for _, j := range out {
			a.printInbox(j, time.Now())
		}
	}
	if failed > 0 {
		return exitError{exitFailure, nil}
	}
	return nil
}

// inboxJSON is one remote's listing, each bundle with names from the
// address book.
type inboxJSON struct {
	*remote.InboxListing
	URL     string       `json:"url"`
	Branch  string       `json:"branch"`
	Bundles []inboxEntry `json:"bundles"`
	// OtherNames name Others, in their order.
	OtherNames []string `json:"other_names,omitempty"`
}

// inboxEntry names the recipient ("me", an address-book name, or the hash
// shortened) and the key that signed the bundle.
type inboxEntry struct {
	remote.InboxEntry
	ForName  string `json:"for_name"`
	FromName string `json:"from_name,omitempty"`
}

// nameOr names a hash from the address book: "me", a name, or the hash
// shortened.
func nameOr(names map[string]string, h string, me bool) string {
	switch {
	case me:
		return "me"
	case h == "":
		return ""
	case names[h] != "":
		return names[h]
	}
	return handoff.Clip(h, len("sha256:")+12) + "…"
}

// inboxRemotes are the remotes a receive or inbox goes through: the one
// named, or all of them (remote.Config.Select).
func (a *app) inboxRemotes(name string) ([]remote.Remote, error) {
	kr, err := a.keyring()
	if err != nil {
		return nil, err
	}
	c, err := remote.LoadConfig(kr.Dir)
	if err != nil {
		return nil, err
	}
	list, err := c.Select(name)
	if err != nil {
		return nil, remoteHint(err)
	}
	return list, nil
}

func (a *app) printReceive(res *remote.ReceiveResult) {
	counts := map[remote.Outcome]int{}
	for _, it := range res.Items {
		counts[it.Outcome]++
		switch {
		case it.Outcome == remote.OutcomeIgnored:
			fmt.Fprintf(a.stdout, "%s: ignored %s: %s\n", res.Remote, cell(it.Path, 120), untrusted.OneLine(it.Reason, maxLine))
		case it.Failed() || it.Outcome == remote.OutcomeDropped:
			fmt.Fprintf(a.stdout, "%s: %s %s: %s\n", res.Remote, it.Outcome, it.BundleID, untrusted.OneLine(it.Reason, maxLine))
		case it.Outcome == remote.OutcomeStillRefused:
			fmt.Fprintf(a.stdout, "%s: %s %s: %s (unchanged; 'receive --drop %s' drops it)\n", res.Remote, it.Outcome, it.BundleID, untrusted.OneLine(it.Reason, maxLine), it.BundleID)
		default:
			who := ""
			if it.Verification != nil {
				who = " (" + describeVerification(*it.Verification) + ")"
			}
			if it.PinnedAs != "" {
				who = fmt.Sprintf(" (trusted on first use: pinned %s to %s)", cell(it.PinnedAs, 60), it.Verification.Fingerprint)
			}
			fmt.Fprintf(a.stdout, "%s: %s %s  %s%s\n", res.Remote, it.Outcome, it.HandoffID, cell(it.Title, 80), who)
		}
	}
	var parts []string
	for _, o := range []remote.Outcome{remote.OutcomeImported, remote.OutcomeReplaced, remote.OutcomeAlready, remote.OutcomeSkipped,
		remote.OutcomeWouldImport, remote.OutcomeRefused, remote.OutcomeStillRefused, remote.OutcomeDropped, remote.OutcomeRejected, remote.OutcomeIgnored} {
		if counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[o], o))
		}
	}
	if res.Earlier > 0 {
		parts = append(parts, fmt.Sprintf("%d received before", res.Earlier))
	}
	if res.Removed > 0 {
		parts = append(parts, fmt.Sprintf("%d removed from the remote", res.Removed))
	}
	if res.RemoveError != "" {
		fmt.Fprintf(a.stderr, "session-handoff: receive: %s: delivered bundles stay on the remote until the next receive: %s\n", res.Remote, untrusted.OneLine(res.RemoveError, maxLine))
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing new")
	}
	fmt.Fprintf(a.stdout, "%s: %s\n", res.Remote, strings.Join(parts, ", "))
}

func (a *app) printInbox(j inboxJSON, now time.Time) {
	fmt.Fprintf(a.stdout, "%s (%s, branch %s)\n", j.Remote, cell(j.URL, 80), j.Branch)
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	mine := 0
	for _, b := range j.Bundles {
		if mine == 0 {
			fmt.Fprintln(tw, "  FOR ME\tBUNDLE\tSENT\tFROM\tCHECK")
		}
		mine++
		sent, from, check := "-", "?", untrusted.OneLine(b.Reason, maxLine)
		if !b.SentAt.IsZero() {
			sent = render.Ago(b.SentAt, now)
		}
		if b.FromName != "" {
			from = b.FromName
		}
		if v := b.Verification; v != nil {
			check = describeVerification(*v)
			if v.Status == bundle.StatusVerified {
				from = firstOr(v.Principals, "?")
			}
		}
		if b.Title != "" {
			check = strings.TrimSpace(check + "  " + cell(b.Title, 60))
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", b.Status, b.BundleID, sent, cell(from, 40), cell(check, 160))
	}
	tw.Flush()
	if mine == 0 {
		fmt.Fprintln(a.stdout, "  nothing for me")
	}
	if len(j.OtherNames) > 0 {
		// Their refs, never read: not even whether they hold anything.
		names := slices.Clone(j.OtherNames)
		more := ""
		if len(names) > 10 {
			names, more = names[:10], fmt.Sprintf(" and %d more", len(names)-10)
		}
		for i, n := range names {
			names[i] = cell(n, 60)
		}
		fmt.Fprintf(a.stdout, "  other recipients here: %s%s\n", strings.Join(names, ", "), more)
	}
	for _, p := range j.Ignored {
		fmt.Fprintf(a.stdout, "  ignored in my directory: %s\n", cell(p, 120))
	}
	if n := len(j.Outgoing); n > 0 {
		fmt.Fprintf(a.stdout, "  not yet pushed: %d bundle%s ('session-handoff send --pending --remote %s')\n", n, pluralS(n), j.Remote)
	}
}

// refusalHint says what would accept a refused bundle.
func refusalHint(err error) string {
	switch {
	case errors.Is(err, exchange.ErrRefusedUntrusted):
		return "check the signer's fingerprint with them, then 'session-handoff people add NAME age1… \"ssh-ed25519 …\" --trust' or 'trust add', or pass --tofu"
	case errors.Is(err, exchange.ErrRefusedUnsigned):
		return "pass --allow-unsigned if you know where they came from"
	case errors.Is(err, exchange.ErrConflict):
		return "pass --on-conflict skip or --on-conflict replace"
	case errors.Is(err, crypto.ErrPinnedToOtherKey):
		return "a signer uses a name pinned to another key: check with them before 'trust rm'"
	}
	return ""
}

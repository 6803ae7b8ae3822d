package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/internal/remote"
)

// sendOptions are send's argument and flags.
type sendOptions struct {
	ref         string // the handoff: an id, a prefix or "latest"
	allProjects bool   // "latest" is the store's newest, not this project's
	remote      string
	to          []string
	pending     bool
	keyPassFile string
	json        bool
}

func newSendCmd(a *app) *cobra.Command {
	var opts sendOptions
	cmd := &cobra.Command{
		Use:   "send [ID|latest] --to NAME|KEY… [--remote NAME] | send --pending [--remote NAME]",
		Short: "send a handoff to people through a git remote",
		Long: `Exports the handoff (default: latest) as a bundle signed with my key and
encrypted to the recipients, and pushes it to the remote's inbox: one copy
in each recipient's directory and one line in my log, in one commit whose
message says only how many bundles it adds. --to takes a name from the
address book ('people add') or an age1…/ssh- key; repeat it for several
recipients. --remote may be left out when only one remote is configured.

If someone else pushed at the same moment, the send is rebuilt on top of
theirs and pushed again (for up to 2 minutes, at most 60 rounds). If the remote cannot be reached,
the bundle is kept: running the same send again, or 'send --pending',
pushes that bundle; it is never added twice.`,
		Example: `  session-handoff send --remote team --to bob@desk
  session-handoff send 01KMBF --to bob@desk --to carol@lab
  session-handoff send --pending --remote team`,
		Args:              rangeArgs(0, 1, "at most one id"),
		ValidArgsFunction: a.completeIDs,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ref = args[0]
			}
			return runSend(a, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.allProjects, "all-projects", false, allProjectsUsage)
	f.StringVar(&opts.remote, "remote", "", "the remote to send through (default: the only one)")
	repeatedVar(f, &opts.to, "to", "a recipient: a name from the address book, or an age1…/ssh- key (repeatable)")
	f.BoolVar(&opts.pending, "pending", false, "only push what earlier sends could not")
	f.StringVar(&opts.keyPassFile, "key-passphrase-file", "", "read the signing key's passphrase from this file")
	f.BoolVar(&opts.json, "json", false, "print the result as JSON")
	_ = cmd.RegisterFlagCompletionFunc("remote", a.completeRemotes)
	_ = cmd.RegisterFlagCompletionFunc("to", a.completePeopleFlag(cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runSend(a *app, opts sendOptions) error {
	if opts.pending && (opts.ref != "" || len(opts.to) > 0) {
		return usagef("--pending takes no id and no --to")
	}
	if !opts.pending && len(opts.to) == 0 {
		return withHint(usagef("no recipients"), "pass --to NAME (from 'session-handoff people list') or --to age1…")
	}
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	c, err := remote.LoadConfig(kr.Dir)
	if err != nil {
		return err
	}
	r, err := c.Pick(opts.remote)
	if err != nil {
		return remoteHint(err)
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	so := remote.SendOptions{Remote: r, DataDir: s.Dir(), Store: s, Producer: producer(), Now: time.Now()}
	var to sendRecipients
	if !opts.pending {
		ref := opts.ref
		if ref == "" {
			ref = "latest"
		}
		id, err := a.resolveHere(s, ref, opts.allProjects)
		if err != nil {
			return err
		}
		if so.Record, err = s.Get(id); err != nil {
			return err
		}
		if to, err = resolveRecipients(kr, opts.to); err != nil {
			return err
		}
		so.Recipients = to.infos
	}
	if so.SigningKey, err = a.signingKey(opts.keyPassFile, "run 'session-handoff keygen' first"); err != nil {
		return err
	}
	res, err := remote.Send(a.ctx, so)
	if errors.Is(err, remote.ErrNothingToSend) {
		fmt.Fprintf(a.stderr, "nothing waiting to be sent to %s\n", r.Name)
		return nil
	}
	if err != nil {
		if st, serr := remote.State(s.Dir(), r.Name); serr == nil && len(st.Unsent) > 0 {
			return withHint(err, fmt.Sprintf("the bundle is kept: run the same send again, or 'session-handoff send --pending --remote %s'", r.Name))
		}
		return err
	}
	if opts.json {
		return a.writeJSON(res)
	}
	a.printSent(res, r.Name, to)
	return nil
}

// sendRecipients are the --to recipients, with the names they were given
// by and the hashes the remote knows them by.
type sendRecipients struct {
	infos          []crypto.RecipientInfo
	labels, hashes []string
}

// resolveRecipients looks each --to value up in the address book.
func resolveRecipients(kr exchange.Keyring, to []string) (sendRecipients, error) {
	var out sendRecipients
	book, err := people.Load(kr.Dir)
	if err != nil {
		return out, err
	}
	for _, t := range to {
		ri, label, err := book.Resolve(t)
		if errors.Is(err, people.ErrUnknown) {
			return out, withHint(err, fmt.Sprintf("add them: session-handoff people add %s age1… [\"ssh-ed25519 AAAA… %s\"]", handoff.Shorten(t, 40), handoff.Shorten(t, 40)))
		}
		if err != nil {
			return out, usagef("--to: %v", err)
		}
		out.infos = append(out.infos, ri)
		out.labels = append(out.labels, label)
		out.hashes = append(out.hashes, crypto.RecipientHash(ri.Canonical))
	}
	return out, nil
}

// printSent says what a send pushed: one line a bundle.
func (a *app) printSent(res *remote.SendResult, remoteName string, to sendRecipients) {
	for _, b := range res.Bundles {
		who := fmt.Sprintf("%d recipient%s", len(b.Recipients), pluralS(len(b.Recipients)))
		if len(to.labels) > 0 && sameSet(b.Recipients, to.hashes) {
			who = strings.Join(to.labels, ", ")
		}
		note := ""
		if b.Earlier {
			note = " (from an earlier send that had not reached the remote)"
		}
		if res.Commit == "" {
			note = " (it was on the remote already)"
		}
		fmt.Fprintf(a.stdout, "sent %s as bundle %s to %s via %s%s\n", b.HandoffID, b.BundleID, cell(who, 200), remoteName, note)
	}
	if res.Attempts > 1 {
		fmt.Fprintf(a.stderr, "pushed after %d attempts: others pushed at the same time\n", res.Attempts)
	}
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

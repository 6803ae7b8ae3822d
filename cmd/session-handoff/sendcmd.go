package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/internal/remote"
)

func init() {
	register(&command{
		name:    "send",
		summary: "send a handoff to people through a git remote",
		usage:   "send [ID|latest] --to NAME|KEY… [--remote NAME] | send --pending [--remote NAME]",
		help: `Exports the handoff (default: latest) as a bundle signed with my key and
encrypted to the recipients, and pushes it to the remote's inbox: one copy
in each recipient's directory and one line in my log, in one commit whose
message says only how many bundles it adds. --to takes a name from the
address book ('people add') or an age1…/ssh- key; repeat it for several
recipients. --remote may be left out when only one remote is configured.

If someone else pushed at the same moment, the send is rebuilt on top of
theirs and pushed again (up to 5 times). If the remote cannot be reached,
the bundle is kept: running the same send again, or 'send --pending',
pushes that bundle; it is never added twice.`,
		example: `  session-handoff send --remote team --to bob@desk
  session-handoff send 01KMBF --to bob@desk --to carol@lab
  session-handoff send --pending --remote team`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeFlag(fs, a)
			keysFlag(fs, a)
			remoteName := fs.String("remote", "", "the remote to send through (default: the only one)")
			to := fs.StringArray("to", nil, "a recipient: a name from the address book, or an age1…/ssh- key (repeatable)")
			pending := fs.Bool("pending", false, "only push what earlier sends could not")
			keyPassFile := fs.String("key-passphrase-file", "", "read the signing key's passphrase from this file")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			return func(args []string) error {
				if len(args) > 1 {
					return usagef("takes at most one id")
				}
				if *pending && (len(args) > 0 || len(*to) > 0) {
					return usagef("--pending takes no id and no --to")
				}
				if !*pending && len(*to) == 0 {
					return withHint(usagef("no recipients"), "pass --to NAME (from 'session-handoff people list') or --to age1…")
				}
				kr, err := a.keyring()
				if err != nil {
					return err
				}
				r, err := pickRemote(kr.Dir, *remoteName)
				if err != nil {
					return err
				}
				s, err := a.openStore()
				if err != nil {
					return err
				}
				opts := remote.SendOptions{Remote: r, DataDir: s.Dir(), Store: s, Producer: producer(), Now: time.Now()}
				var labels, hashes []string
				if !*pending {
					ref := "latest"
					if len(args) == 1 {
						ref = args[0]
					}
					id, err := resolve(s, ref)
					if err != nil {
						return err
					}
					if opts.Record, err = s.Get(handoff.ID(id)); err != nil {
						return err
					}
					book, err := people.Load(kr.Dir)
					if err != nil {
						return err
					}
					for _, t := range *to {
						ri, label, err := book.Resolve(t)
						if errors.Is(err, people.ErrUnknown) {
							return withHint(err, fmt.Sprintf("add them: session-handoff people add %s age1… [\"ssh-ed25519 AAAA… %s\"]", handoff.Shorten(t, 40), handoff.Shorten(t, 40)))
						}
						if err != nil {
							return usagef("--to: %v", err)
						}
						opts.Recipients = append(opts.Recipients, ri)
						labels = append(labels, label)
						hashes = append(hashes, crypto.RecipientHash(ri.Canonical))
					}
				}
				if opts.SigningKey, err = kr.SigningKey(a.keyPassphrase(keyPassFile).get); err != nil {
					if errors.Is(err, exchange.ErrNoKeys) {
						return withHint(err, "run 'session-handoff keygen' first")
					}
					if errors.Is(err, crypto.ErrWrongPassphrase) {
						return errors.New("wrong passphrase for the signing key")
					}
					return err
				}
				res, err := remote.Send(a.ctx, opts)
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
				if *asJSON {
					return a.writeJSON(res)
				}
				for _, b := range res.Bundles {
					who := fmt.Sprintf("%d recipient%s", len(b.Recipients), pluralS(len(b.Recipients)))
					if len(labels) > 0 && sameSet(b.Recipients, hashes) {
						who = strings.Join(labels, ", ")
					}
					note := ""
					if b.Earlier {
						note = " (from an earlier send that had not reached the remote)"
					}
					if res.Commit == "" {
						note = " (it was on the remote already)"
					}
					fmt.Fprintf(a.stdout, "sent %s as bundle %s to %s via %s%s\n", b.HandoffID, b.BundleID, cell(who, 200), r.Name, note)
				}
				if res.Attempts > 1 {
					fmt.Fprintf(a.stderr, "pushed after %d attempts: others pushed at the same time\n", res.Attempts)
				}
				return nil
			}
		},
	})
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// pickRemote finds the remote called name, or the only one configured.
func pickRemote(configDir, name string) (remote.Remote, error) {
	c, err := remote.LoadConfig(configDir)
	if err != nil {
		return remote.Remote{}, err
	}
	if name != "" {
		r, err := c.Get(name)
		if err != nil {
			return r, withHint(err, "'session-handoff remote list' shows the remotes")
		}
		return r, nil
	}
	switch list := c.List(); len(list) {
	case 0:
		return remote.Remote{}, withHint(errors.New("no remote configured"), "add one: session-handoff remote add team git@host:team/handoffs.git")
	case 1:
		return list[0], nil
	default:
		var names []string
		for _, r := range list {
			names = append(names, r.Name)
		}
		return remote.Remote{}, usagef("several remotes (%s): pass --remote NAME", strings.Join(names, ", "))
	}
}

package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/people"
)

func newTrustCmd(a *app) *cobra.Command {
	return newParentCmd("trust add KEY-LINE|KEY-FILE [--principal NAME] | trust list [--json] | trust rm PRINCIPAL|FINGERPRINT",
		"manage the signers I trust (allowed_signers)",
		`The trust store is an OpenSSH allowed_signers file in the keys directory.
Only keys in it make a bundle "verified"; a key carried inside a bundle is
never trusted because it is there. 'trust add' takes a public key line
("ssh-ed25519 AAAA… bob@desk") or a file holding one; the principal
defaults to the line's comment. A "me@" name is refused, whatever its
source: only 'devices add' (pairing) trusts a key as mine. 'trust rm'
takes trust back from what the key signed before too: its handoffs read
"no longer trusted" from then on.`,
		`  session-handoff trust add "ssh-ed25519 AAAAC3Nz… bob@desk" --principal bob@desk
  session-handoff trust add ~/bob.pub
  session-handoff trust list
  session-handoff trust rm bob@desk`,
		newTrustAddCmd(a), newTrustListCmd(a), newTrustRmCmd(a))
}

// trustAddOptions are the flag and argument of trust add.
type trustAddOptions struct {
	key       string // a public key line, or a file holding one
	principal string // default: the key line's comment
}

func newTrustAddCmd(a *app) *cobra.Command {
	var opts trustAddOptions
	cmd := &cobra.Command{
		Use:     "add KEY-LINE|KEY-FILE [--principal NAME]",
		Short:   "trust a signing key under a principal",
		Long:    `Adds a public key line ("ssh-ed25519 AAAA… bob@desk"), or the key in a file, to the trust store; the principal defaults to the line's comment.`,
		Example: "  session-handoff trust add ~/bob.pub --principal bob@desk",
		Args:    exactArgs(1, "one key line or key file"),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.key = args[0]
			return runTrustAdd(a, &opts)
		},
	}
	cmd.Flags().StringVar(&opts.principal, "principal", "", "the name to trust the key as")
	return cmd
}

func runTrustAdd(a *app, opts *trustAddOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	key, name, err := exchange.TrustKey(opts.key, opts.principal)
	var bad *exchange.BadPrincipalError
	switch {
	case errors.Is(err, exchange.ErrNoPrincipal):
		return usagef("the key line has no comment: pass --principal NAME")
	case errors.Is(err, people.ErrMine):
		return withHint(usageError{err}, "to trust this key as someone else's, pass --principal NAME; a machine of mine is paired with 'session-handoff devices add'")
	case errors.As(err, &bad):
		return usageError{err}
	case err != nil:
		return err
	}
	if err := kr.Trust(name, key, opts.principal != ""); err != nil {
		if errors.Is(err, crypto.ErrLookAlike) {
			return withHint(err, "pass --principal to trust the key under this name all the same")
		}
		return err
	}
	fmt.Fprintf(a.stdout, "trusted %s as %s\n", key.Fingerprint(), name)
	return nil
}

// trustListOptions are the flags of trust list.
type trustListOptions struct{ json bool }

func newTrustListCmd(a *app) *cobra.Command {
	var opts trustListOptions
	cmd := &cobra.Command{
		Use:     "list [--json]",
		Short:   "list the keys I trust",
		Example: "  session-handoff trust list --json",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runTrustList(a, &opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

// trustEntry is one line of 'trust list --json'.
type trustEntry struct {
	Principals  []string `json:"principals"`
	KeyType     string   `json:"key_type"`
	Fingerprint string   `json:"fingerprint"`
	Comment     string   `json:"comment,omitempty"`
	Usable      bool     `json:"usable"`
}

func runTrustList(a *app, opts *trustListOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	ts, err := kr.TrustStore()
	if err != nil {
		return err
	}
	out := []trustEntry{}
	for _, e := range ts.Entries() {
		out = append(out, trustEntry{e.Principals, e.KeyType, e.Fingerprint, e.Comment, e.Usable})
	}
	if opts.json {
		return a.writeJSON(out)
	}
	if len(out) == 0 {
		fmt.Fprintln(a.stderr, "the trust store is empty")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PRINCIPAL\tFINGERPRINT\tTYPE\tNOTE")
	for _, e := range out {
		note := ""
		if !e.Usable {
			note = "not used for verification"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cell(strings.Join(e.Principals, ","), 40), e.Fingerprint, e.KeyType, note)
	}
	return tw.Flush()
}

// trustRmOptions are the argument of trust rm.
type trustRmOptions struct {
	who string // a principal or a fingerprint
}

func newTrustRmCmd(a *app) *cobra.Command {
	var opts trustRmOptions
	return &cobra.Command{
		Use:               "rm PRINCIPAL|FINGERPRINT",
		Short:             "stop trusting a principal or key",
		Example:           "  session-handoff trust rm bob@desk",
		Args:              exactArgs(1, "one principal or fingerprint"),
		ValidArgsFunction: a.completePrincipals,
		RunE: func(_ *cobra.Command, args []string) error {
			opts.who = args[0]
			return runTrustRm(a, &opts)
		},
	}
}

func runTrustRm(a *app, opts *trustRmOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	removed, err := kr.Untrust(opts.who)
	if errors.Is(err, exchange.ErrNotTrusted) {
		return fmt.Errorf("%q is not in the trust store", handoff.Shorten(opts.who, 60))
	}
	if err != nil {
		return err
	}
	entries := "entries"
	if removed == 1 {
		entries = "entry"
	}
	fmt.Fprintf(a.stdout, "removed %d %s for %s\n", removed, entries, clean(opts.who))
	return nil
}

// completePrincipals completes 'trust rm': the principals and
// fingerprints in my trust store.
func (a *app) completePrincipals(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	kr, err := a.keyring()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ts, err := kr.TrustStore()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	seen := map[string]bool{}
	for _, e := range ts.Entries() {
		for _, p := range e.Principals {
			if !seen[p] && strings.HasPrefix(p, toComplete) && crypto.ValidatePrincipal(p) == nil {
				seen[p] = true
				out = append(out, p+"\t"+e.Fingerprint)
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/people"
)

func newPeopleCmd(a *app) *cobra.Command {
	cmd := newParentCmd(`people add NAME RECIPIENT ["SIGNING-KEY"] [--trust] | people list [--json] | people rm NAME`,
		"manage the address book of recipients",
		`The address book names the people I send to, so that 'send --to bob@desk'
needs no key on the command line. RECIPIENT is what bundles are encrypted
to: their age recipient (age1…, from their 'key show --age-recipient') or
an ssh-ed25519/ssh-rsa public key. The optional SIGNING-KEY is their
signing key line (from 'key show --signing-key'); with --trust it is
also added to my trust store under NAME, so their bundles verify. Either
key may also be given as the name of a file that holds it. Names follow
the rules of trust-store principals: no white space, commas, quotes or
* ? !, and no leading #.

'people rm' forgets the name; it does not remove trust ('trust rm' does).`,
		`  session-handoff people add bob@desk age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
  session-handoff people add carol@lab carol.age carol.pub --trust
  session-handoff people list
  session-handoff people rm bob@desk`,
		newPeopleAddCmd(a), newPeopleListCmd(a), newPeopleRmCmd(a))
	// 'people' alone lists, as 'people list' does.
	parent := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return runPeopleList(a, &peopleListOptions{})
		}
		return parent(c, args)
	}
	return cmd
}

// peopleAddOptions are the flag and arguments of people add.
type peopleAddOptions struct {
	name       string
	recipient  string // an age1… or ssh- key, or a file holding one
	signingKey string // optional: an ssh- key line, or a file holding one
	trust      bool   // also trust the signing key under name
}

func newPeopleAddCmd(a *app) *cobra.Command {
	var opts peopleAddOptions
	cmd := &cobra.Command{
		Use:     `add NAME RECIPIENT ["SIGNING-KEY"] [--trust]`,
		Short:   "name a recipient (and their signing key) in the address book",
		Example: "  session-handoff people add carol@lab carol.age carol.pub --trust",
		Args:    rangeArgs(2, 3, "a name, a recipient and an optional signing key line"),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.name, opts.recipient = args[0], args[1]
			if len(args) == 3 {
				opts.signingKey = args[2]
			}
			return runPeopleAdd(a, &opts)
		},
	}
	cmd.Flags().BoolVar(&opts.trust, "trust", false, "also trust the signing key under NAME")
	return cmd
}

func runPeopleAdd(a *app, opts *peopleAddOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	recipient, err := exchange.KeyArg(opts.recipient, "age1", "ssh-")
	if err != nil {
		return err
	}
	sk := ""
	if opts.signingKey != "" {
		if sk, err = exchange.KeyArg(opts.signingKey, "ssh-"); err != nil {
			return err
		}
	}
	p, err := people.New(opts.name, recipient, sk)
	if err != nil {
		return usageError{err}
	}
	added, err := kr.AddPerson(p, opts.trust)
	switch {
	case errors.Is(err, exchange.ErrNoSigningKey):
		return usagef("--trust needs the person's signing key line")
	case errors.Is(err, people.ErrExists):
		return withHint(err, "'session-handoff people rm "+p.Name+"' first to change the keys")
	case errors.Is(err, crypto.ErrPinnedToOtherKey):
		return withHint(err, "check with them; 'session-handoff trust rm "+p.Name+"' drops the old key")
	case err != nil:
		return err
	}
	verb := "added"
	if !added {
		verb = "already have"
	}
	fmt.Fprintf(a.stdout, "%s %s: %s\n", verb, p.Name, people.Short(p.Recipient))
	if opts.trust {
		key, _ := crypto.ParsePublicKey(p.SigningKey)
		fmt.Fprintf(a.stdout, "trusted %s as %s\n", key.Fingerprint(), p.Name)
	}
	return nil
}

// peopleListOptions are the flags of people list.
type peopleListOptions struct{ json bool }

func newPeopleListCmd(a *app) *cobra.Command {
	var opts peopleListOptions
	cmd := &cobra.Command{
		Use:     "list [--json]",
		Short:   "list the address book, and whose signing keys I trust",
		Example: "  session-handoff people list",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runPeopleList(a, &opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

func runPeopleList(a *app, opts *peopleListOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	b, err := people.Load(kr.Dir)
	if err != nil {
		return err
	}
	list := append([]people.Person{}, b.List()...)
	if opts.json {
		return a.writeJSON(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stderr, "the address book is empty: add someone with 'session-handoff people add NAME age1…'")
		return nil
	}
	ts, err := kr.TrustStore()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRECIPIENT\tSIGNING KEY\tTRUSTED")
	for _, p := range list {
		t, err := exchange.TrustOf(ts, p)
		if err != nil {
			return err
		}
		fp, trusted := "-", "-"
		if t.Fingerprint != "" {
			fp, trusted = t.Fingerprint, "no"
		}
		if t.TrustedAs != "" {
			trusted = "as " + cell(t.TrustedAs, 40)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cell(p.Name, 40), people.Short(p.Recipient), fp, trusted)
	}
	return tw.Flush()
}

// peopleRmOptions are the argument of people rm.
type peopleRmOptions struct{ name string }

func newPeopleRmCmd(a *app) *cobra.Command {
	var opts peopleRmOptions
	return &cobra.Command{
		Use:               "rm NAME",
		Short:             "forget a name (its trust stays; 'trust rm' removes that)",
		Example:           "  session-handoff people rm bob@desk",
		Args:              exactArgs(1, "one name"),
		ValidArgsFunction: a.completePeople,
		RunE: func(_ *cobra.Command, args []string) error {
			opts.name = args[0]
			return runPeopleRm(a, &opts)
		},
	}
}

func runPeopleRm(a *app, opts *peopleRmOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	err = people.Update(kr.Dir, func(b *people.Book) error { return b.Remove(opts.name) })
	if errors.Is(err, people.ErrUnknown) {
		return withHint(err, "'session-handoff people list' shows the names")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "removed %s\n", clean(opts.name))
	return nil
}

// completePeople completes 'people rm': the names in my address book.
func (a *app) completePeople(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return a.completePeopleFlag(cobra.ShellCompDirectiveNoFileComp)(cmd, args, toComplete)
}

// completePeopleFlag completes a --to flag with the names in the address
// book, each described by its recipient; then says whether files are
// offered too.
func (a *app) completePeopleFlag(then cobra.ShellCompDirective) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		kr, err := a.keyring()
		if err != nil {
			return nil, then
		}
		book, err := people.Load(kr.Dir)
		if err != nil {
			return nil, then
		}
		var out []string
		for _, p := range book.List() {
			if strings.HasPrefix(p.Name, toComplete) {
				out = append(out, p.Name+"\t"+people.Short(p.Recipient))
			}
		}
		return out, then
	}
}

package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/devices"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

func newDevicesCmd(a *app) *cobra.Command {
	cmd := newParentCmd(`devices add [PAIRING-TEXT] [--name NAME] [--as NAME] | devices list [--json] | devices rm NAME`,
		"pair my other machines: their handoffs are mine, and sync sends to them",
		`My devices are my other machines. Each keeps its own keys; pairing tells
each machine the other's public keys, so that what one signs is trusted
as mine ("me@NAME" in the trust store) and what 'sync' sends is encrypted
to them alone.

Pairing takes one command on each machine. 'devices add' prints this
machine's pairing text, one line; run 'devices add TEXT' with it on the
other machine, which prints its own text back: run 'devices add TEXT' with
that here. Both then print the same pairing code, five groups of four
characters (100 bits): compare all of them. Carry the texts yourself (a
terminal, a paste between your own sessions); a text from anyone else
would make their key "me". Only pairing gives a "me@" name: 'trust add',
'people add' and trust on first use refuse one.

'devices rm NAME' unpairs a machine (a lost laptop): it can still read
every handoff sent to it before, and nothing sent from then on; what it
sent before reads "no longer trusted" from then on.`,
		`  session-handoff devices add --name laptop
  session-handoff devices add 'session-handoff-pair:…' --name desktop
  session-handoff devices list
  session-handoff devices rm laptop`,
		newDevicesAddCmd(a), newDevicesListCmd(a), newDevicesRmCmd(a))
	parent := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return runDevicesList(a, &devicesListOptions{})
		}
		return parent(c, args)
	}
	return cmd
}

// devicesAddOptions are the argument and flags of devices add.
type devicesAddOptions struct {
	text     string // the other machine's pairing text, or a file holding it; "" prints mine
	name     string // this machine's name in my pairing text
	as       string // the name to give the other machine
	textOnly bool   // print my pairing text alone
}

func newDevicesAddCmd(a *app) *cobra.Command {
	var opts devicesAddOptions
	cmd := &cobra.Command{
		Use:   "add [PAIRING-TEXT] [--name NAME] [--as NAME]",
		Short: "print this machine's pairing text, or pair the machine whose text is given",
		Long: `Without an argument, prints this machine's pairing text: its name, its
public signing key and age recipient, with a checksum. With the other
machine's pairing text (or the name of a file that holds it), pairs it: records its keys, trusts its signing key
as "me@NAME", and prints the pairing code and this machine's text for the
other side. Pairing the same text again changes nothing, nor does a text
with the same keys under another name: the device is paired already (to
rename it, 'devices rm' it first). --name is kept: this machine's later
texts name it so.`,
		Example: `  session-handoff devices add --name laptop
  session-handoff devices add 'session-handoff-pair:…'`,
		Args: rangeArgs(0, 1, "at most one pairing text"),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.text = args[0]
			}
			return runDevicesAdd(a, &opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.name, "name", "", "this machine's name in its pairing text, kept for the next ones (default: the name given last, else the host name)")
	f.StringVar(&opts.as, "as", "", "the name to pair the other machine under (default: the name in its text)")
	f.BoolVar(&opts.textOnly, "text", false, "print only this machine's pairing text (for scripts)")
	return cmd
}

func runDevicesAdd(a *app, opts *devicesAddOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	self, err := thisDevice(kr, opts.name)
	if err != nil {
		return err
	}
	if opts.text == "" {
		if opts.as != "" {
			return usagef("--as names the other machine: give its pairing text")
		}
		if opts.textOnly {
			fmt.Fprintln(a.stdout, self.PairingText())
			return nil
		}
		fmt.Fprintf(a.stdout, "This machine is %s (%s). On the other machine, run:\n\n  session-handoff devices add '%s'\n\nand then run here what it prints.\n",
			clean(self.Name), self.Fingerprint(), self.PairingText())
		return nil
	}
	if opts.textOnly {
		return usagef("--text prints this machine's text: give no pairing text")
	}
	text := opts.text
	if !strings.HasPrefix(strings.TrimSpace(text), devices.PairingPrefix) {
		data, err := safefile.ReadFile(text, devices.MaxPairingText)
		if err != nil {
			return usagef("%s is neither a pairing text nor a file holding one: %v", cell(text, 80), err)
		}
		text = string(data)
	}
	d, err := devices.ParsePairingText(text)
	if err != nil {
		return usageError{err}
	}
	if opts.as != "" {
		if d, err = devices.New(opts.as, d.Recipient, d.SigningKey); err != nil {
			return usageError{err}
		}
	}
	if d.SigningKey == self.SigningKey || d.Recipient == self.Recipient {
		return withHint(devices.ErrSelf, "run 'devices add' on the other machine, and give its text here")
	}
	d, added, err := devices.Add(kr.Dir, d, opts.as != "")
	switch {
	case errors.Is(err, devices.ErrExists):
		return withHint(err, "'session-handoff devices rm NAME' first, or pass --as NAME")
	case errors.Is(err, crypto.ErrPinnedToOtherKey):
		return withHint(err, "another key is trusted under that name: 'session-handoff trust rm' it first, or pass --as NAME")
	case err != nil:
		return err
	}
	verb := "paired"
	if !added {
		verb = "already paired"
	}
	fmt.Fprintf(a.stdout, "%s %s (%s): its handoffs are trusted as mine (%s), and sync sends to it\n", verb, clean(d.Name), d.Fingerprint(), clean(d.Principal()))
	fmt.Fprintf(a.stdout, "pairing code: %s (the other machine prints the same code; if not, run 'session-handoff devices rm %s' on both)\n", devices.Code(self, d), clean(d.Name))
	fmt.Fprintf(a.stdout, "unless done already, run on %s:\n\n  session-handoff devices add '%s'\n", clean(d.Name), self.PairingText())
	return nil
}

// thisDevice is this machine as a device: its keys, under name, which is
// kept for the texts it prints later (devices.SetSelfName); without one,
// under the name given last, else the host name.
func thisDevice(kr exchange.Keyring, name string) (devices.Device, error) {
	info, err := kr.Info()
	if errors.Is(err, exchange.ErrNoKeys) {
		return devices.Device{}, withHint(err, "run 'session-handoff keygen' first")
	}
	if err != nil {
		return devices.Device{}, err
	}
	given := name != ""
	if !given {
		if name, err = devices.SelfName(kr.Dir); err != nil {
			return devices.Device{}, err
		}
	}
	if name == "" {
		name = paths.Hostname()
	}
	d, err := devices.New(name, info.AgeRecipient, info.SigningKey)
	if err != nil {
		return devices.Device{}, usageError{fmt.Errorf("%w (pass --name)", err)}
	}
	if given {
		if err := devices.SetSelfName(kr.Dir, name); err != nil {
			return devices.Device{}, err
		}
	}
	return d, nil
}

// devicesListOptions are the flags of devices list.
type devicesListOptions struct{ json bool }

func newDevicesListCmd(a *app) *cobra.Command {
	var opts devicesListOptions
	cmd := &cobra.Command{
		Use:     "list [--json]",
		Short:   "list my paired machines",
		Example: "  session-handoff devices list",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runDevicesList(a, &opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

func runDevicesList(a *app, opts *devicesListOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	l, err := devices.Load(kr.Dir)
	if err != nil {
		return err
	}
	list := append([]devices.Device{}, l.All()...)
	if opts.json {
		return a.writeJSON(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stderr, "no other machine is paired: run 'session-handoff devices add' here and on the other machine")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DEVICE\tSIGNING KEY\tRECIPIENT")
	for _, d := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", cell(d.Name, 40), d.Fingerprint(), people.Short(d.Recipient))
	}
	return tw.Flush()
}

// devicesRmOptions are the argument of devices rm.
type devicesRmOptions struct{ name string }

func newDevicesRmCmd(a *app) *cobra.Command {
	var opts devicesRmOptions
	return &cobra.Command{
		Use:               "rm NAME",
		Short:             "unpair a machine: nothing sent from now on reaches it, and its handoffs are no longer mine",
		Example:           "  session-handoff devices rm laptop",
		Args:              exactArgs(1, "one device name"),
		ValidArgsFunction: a.completeDevices,
		RunE: func(_ *cobra.Command, args []string) error {
			opts.name = args[0]
			return runDevicesRm(a, &opts)
		},
	}
}

func runDevicesRm(a *app, opts *devicesRmOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	d, err := devices.Remove(kr.Dir, opts.name)
	if errors.Is(err, devices.ErrUnknown) {
		return withHint(err, "'session-handoff devices list' shows the names")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "unpaired %s (%s)\n", clean(d.Name), d.Fingerprint())
	fmt.Fprintf(a.stdout, "what it can still read: every handoff sent to it before now (what it received, and what waits for it on the remote)\n")
	fmt.Fprintf(a.stdout, "from now on: handoffs are no longer encrypted to it, and what its key signs is no longer trusted as mine\n")
	fmt.Fprintf(a.stdout, "do the same on my other machines ('session-handoff devices rm %s'); if it was lost, make new keys on it before pairing it again\n", clean(d.Name))
	return nil
}

// completeDevices completes 'devices rm': the names of my paired devices.
func (a *app) completeDevices(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	kr, err := a.keyring()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	l, err := devices.Load(kr.Dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, d := range l.All() {
		if strings.HasPrefix(d.Name, toComplete) {
			out = append(out, d.Name+"\t"+d.Fingerprint())
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

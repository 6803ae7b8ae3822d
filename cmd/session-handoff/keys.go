package main

import (
	"errors"
	"fmt"
	iofs "io/fs"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/exchange"
)

// keygenOptions are keygen's flags.
type keygenOptions struct {
	name     string // the key's name; default user@host
	passFile string // --passphrase-file
	noPass   bool   // --no-passphrase
	force    bool
	json     bool
}

func newKeygenCmd(a *app) *cobra.Command {
	var opts keygenOptions
	cmd := &cobra.Command{
		Use:   "keygen [--name NAME] [--passphrase-file F] [--no-passphrase] [--force]",
		Short: "make my signing key and age identity",
		Long: `Makes a dedicated Ed25519 signing key (OpenSSH format, mode 0600) and an
age identity (age-keygen format, mode 0600) in the keys directory, and
prints the public halves to share. The signing key is protected by a
passphrase from --passphrase-file, $SESSION_HANDOFF_KEY_PASSPHRASE or
$SESSION_HANDOFF_PASSPHRASE, or a prompt on the terminal; --no-passphrase
leaves it unprotected. The age identity is never passphrase-protected (as
age-keygen writes it): anyone who can read it can open bundles sent to you,
so it is kept mode 0600. Existing keys are never replaced without --force.`,
		Example: `  session-handoff keygen --name alice@laptop
  session-handoff keygen --name ci@runner --no-passphrase`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runKeygen(a, &opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.name, "name", "", "the name others will know this key by (default user@host)")
	f.StringVar(&opts.passFile, "passphrase-file", "", "read the signing key's passphrase from this file")
	f.BoolVar(&opts.noPass, "no-passphrase", false, "leave the signing key unprotected")
	f.BoolVar(&opts.force, "force", false, "replace existing keys (the old ones are lost)")
	f.BoolVar(&opts.json, "json", false, "print the public keys as JSON")
	return cmd
}

func runKeygen(a *app, opts *keygenOptions) error {
	if opts.noPass && opts.passFile != "" {
		return usagef("--no-passphrase and --passphrase-file cannot be used together")
	}
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	name := opts.name
	if name == "" {
		name = exchange.DefaultKeyName()
	}
	var pass []byte
	if !opts.noPass {
		src := a.keyPassphrase(&opts.passFile, "--passphrase-file")
		src.prompt, src.confirm = "passphrase for the new signing key", true
		src.or = "pass --no-passphrase for a key without one (a script's key, kept in a place only you can read)"
		if pass, err = src.get(); err != nil {
			return err
		}
	}
	info, err := kr.Generate(name, pass, opts.force)
	if errors.Is(err, iofs.ErrExist) {
		return withHint(err, "keys exist already; 'session-handoff key show' prints them, --force replaces them")
	}
	if err != nil {
		return err
	}
	if opts.json {
		return a.writeJSON(info)
	}
	fmt.Fprintf(a.stdout, "signing key:   %s\nfingerprint:   %s\nage recipient: %s\nwritten to %s\n", info.SigningKey, info.Fingerprint, info.AgeRecipient, kr.Dir)
	if pass != nil {
		fmt.Fprintf(a.stdout, "the signing key is passphrase-protected; the age identity is not (as age-keygen's): keep %s to yourself\n", kr.AgeIdentityPath())
	}
	return nil
}

// keyShowOptions are the flags of key show.
type keyShowOptions struct {
	json          bool
	onlyRecipient bool // --age-recipient
	onlyKey       bool // --signing-key
}

func newKeyCmd(a *app) *cobra.Command {
	return newParentCmd("key show [--json | --age-recipient | --signing-key] | key passphrase --remove",
		"show my public signing key, fingerprint and age recipient", "", "  session-handoff key show",
		newKeyShowCmd(a), newKeyPassphraseCmd(a))
}

func newKeyShowCmd(a *app) *cobra.Command {
	var opts keyShowOptions
	cmd := &cobra.Command{
		Use:   "show [--json | --age-recipient | --signing-key]",
		Short: "show my public signing key, fingerprint and age recipient",
		Long:  `Prints what others need to send me bundles and to trust mine: the signing public key line (for their 'trust add'), its fingerprint, and the age recipient (for their 'export --to'). Never prints a private key.`,
		Example: `  session-handoff key show
  session-handoff export --to "$(ssh desk session-handoff key show --age-recipient)" -o b.handoff`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runKeyShow(a, &opts) },
	}
	f := cmd.Flags()
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	f.BoolVar(&opts.onlyRecipient, "age-recipient", false, "print only the age recipient (for others' export --to)")
	f.BoolVar(&opts.onlyKey, "signing-key", false, "print only the signing public key line (for others' trust add)")
	return cmd
}

func runKeyShow(a *app, opts *keyShowOptions) error {
	if opts.onlyRecipient && opts.onlyKey {
		return usagef("--age-recipient and --signing-key cannot be used together")
	}
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	info, err := kr.Info()
	if errors.Is(err, exchange.ErrNoKeys) {
		return withHint(err, "run 'session-handoff keygen' first")
	}
	if err != nil {
		return err
	}
	switch {
	case opts.json:
		return a.writeJSON(info)
	case opts.onlyRecipient:
		fmt.Fprintln(a.stdout, info.AgeRecipient)
		return nil
	case opts.onlyKey:
		fmt.Fprintln(a.stdout, clean(info.SigningKey))
		return nil
	}
	// The name is the .pub file's comment, editable by hand: printed
	// without control characters.
	fmt.Fprintf(a.stdout, "name:          %s\nsigning key:   %s\nfingerprint:   %s\nage recipient: %s\n", clean(info.Name), clean(info.SigningKey), info.Fingerprint, info.AgeRecipient)
	if info.Encrypted {
		fmt.Fprintln(a.stdout, "the signing key is passphrase-protected")
	}
	return nil
}

// keyPassphraseOptions are the flags of key passphrase.
type keyPassphraseOptions struct {
	remove   bool
	passFile string // the current passphrase
}

func newKeyPassphraseCmd(a *app) *cobra.Command {
	var opts keyPassphraseOptions
	cmd := &cobra.Command{
		Use:   "passphrase --remove [--key-passphrase-file F]",
		Short: "keep this machine's signing key without its passphrase (for sync's background sends)",
		Long: `With --remove, writes the signing key again without a passphrase, asking
for the current one (from --key-passphrase-file, $SESSION_HANDOFF_KEY_PASSPHRASE
or the terminal). The key stays the same: pairings and others' trust in it
hold. Sync's background sends sign with this machine's key with no one there
to type a passphrase; without one, the key is kept as the age identity beside
it is, mode 0600, readable by your account alone (SECURITY.md).`,
		Example: "  session-handoff key passphrase --remove",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runKeyPassphrase(a, opts) },
	}
	cmd.Flags().BoolVar(&opts.remove, "remove", false, "write the key without a passphrase")
	cmd.Flags().StringVar(&opts.passFile, "key-passphrase-file", "", "read the current passphrase from this file")
	return cmd
}

func runKeyPassphrase(a *app, opts keyPassphraseOptions) error {
	if !opts.remove {
		return usagef("say what to do: --remove (a passphrase is set by keygen)")
	}
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	info, err := kr.Info()
	if errors.Is(err, exchange.ErrNoKeys) {
		return withHint(err, "run 'session-handoff keygen' first")
	}
	if err != nil {
		return err
	}
	if !info.Encrypted {
		fmt.Fprintln(a.stdout, "the signing key has no passphrase already")
		return nil
	}
	sk, err := a.signingKey(opts.passFile, "run 'session-handoff keygen' first")
	if err != nil {
		return err
	}
	if err := crypto.WriteSigningKey(kr.SigningKeyPath(), sk, nil, true); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "the signing key %s has no passphrase now: keep %s to yourself (mode 0600)\n", info.Fingerprint, kr.SigningKeyPath())
	return nil
}

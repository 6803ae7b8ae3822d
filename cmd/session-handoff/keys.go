package main

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os/user"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/paths"
)

func init() {
	register(&command{
		name:    "keygen",
		summary: "make my signing key and age identity",
		usage:   "keygen [--name NAME] [--passphrase-file F] [--no-passphrase] [--force]",
		help: `Makes a dedicated Ed25519 signing key (OpenSSH format, mode 0600) and an
age identity (age-keygen format, mode 0600) in the keys directory, and
prints the public halves to share. The signing key is protected by a
passphrase from --passphrase-file, $SESSION_HANDOFF_KEY_PASSPHRASE or
$SESSION_HANDOFF_PASSPHRASE, or a prompt on the terminal; --no-passphrase
leaves it unprotected. Existing keys are never replaced without --force.`,
		example: `  session-handoff keygen --name alice@laptop
  session-handoff keygen --name ci@runner --no-passphrase`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			keysFlag(fs, a)
			name := fs.String("name", "", "the name others will know this key by (default user@host)")
			passFile := fs.String("passphrase-file", "", "read the signing key's passphrase from this file")
			noPass := fs.Bool("no-passphrase", false, "leave the signing key unprotected")
			force := fs.Bool("force", false, "replace existing keys (the old ones are lost)")
			asJSON := fs.Bool("json", false, "print the public keys as JSON")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", handoff.Shorten(args[0], 40))
				}
				if *noPass && *passFile != "" {
					return usagef("--no-passphrase and --passphrase-file cannot be used together")
				}
				kr, err := a.keyring()
				if err != nil {
					return err
				}
				n := *name
				if n == "" {
					n = defaultKeyName()
				}
				var pass []byte
				if !*noPass {
					src := a.keyPassphrase(passFile)
					src.prompt, src.confirm = "passphrase for the new signing key", true
					if pass, err = src.get(); err != nil {
						return withHint(err, "or pass --no-passphrase for a key without one")
					}
				}
				info, err := kr.Generate(n, pass, *force)
				if errors.Is(err, iofs.ErrExist) {
					return withHint(err, "keys exist already; 'session-handoff key show' prints them, --force replaces them")
				}
				if err != nil {
					return err
				}
				if *asJSON {
					return a.writeJSON(info)
				}
				fmt.Fprintf(a.stdout, "signing key:   %s\nfingerprint:   %s\nage recipient: %s\nwritten to %s\n", info.SigningKey, info.Fingerprint, info.AgeRecipient, kr.Dir)
				return nil
			}
		},
	})
	register(&command{
		name:    "key",
		summary: "show my public signing key, fingerprint and age recipient",
		usage:   "key show [--json]",
		help:    `Prints what others need to send me bundles and to trust mine: the signing public key line (for their 'trust add'), its fingerprint, and the age recipient (for their 'export --to'). Never prints a private key.`,
		example: `  session-handoff key show
  session-handoff export --to "$(ssh desk session-handoff key show --age-recipient)" -o b.handoff`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			keysFlag(fs, a)
			asJSON := fs.Bool("json", false, "print as JSON")
			onlyRecipient := fs.Bool("age-recipient", false, "print only the age recipient (for others' export --to)")
			onlyKey := fs.Bool("signing-key", false, "print only the signing public key line (for others' trust add)")
			return func(args []string) error {
				if *onlyRecipient && *onlyKey {
					return usagef("--age-recipient and --signing-key cannot be used together")
				}
				if len(args) != 1 || args[0] != "show" {
					return usagef("want 'key show'")
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
				case *asJSON:
					return a.writeJSON(info)
				case *onlyRecipient:
					fmt.Fprintln(a.stdout, info.AgeRecipient)
					return nil
				case *onlyKey:
					fmt.Fprintln(a.stdout, clean(info.SigningKey))
					return nil
				}
				// The name is the .pub file's comment, editable by hand:
				// printed without control characters.
				fmt.Fprintf(a.stdout, "name:          %s\nsigning key:   %s\nfingerprint:   %s\nage recipient: %s\n", clean(info.Name), clean(info.SigningKey), info.Fingerprint, info.AgeRecipient)
				if info.Encrypted {
					fmt.Fprintln(a.stdout, "the signing key is passphrase-protected")
				}
				return nil
			}
		},
	})
}

func defaultKeyName() string {
	name := "user"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host := paths.Hostname()
	if host == "" {
		host = "localhost"
	}
	return name + "@" + host
}

package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

func init() {
	register(&command{
		name:    "trust",
		summary: "manage the signers I trust (allowed_signers)",
		usage:   "trust add KEY-LINE|KEY-FILE [--principal NAME] | trust list [--json] | trust rm PRINCIPAL|FINGERPRINT",
		help: `The trust store is an OpenSSH allowed_signers file in the keys directory.
Only keys in it make a bundle "verified"; a key carried inside a bundle is
never trusted because it is there. 'trust add' takes a public key line
("ssh-ed25519 AAAA… bob@desk") or a file holding one; the principal
defaults to the line's comment.`,
		example: `  session-handoff trust add "ssh-ed25519 AAAAC3Nz… bob@desk" --principal bob@desk
  session-handoff trust add ~/bob.pub
  session-handoff trust list
  session-handoff trust rm bob@desk`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			keysFlag(fs, a)
			principal := fs.String("principal", "", "the name to trust the key as (with add)")
			asJSON := fs.Bool("json", false, "print as JSON (with list)")
			return func(args []string) error {
				if len(args) == 0 {
					return usagef("want 'trust add', 'trust list' or 'trust rm'")
				}
				kr, err := a.keyring()
				if err != nil {
					return err
				}
				switch args[0] {
				case "add":
					if len(args) != 2 {
						return usagef("trust add takes one key line or key file")
					}
					line := args[1]
					if !strings.HasPrefix(strings.TrimSpace(line), "ssh-") {
						data, err := safefile.ReadFile(line, 64<<10)
						if err != nil {
							return fmt.Errorf("read key file: %w", err)
						}
						line = string(data)
					}
					key, comment, err := crypto.ParsePublicKeyLine(line)
					if err != nil {
						return err
					}
					name := *principal
					if name == "" {
						name = comment
					}
					if name == "" {
						return usagef("the key line has no comment: pass --principal NAME")
					}
					if err := crypto.ValidatePrincipal(name); err != nil {
						return usageError{err}
					}
					err = crypto.UpdateTrustStore(kr.TrustPath(), func(ts *crypto.TrustStore) error {
						if *principal == "" { // a name from the key's comment must not look like a trusted one
							if err := ts.CheckNew(name); err != nil {
								return fmt.Errorf("%w (pass --principal to trust the key under this name all the same)", err)
							}
						}
						return ts.Add(name, key)
					})
					if err != nil {
						return err
					}
					fmt.Fprintf(a.stdout, "trusted %s as %s\n", key.Fingerprint(), name)
					return nil
				case "list":
					if len(args) != 1 {
						return usagef("trust list takes no arguments")
					}
					ts, err := kr.TrustStore()
					if err != nil {
						return err
					}
					type entry struct {
						Principals  []string `json:"principals"`
						KeyType     string   `json:"key_type"`
						Fingerprint string   `json:"fingerprint"`
						Comment     string   `json:"comment,omitempty"`
						Usable      bool     `json:"usable"`
					}
					out := []entry{}
					for _, e := range ts.Entries() {
						out = append(out, entry{e.Principals, e.KeyType, e.Fingerprint, e.Comment, e.Usable})
					}
					if *asJSON {
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
				case "rm":
					if len(args) != 2 {
						return usagef("trust rm takes one principal or fingerprint")
					}
					if _, err := os.Stat(kr.TrustPath()); errors.Is(err, os.ErrNotExist) {
						return fmt.Errorf("%q is not in the trust store", handoff.Shorten(args[1], 60))
					}
					removed := 0
					err := crypto.UpdateTrustStore(kr.TrustPath(), func(ts *crypto.TrustStore) error {
						n, err := ts.Remove(args[1])
						removed = n
						return err
					})
					if err != nil {
						return err
					}
					if removed == 0 {
						return fmt.Errorf("%q is not in the trust store", handoff.Shorten(args[1], 60))
					}
					fmt.Fprintf(a.stdout, "removed %d entr%s for %s\n", removed, map[bool]string{true: "y", false: "ies"}[removed == 1], args[1])
					return nil
				}
				return usagef("unknown trust command %q", handoff.Shorten(args[0], 40))
			}
		},
	})
}

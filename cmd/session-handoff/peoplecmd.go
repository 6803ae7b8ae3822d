package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

func init() {
	register(&command{
		name:    "people",
		summary: "manage the address book of recipients",
		usage:   `people add NAME RECIPIENT ["SIGNING-KEY"] [--trust] | people list [--json] | people rm NAME`,
		help: `The address book names the people I send to, so that 'send --to bob@desk'
needs no key on the command line. RECIPIENT is what bundles are encrypted
to: their age recipient (age1…, from their 'key show --age-recipient') or
an ssh-ed25519/ssh-rsa public key. The optional SIGNING-KEY is their
signing key line (from 'key show --signing-key'); with --trust it is
also added to my trust store under NAME, so their bundles verify. Either
key may also be given as the name of a file that holds it. Names follow
the rules of trust-store principals: no white space, commas, quotes or
* ? !, and no leading #.

'people rm' forgets the name; it does not remove trust ('trust rm' does).`,
		example: `  session-handoff people add bob@desk age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
  session-handoff people add carol@lab carol.age carol.pub --trust
  session-handoff people list
  session-handoff people rm bob@desk`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			keysFlag(fs, a)
			trust := fs.Bool("trust", false, "also trust the signing key under NAME (with add)")
			asJSON := fs.Bool("json", false, "print as JSON (with list)")
			return func(args []string) error {
				if len(args) == 0 {
					return usagef("want 'people add', 'people list' or 'people rm'")
				}
				kr, err := a.keyring()
				if err != nil {
					return err
				}
				switch args[0] {
				case "add":
					if len(args) != 3 && len(args) != 4 {
						return usagef("people add takes a name, a recipient and an optional signing key line")
					}
					recipient, err := keyArg(args[2], "age1", "ssh-")
					if err != nil {
						return err
					}
					sk := ""
					if len(args) == 4 {
						if sk, err = keyArg(args[3], "ssh-"); err != nil {
							return err
						}
					}
					p, err := people.New(args[1], recipient, sk)
					if err != nil {
						return usageError{err}
					}
					if *trust && p.SigningKey == "" {
						return usagef("--trust needs the person's signing key line")
					}
					added := false
					err = people.Update(kr.Dir, func(b *people.Book) error {
						var err error
						if added, err = b.Add(p); err != nil {
							return err
						}
						if !*trust {
							return nil
						}
						key, err := crypto.ParsePublicKey(p.SigningKey)
						if err != nil {
							return err
						}
						// Pin: a name already trusted with another key is refused,
						// not given a second key.
						return crypto.UpdateTrustStore(kr.TrustPath(), func(ts *crypto.TrustStore) error { return ts.Pin(p.Name, key) })
					})
					switch {
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
					if *trust {
						key, _ := crypto.ParsePublicKey(p.SigningKey)
						fmt.Fprintf(a.stdout, "trusted %s as %s\n", key.Fingerprint(), p.Name)
					}
					return nil
				case "list":
					if len(args) != 1 {
						return usagef("people list takes no arguments")
					}
					b, err := people.Load(kr.Dir)
					if err != nil {
						return err
					}
					list := append([]people.Person{}, b.List()...)
					if *asJSON {
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
						fp, trusted := "-", "-"
						if p.SigningKey != "" {
							key, err := crypto.ParsePublicKey(p.SigningKey)
							if err != nil {
								return err
							}
							fp, trusted = key.Fingerprint(), "no"
							if names, ok := ts.Lookup(key); ok {
								trusted = "as " + cell(names[0], 40)
							}
						}
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cell(p.Name, 40), people.Short(p.Recipient), fp, trusted)
					}
					return tw.Flush()
				case "rm":
					if len(args) != 2 {
						return usagef("people rm takes one name")
					}
					err := people.Update(kr.Dir, func(b *people.Book) error { return b.Remove(args[1]) })
					if errors.Is(err, people.ErrUnknown) {
						return withHint(err, "'session-handoff people list' shows the names")
					}
					if err != nil {
						return err
					}
					fmt.Fprintf(a.stdout, "removed %s\n", args[1])
					return nil
				}
				return usagef("unknown people command %q", handoff.Shorten(args[0], 40))
			}
		},
	})
}

// keyArg takes a key given on the command line as it is, when it starts
// with one of prefixes, and otherwise reads it from the file it names: the
// first line that is not blank or a # comment.
func keyArg(arg string, prefixes ...string) (string, error) {
	for _, p := range prefixes {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(arg)), p) {
			return arg, nil
		}
	}
	data, err := safefile.ReadFile(arg, 64<<10)
	if err != nil {
		return "", fmt.Errorf("read key file: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line, nil
		}
	}
	return "", fmt.Errorf("%s holds no key", arg)
}

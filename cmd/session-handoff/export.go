package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/targets"
)

func init() {
	register(&command{
		name:    "export",
		summary: "write a handoff as a signed, encrypted bundle (or as Markdown or JSON to read)",
		usage:   "export [ID|latest] (--to R… | --to-file F | --passphrase | --no-encrypt) [--attach FILE…] [--armor] [--unsigned] -o FILE|-",
		help: `Writes a stored handoff (default: latest) as a bundle: signed with my
signing key, compressed with zstd, encrypted with age to the recipients,
optionally ASCII-armored for pasting. Recipients are age1… keys, OpenSSH
ssh-ed25519/ssh-rsa public keys, or files of them, one per line. The
recipients are also listed (hashed) in the signed manifest, so a recipient
cannot re-encrypt my bundle to a third party unnoticed. --passphrase
encrypts to a passphrase instead, read from --passphrase-file,
$SESSION_HANDOFF_PASSPHRASE or the terminal. --no-encrypt must be said
explicitly. Attached files travel with their secrets redacted (as capture
does) unless --no-redact is given; each is read twice (to hash it for the
signed manifest, then into the bundle), so it must be a regular file, and
one that changes in between fails the export. --format markdown|json
writes a readable export instead: it is for reading, not for trust. The
file is written atomically: a failed or interrupted export leaves nothing
behind.`,
		example: `  session-handoff export latest --to age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p -o auth.handoff
  session-handoff export --to ~/.ssh/id_ed25519.pub --armor -o - | pbcopy
  session-handoff export 01KMBF --format markdown -o handoff.md`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeFlag(fs, a)
			keysDir := keysFlag(fs, a)
			to := fs.StringArray("to", nil, "a recipient: age1…, an ssh-ed25519/ssh-rsa key line, or a file of them (repeatable)")
			toFiles := fs.StringArray("to-file", nil, "a file of recipients, one per line (repeatable)")
			usePass := fs.Bool("passphrase", false, "encrypt to a passphrase instead of recipients")
			passFile := fs.String("passphrase-file", "", "read the passphrase from this file (with --passphrase)")
			keyPassFile := fs.String("key-passphrase-file", "", "read the signing key's passphrase from this file")
			attach := fs.StringArray("attach", nil, "a file to send along (repeatable)")
			noRedact := fs.Bool("no-redact", false, "attach files as they are, secrets included (RISK: recipients see them)")
			armor := fs.Bool("armor", false, "write ASCII armor, for pasting into chat or mail")
			unsigned := fs.Bool("unsigned", false, "do not sign (recipients will see an unsigned bundle)")
			noEncrypt := fs.Bool("no-encrypt", false, "do not encrypt: anyone who gets the file can read it")
			output := fs.StringP("output", "o", "", "where to write: a file, or - for standard output (required)")
			format := fs.String("format", "bundle", "bundle, markdown or json")
			target := fs.String("target", "", "with --format markdown: write the prompt for this agent, as 'render --target' does")
			return func(args []string) error {
				if len(args) > 1 {
					return usagef("takes at most one id")
				}
				ref := "latest"
				if len(args) == 1 {
					ref = args[0]
				}
				if *output == "" {
					return usagef("-o FILE or -o - is required")
				}
				s, err := a.openStore()
				if err != nil {
					return err
				}
				id, err := resolve(s, ref)
				if err != nil {
					return err
				}
				rec, err := s.Get(handoff.ID(id))
				if err != nil {
					return err
				}
				if *target != "" && *format != "markdown" && *format != "md" {
					return usagef("--target goes with --format markdown")
				}
				switch *format {
				case "markdown", "md":
					if *target == "" {
						return a.writeOutput(*output, 0o644, func(w io.Writer) error { return render.Markdown(w, rec) })
					}
					p, err := targets.Lookup(*target)
					if err != nil {
						return usageError{err}
					}
					res, err := render.Render(rec, render.Options{Style: p.Style})
					if err != nil {
						return err
					}
					return a.writeOutput(*output, 0o644, func(w io.Writer) error {
						_, err := io.WriteString(w, res.Text)
						return err
					})
				case "json":
					return a.writeOutput(*output, 0o644, func(w io.Writer) error {
						enc := json.NewEncoder(w)
						enc.SetIndent("", "  ")
						return enc.Encode(rec)
					})
				case "bundle":
				default:
					return usagef("--format %q: want bundle, markdown or json", handoff.Shorten(*format, 20))
				}
				encModes := 0
				for _, on := range []bool{len(*to)+len(*toFiles) > 0, *usePass, *noEncrypt} {
					if on {
						encModes++
					}
				}
				if encModes == 0 {
					return withHint(errors.New("no recipients"), "pass --to age1…/--to-file F, --passphrase, or --no-encrypt")
				}
				if encModes > 1 {
					return usagef("choose one of --to/--to-file, --passphrase and --no-encrypt")
				}
				if *output == "-" && !*armor && a.stdoutTTY {
					return withHint(errors.New("will not write a binary bundle to a terminal"), "pass --armor, or -o FILE")
				}
				recips, err := parseRecipients(*to, *toFiles)
				if err != nil {
					return err
				}
				opts := exchange.ExportOptions{Recipients: recips, NoEncrypt: *noEncrypt, Armor: *armor, Attach: *attach,
					Producer: producer(), Report: &redact.Report{}}
				if len(*attach) > 0 && !*noRedact {
					if opts.Redactor, err = a.redactor(*keysDir); err != nil {
						return err
					}
				}
				if *usePass {
					src := &passphraseSource{a: a, file: passFile, env: []string{passphraseEnv}, prompt: "passphrase for the bundle", confirm: true}
					if opts.Passphrase, err = src.get(); err != nil {
						return err
					}
				}
				if !*unsigned {
					kr, err := a.keyring()
					if err != nil {
						return err
					}
					sk, err := kr.SigningKey(a.keyPassphrase(keyPassFile).get)
					if errors.Is(err, exchange.ErrNoKeys) {
						return withHint(err, "run 'session-handoff keygen', or pass --unsigned")
					}
					if errors.Is(err, crypto.ErrWrongPassphrase) {
						return errors.New("wrong passphrase for the signing key")
					}
					if err != nil {
						return err
					}
					opts.SigningKey = sk
				}
				var m *bundle.Manifest
				err = a.writeOutput(*output, 0o600, func(w io.Writer) error {
					m, err = exchange.Export(a.ctx, w, s, rec, opts)
					return err
				})
				if err != nil {
					return err
				}
				if *output != "-" {
					fmt.Fprintf(a.stderr, "exported %s as bundle %s (%s) to %s\n", rec.ID, m.BundleID, m.Encryption, *output)
				}
				if n := opts.Report.Total(); n > 0 {
					fmt.Fprintf(a.stderr, "redacted %d secret(s) from the attachments\n", n)
				}
				return nil
			}
		},
	})
}

// writeOutput writes to stdout for "-", or atomically to a file: a
// failure leaves no partial file.
func (a *app) writeOutput(path string, perm os.FileMode, fill func(io.Writer) error) error {
	if path == "-" {
		return fill(a.stdout)
	}
	return safefile.Write(path, perm, fill)
}

func producer() bundle.Producer {
	return bundle.Producer{Name: "session-handoff", Version: version(), Machine: paths.Hostname()}
}

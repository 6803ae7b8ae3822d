package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/changes"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
	"github.com/session-handoff/session-handoff/targets"
)

// exportOptions are export's flags and argument.
type exportOptions struct {
	ref         string   // the handoff: an id, a unique prefix or "latest"
	allProjects bool     // "latest" is the store's newest, not this project's
	to          []string // --to: recipients, inline or files
	toFiles     []string // --to-file
	passphrase  bool     // --passphrase: encrypt to a passphrase
	passFile    string   // --passphrase-file
	keyPassFile string   // --key-passphrase-file
	attach      []string // --attach
	noRedact    bool
	armor       bool
	unsigned    bool
	noEncrypt   bool
	output      string // -o: a file, or - for standard output
	format      string // bundle, markdown (md) or json
	target      string // with --format markdown: the agent to write the prompt for
	changes     changesFlags
}

func newExportCmd(a *app) *cobra.Command {
	opts := exportOptions{ref: "latest"}
	cmd := &cobra.Command{
		Use:   "export [ID|latest] (--to R… | --to-file F | --passphrase | --no-encrypt) [--attach FILE…] [--armor] [--unsigned] -o FILE|-",
		Short: "write a handoff as a signed, encrypted bundle (or as Markdown or JSON to read)",
		Long: `Writes a stored handoff (default: latest) as a bundle: signed with my
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
writes a readable export instead, in plaintext: it is for reading, not for
trust, and refuses --to, --to-file, --passphrase and --attach. The
file is written atomically: a failed or interrupted export leaves nothing
behind.`,
		Example: `  session-handoff export latest --to age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p -o auth.handoff
  session-handoff export --to ~/.ssh/id_ed25519.pub --armor -o - | pbcopy
  session-handoff export 01KMBF --format markdown -o handoff.md`,
		Args:              rangeArgs(0, 1, "at most one id"),
		ValidArgsFunction: a.completeIDs,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ref = args[0]
			}
			return runExport(a, &opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.allProjects, "all-projects", false, allProjectsUsage)
	repeatedVar(f, &opts.to, "to", "a recipient: age1…, an ssh-ed25519/ssh-rsa key line, a file of them, or a name from the address book (repeatable)")
	repeatedVar(f, &opts.toFiles, "to-file", "a file of recipients, one per line (repeatable)")
	// A --to of export may also be a file.
	_ = cmd.RegisterFlagCompletionFunc("to", a.completePeopleFlag(cobra.ShellCompDirectiveDefault))
	f.BoolVar(&opts.passphrase, "passphrase", false, "encrypt to a passphrase instead of recipients")
	f.StringVar(&opts.passFile, "passphrase-file", "", "read the passphrase from this file (with --passphrase)")
	f.StringVar(&opts.keyPassFile, "key-passphrase-file", "", "read the signing key's passphrase from this file")
	repeatedVar(f, &opts.attach, "attach", "a file to send along (repeatable)")
	f.BoolVar(&opts.noRedact, "no-redact", false, "attach files as they are, secrets included (RISK: recipients see them)")
	f.BoolVar(&opts.armor, "armor", false, "write ASCII armor, for pasting into chat or mail")
	f.BoolVar(&opts.unsigned, "unsigned", false, "do not sign (recipients will see an unsigned bundle)")
	f.BoolVar(&opts.noEncrypt, "no-encrypt", false, "do not encrypt: anyone who gets the file can read it")
	f.StringVarP(&opts.output, "output", "o", "", "where to write: a file, or - for standard output (required, but for Markdown to a pipe)")
	f.StringVar(&opts.format, "format", "bundle", "bundle, markdown or json")
	f.StringVar(&opts.target, "target", "", "with --format markdown: write the prompt for this agent, as 'render --target' does")
	opts.changes.bind(f, a)
	return cmd
}

func runExport(a *app, opts *exportOptions) error {
	markdown := opts.format == "markdown" || opts.format == "md"
	if opts.output == "" && markdown && !a.stdoutTTY {
		// v0.7.5 wrote its Markdown export to standard output: readable
		// text, so a pipe or a redirect gets it without -o -.
		opts.output = "-"
	}
	if opts.output == "" {
		return usagef("-o FILE or -o - is required")
	}
	if err := readableOnly(opts, markdown || opts.format == "json"); err != nil {
		return err
	}
	s, rec, err := a.openRecord(opts.ref, opts.allProjects)
	if err != nil {
		return err
	}
	if opts.target != "" && !markdown {
		return usagef("--target goes with --format markdown")
	}
	switch {
	case markdown:
		return a.exportMarkdown(rec, opts)
	case opts.format == "json":
		return a.writeOutput(opts.output, 0o644, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rec)
		})
	case opts.format != "bundle":
		return usagef("--format %q: want bundle, markdown or json", handoff.Shorten(opts.format, 20))
	}
	return a.exportBundle(s, rec, opts)
}

// readableOnly refuses the bundle's encryption and attachment flags with a
// readable format, which is plaintext and carries no attachment: taking
// them silently would write in the clear what the user meant to encrypt.
func readableOnly(opts *exportOptions, readable bool) error {
	if !readable {
		return nil
	}
	var flag string
	switch {
	case len(opts.to) > 0:
		flag = "--to"
	case len(opts.toFiles) > 0:
		flag = "--to-file"
	case opts.passphrase || opts.passFile != "":
		flag = "--passphrase"
	case len(opts.attach) > 0:
		flag = "--attach"
	case opts.changes.with:
		flag = "--with-changes"
	default:
		return nil
	}
	return withHint(usagef("--format %s writes plaintext without attachments: it does not take %s", opts.format, flag),
		"drop --format for an encrypted bundle, or drop "+flag+" for a readable export")
}

// exportMarkdown writes rec as Markdown, or as the prompt for --target.
func (a *app) exportMarkdown(rec *handoff.Record, opts *exportOptions) error {
	if opts.target == "" {
		return a.writeOutput(opts.output, 0o644, func(w io.Writer) error { return render.Markdown(w, rec) })
	}
	p, err := targets.Lookup(opts.target)
	if err != nil {
		return usageError{err}
	}
	res, err := render.Render(rec, render.Options{Style: p.Style})
	if err != nil {
		return err
	}
	return a.writeOutput(opts.output, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, res.Text)
		return err
	})
}

// exportBundle writes rec as a bundle, encrypted and signed as opts say.
func (a *app) exportBundle(s *store.Store, rec *handoff.Record, opts *exportOptions) error {
	xopts, err := a.exportSettings(opts)
	if err != nil {
		return err
	}
	carried, err := a.exportChanges(s, rec, opts.changes, &xopts)
	if err != nil {
		return err
	}
	defer carried.Close()
	var m *bundle.Manifest
	err = a.writeOutput(opts.output, 0o600, func(w io.Writer) error {
		m, err = exchange.Export(a.ctx, w, s, rec, xopts)
		return err
	})
	if err != nil {
		return err
	}
	if opts.output != "-" {
		fmt.Fprintf(a.stderr, "exported %s as bundle %s (%s) to %s\n", rec.ID, m.BundleID, m.Encryption, opts.output)
	}
	if n := xopts.Report.Total(); n > 0 {
		fmt.Fprintf(a.stderr, "redacted %d secret(s) from the attachments\n", n)
	}
	a.sayChanges(rec, carried)
	return nil
}

// exportChanges adds, with --with-changes, the uncommitted changes of
// rec's worktree now to the bundle (rec made on this machine, carrying
// none yet), and returns them. A record that carries changes already
// says so.
func (a *app) exportChanges(s *store.Store, rec *handoff.Record, c changesFlags, xopts *exchange.ExportOptions) (*changes.Made, error) {
	if sum := a.carriedChanges(s, rec); sum != nil {
		return &changes.Made{Summary: sum}, nil
	}
	if !c.with || rec.Git == nil || rec.Source.Kind == handoff.SourceImport || rec.Source.Kind == handoff.SourceLegacy {
		if c.with {
			a.warn("--with-changes: %s was not made on this machine: its worktree is not here to read", rec.ID)
		}
		return nil, nil
	}
	m, err := a.makeChanges(rec.Git.Root, c)
	if err != nil || m == nil {
		return nil, err
	}
	src, err := changesBlob(m.Open)
	if err != nil {
		m.Close()
		return nil, err
	}
	xopts.Blobs = append(xopts.Blobs, src)
	return m, nil
}

// exportSettings turns export's flags into exchange.ExportOptions: the
// encryption exchange.ChooseEncryption decides, the recipients or
// passphrase, the redactor and the signing key.
func (a *app) exportSettings(opts *exportOptions) (exchange.ExportOptions, error) {
	xopts := exchange.ExportOptions{NoEncrypt: opts.noEncrypt, Armor: opts.armor, Attach: opts.attach,
		Producer: producer(), Report: &redact.Report{}}
	enc, err := exchange.ChooseEncryption(len(opts.to)+len(opts.toFiles) > 0, opts.passphrase, opts.noEncrypt)
	switch {
	case errors.Is(err, exchange.ErrNoEncryption):
		return xopts, withHint(err, "pass --to age1…/--to-file F, --passphrase, or --no-encrypt")
	case errors.Is(err, exchange.ErrEncryptionConflict):
		return xopts, usagef("choose one of --to/--to-file, --passphrase and --no-encrypt")
	case err != nil:
		return xopts, err
	}
	if opts.output == "-" && !opts.armor && a.stdoutTTY {
		return xopts, withHint(errors.New("will not write a binary bundle to a terminal"), "pass --armor, or -o FILE")
	}
	if xopts.Recipients, err = a.parseRecipients(opts.to, opts.toFiles); err != nil {
		return xopts, err
	}
	if exchange.RedactAttachments(opts.attach, opts.noRedact) {
		if xopts.Redactor, err = a.redactor(); err != nil {
			return xopts, err
		}
	}
	if enc == exchange.EncryptToPassphrase {
		src := &passphraseSource{a: a, file: &opts.passFile, fileFlag: "--passphrase-file", env: []string{passphraseEnv}, prompt: "passphrase for the bundle", confirm: true}
		if xopts.Passphrase, err = src.get(); err != nil {
			return xopts, err
		}
	}
	if !opts.unsigned {
		xopts.SigningKey, err = a.signingKey(opts.keyPassFile, "run 'session-handoff keygen', or pass --unsigned")
	}
	return xopts, err
}

// signingKey loads my signing key, asking for its passphrase as needed;
// noKeyHint is the hint for a user who has none yet.
func (a *app) signingKey(passFile, noKeyHint string) (*crypto.SigningKey, error) {
	kr, err := a.keyring()
	if err != nil {
		return nil, err
	}
	sk, err := kr.SigningKey(a.keyPassphrase(&passFile, "--key-passphrase-file").get)
	switch {
	case errors.Is(err, exchange.ErrNoKeys):
		return nil, withHint(err, noKeyHint)
	case errors.Is(err, crypto.ErrWrongPassphrase):
		return nil, errors.New("wrong passphrase for the signing key")
	}
	return sk, err
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

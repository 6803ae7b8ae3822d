package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/legacy"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/store"
)

// importOptions are import's flags and argument.
type importOptions struct {
	input          string // a bundle file, or - for standard input
	reader         readerOptions
	onConflict     string // fail, skip or replace
	allowUntrusted bool
	allowUnsigned  bool
	allowOther     bool // --allow-other-recipients
	tofu           bool
	legacy         bool // the input is an earlier version's file
	json           bool
}

func newImportCmd(a *app) *cobra.Command {
	opts := importOptions{onConflict: "fail"}
	cmd := &cobra.Command{
		Use:   "import FILE|- [--identity F…] [--on-conflict fail|skip|replace] [--allow-untrusted] [--allow-unsigned] [--tofu] [--legacy]",
		Short: "check a bundle completely, then store its handoff",
		Long: `Decrypts the bundle, verifies its signature against my trust store (never
against a key the bundle carries), validates it, checks that it was meant
for me, and only then stores the handoff and its attachments. Anything
short of that writes nothing. By default only bundles signed by a trusted
key are accepted: --allow-untrusted accepts a valid signature by a key I
have not trusted, --tofu trusts the signer on first use (pinning the name
the bundle gives to its key, and refusing another key for that name
later), --allow-unsigned accepts unsigned bundles. Importing the same
bundle twice changes nothing.

--legacy FILE reads what earlier versions wrote: the old handoffs.json
store and the version 2 and 3 JSON bundles (encrypted ones ask for their
passphrase); such a bundle is also detected without it, and imported
alike. Their signatures proved nothing, so their records are stored as
unsigned legacy records.`,
		Example: `  session-handoff import auth.handoff
  ssh laptop session-handoff export --to age1… -o - | session-handoff import -
  session-handoff import --legacy ~/.config/session-handoff/handoffs.json`,
		Args: exactArgs(1, "one bundle file, or - for standard input"),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.input = args[0]
			return runImport(a, &opts)
		},
	}
	f := cmd.Flags()
	opts.reader.bind(f)
	f.StringVar(&opts.onConflict, "on-conflict", "fail", "when a different handoff with the same id is stored: fail, skip or replace")
	f.BoolVar(&opts.allowUntrusted, "allow-untrusted", false, "accept a valid signature by a key that is not in my trust store (RISK: anyone can make such a key)")
	f.BoolVar(&opts.allowUnsigned, "allow-unsigned", false, "accept an unsigned bundle (RISK: anyone could have written it)")
	f.BoolVar(&opts.allowOther, "allow-other-recipients", false, "accept a bundle whose signer meant it for someone else (RISK: it was forwarded)")
	f.BoolVar(&opts.tofu, "tofu", false, "trust the signer on first use and pin the name to its key")
	f.BoolVar(&opts.legacy, "legacy", false, "the file is an old handoffs.json store or a version 2/3 JSON bundle")
	f.BoolVar(&opts.json, "json", false, "print the result as JSON")
	return cmd
}

func runImport(a *app, opts *importOptions) error {
	conflict, err := exchange.ParseConflict(opts.onConflict)
	if err != nil {
		return usagef("--on-conflict %q: want fail, skip or replace", handoff.Shorten(opts.onConflict, 20))
	}
	pol := exchange.Policy{AllowUntrusted: opts.allowUntrusted, AllowUnsigned: opts.allowUnsigned,
		AllowOtherRecipients: opts.allowOther, TOFU: opts.tofu, OnConflict: conflict}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	if opts.legacy {
		data, err := a.readLegacyInput(opts.input)
		if err != nil {
			return err
		}
		return a.importLegacy(s, opts, conflict, data)
	}
	kr, ropts, err := a.readOptions(opts.reader)
	if err != nil {
		return err
	}
	in, err := a.openInput(opts.input)
	if err != nil {
		return err
	}
	defer in.Close()
	br := bufio.NewReader(in)
	if isJSONInput(br) {
		// No bundle starts with '{': this is a file of an earlier version,
		// or a readable copy.
		return a.importJSON(s, opts, conflict, br)
	}
	res, err := exchange.Import(br, s, kr, ropts, pol, time.Now())
	if err != nil {
		return importError(opts.input, err)
	}
	if opts.json {
		return a.writeJSON(map[string]any{"outcome": res.Outcome, "id": res.Record.ID, "title": res.Record.Title,
			"bundle_id": res.Bundle.Manifest.BundleID, "verification": res.Bundle.Verification, "pinned_as": res.PinnedAs})
	}
	v := res.Bundle.Verification
	who := describeVerification(v)
	if res.PinnedAs != "" {
		who = fmt.Sprintf("trusted on first use: pinned %s to %s", res.PinnedAs, v.Fingerprint)
	}
	fmt.Fprintf(a.stdout, "%s %s  %s\n%s\n", res.Outcome, res.Record.ID, cell(res.Record.Title, 80), who)
	a.warnPinnedClaim(res.ClaimedSigner, res.ClaimPinnedTo)
	return nil
}

// importError explains why an import was refused, with the flag that
// would accept it where there is one.
func importError(name string, err error) error {
	if name == "-" {
		name = "standard input"
	}
	var inner hintError
	switch {
	case errors.As(err, &inner):
		// The step that failed knew best what to do (a passphrase
		// bundle with no passphrase at hand: where to give one).
		return withHint(fmt.Errorf("%s: %w", name, err), inner.hint)
	case errors.Is(err, exchange.ErrRefusedUntrusted):
		return withHint(fmt.Errorf("%s: refused: %w", name, err), "check the fingerprint with the sender, then 'session-handoff trust add', or pass --tofu")
	case errors.Is(err, exchange.ErrRefusedUnsigned):
		return withHint(fmt.Errorf("%s: refused: %w", name, err), "pass --allow-unsigned if you know where it came from")
	case errors.Is(err, exchange.ErrRefusedRecipient):
		return withHint(fmt.Errorf("%s: refused: %w", name, err), "the signer did not send it to you; ask them for a bundle addressed to your key")
	case errors.Is(err, exchange.ErrConflict):
		return withHint(fmt.Errorf("%s: %w", name, err), "pass --on-conflict skip or --on-conflict replace")
	case errors.Is(err, bundle.ErrNoIdentity):
		return withHint(fmt.Errorf("%s: %w", name, err), noIdentityHint)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// noIdentityHint is what to do when none of my identities opens a bundle:
// my keyring's age identity and ~/.ssh/id_ed25519 and id_rsa were tried.
const noIdentityHint = "it is encrypted to someone else, or to a key of yours other than my age identity, ~/.ssh/id_ed25519 and ~/.ssh/id_rsa, which were tried (pass --identity ~/.ssh/KEY, its private half), or it was damaged on the way: ask for it again"

// isJSONInput reports whether the input's first byte other than white
// space is '{'.
func isJSONInput(br *bufio.Reader) bool {
	for i := 1; i <= 4096; i++ {
		b, err := br.Peek(i)
		if err != nil || len(b) < i {
			return false
		}
		switch b[i-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// importJSON handles a JSON file given to import without --legacy: a file
// of session-handoff v0.7.5, detected, is imported as --legacy would, with
// a note (its records are stored as unsigned legacy records, since its
// signatures prove nothing, as v0.7.5's import took them); a readable copy (export --format json) is
// refused with what to export instead.
func (a *app) importJSON(s *store.Store, opts *importOptions, conflict exchange.Conflict, r io.Reader) error {
	name := opts.input
	data, err := safefile.ReadAllLimit(r, legacy.MaxInput)
	if err != nil {
		return safefile.Wrap("read", name, err)
	}
	kind, ok := legacy.Detect(data)
	switch {
	case ok:
		fmt.Fprintf(a.stderr, "note: %s is a %s of session-handoff v0.7.5 or earlier: importing it as 'import --legacy' does\n", handoff.CleanText(name), kind)
		return a.importLegacy(s, opts, conflict, data)
	case bytes.Contains(data, []byte(`"schema_version"`)):
		return withHint(fmt.Errorf("%s: this is a readable copy (export --format json), not a bundle: it carries no signature to check", name),
			"export a bundle instead: session-handoff export ID --to RECIPIENT -o FILE")
	}
	return fmt.Errorf("%s: not a bundle (a JSON file, but none that session-handoff wrote)", name)
}

// readLegacyInput reads a legacy file, or standard input for "-", bounded.
func (a *app) readLegacyInput(path string) ([]byte, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = safefile.ReadAllLimit(a.stdin, legacy.MaxInput)
	} else {
		data, err = safefile.ReadFile(path, legacy.MaxInput)
	}
	if err != nil {
		return nil, safefile.Wrap("read", path, err)
	}
	return data, nil
}

// importLegacy stores the records of an earlier version's file through
// exchange.ImportLegacyFile.
func (a *app) importLegacy(s *store.Store, opts *importOptions, conflict exchange.Conflict, data []byte) error {
	path := opts.input
	src := &passphraseSource{a: a, file: &opts.reader.passFile, fileFlag: "--passphrase-file", env: []string{passphraseEnv}, prompt: "passphrase for the legacy bundle"}
	res, err := exchange.ImportLegacyFile(a.ctx, s, data, path, src.get, conflict)
	if errors.Is(err, exchange.ErrConflict) {
		return withHint(fmt.Errorf("%s: %w", path, err), "pass --on-conflict skip or --on-conflict replace")
	}
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(a.stderr, "warning: %s: %s\n", handoff.CleanText(path), w)
	}
	if opts.json {
		return a.writeJSON(map[string]any{"kind": res.Kind, "records": res.Records, "outcomes": res.Outcomes, "warnings": res.Warnings})
	}
	counts := res.Outcomes
	fmt.Fprintf(a.stdout, "%s %s: %d record(s): %d imported, %d already imported, %d skipped\n", res.Kind, path, res.Records, counts[exchange.Imported]+counts[exchange.Replaced], counts[exchange.Already], counts[exchange.Skipped])
	fmt.Fprintln(a.stdout, "legacy signatures prove nothing: these records are stored as unsigned")
	return nil
}

package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/internal/exchange"
)

// Exit codes of verify (documented in its help, README and FORMAT.md).
const (
	exitVerified  = 0
	exitUntrusted = 3
	exitUnsigned  = 4
	exitInvalid   = 5
)

// verifyExit maps exchange.Check's verdict to verify's exit code; any
// other verdict is invalid.
var verifyExit = map[exchange.Verdict]int{
	exchange.VerdictVerified:  exitVerified,
	exchange.VerdictUntrusted: exitUntrusted,
	exchange.VerdictUnsigned:  exitUnsigned,
	exchange.VerdictUnchecked: exitFailure,
	exchange.VerdictInvalid:   exitInvalid,
}

func exitCodeFor(rep *exchange.CheckReport) int {
	if code, ok := verifyExit[rep.Result]; ok {
		return code
	}
	return exitInvalid
}

// checkOptions are the flags and argument of verify and inspect.
type checkOptions struct {
	input  string // a bundle file, or - for standard input
	reader readerOptions
	json   bool
}

func newCheckCmd(a *app, use, short, long, example, jsonHelp string, run func(*app, *checkOptions) error) *cobra.Command {
	var opts checkOptions
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long, Example: example,
		Args: exactArgs(1, "one bundle file, or - for standard input"),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.input = args[0]
			return run(a, &opts)
		},
	}
	opts.reader.bind(cmd.Flags())
	cmd.Flags().BoolVar(&opts.json, "json", false, jsonHelp)
	return cmd
}

func newVerifyCmd(a *app) *cobra.Command {
	return newCheckCmd(a, "verify FILE|- [--identity F…] [--json]",
		"check a bundle and say who signed it; stores nothing",
		`Reads the whole bundle and checks every layer, every hash and the
signature, against my trust store only, without storing anything. The
exit code tells the answer:
  0  verified: signed by a key in my trust store (principal and fingerprint)
  3  valid signature, but by a key I have not trusted
  4  unsigned
  5  invalid: bad signature, hash mismatch, malformed, a limit hit, signed
     for other recipients, or an unsupported version
  1  could not check: unreadable file, no identity to decrypt it, wrong
     passphrase
  2  usage error
It also prints the name the bundle gives its signer, a claim and not proof,
and warns when your trust store binds that name to a different key.`,
		`  session-handoff verify auth.handoff && session-handoff import auth.handoff
  session-handoff verify - --json < auth.handoff`,
		"print the answer as JSON", runVerify)
}

func newInspectCmd(a *app) *cobra.Command {
	return newCheckCmd(a, "inspect FILE|- [--identity F…] [--json]",
		"show what a bundle holds: manifest, blobs, signers, recipients; stores nothing",
		`Reads and checks the bundle as verify does and prints its manifest: the bundle id, producer, signer and what the signature proves, the encryption and hashed recipients (and whether I am one), the handoff, and the attachments. A bundle signed for other recipients is still shown. Nothing is stored.`,
		"  session-handoff inspect auth.handoff --json | jq .manifest.blobs",
		"print as JSON", runInspect)
}

// runVerify prints exchange.Check's verdict and exits with its code.
func runVerify(a *app, opts *checkOptions) error {
	rep, err := a.checkBundle(opts)
	if err != nil {
		return err
	}
	code := exitCodeFor(rep)
	if opts.json {
		if err := a.writeJSON(rep); err != nil {
			return err
		}
		return exitError{code: code}
	}
	switch rep.Result {
	case exchange.VerdictVerified, exchange.VerdictUntrusted, exchange.VerdictUnsigned:
		if rep.Verification == nil { // Check sets it for every bundle read
			break
		}
		verdict := describeVerification(*rep.Verification)
		if st := a.style(); rep.Result == exchange.VerdictVerified {
			verdict = st.Good(verdict)
		} else {
			verdict = st.Warn(verdict)
		}
		fmt.Fprintln(a.stdout, verdict)
		// One verdict: the bundle's own claim is worth a line only when
		// the verdict does not already name the same signer.
		if c := rep.ClaimedSigner; c != "" && !(rep.Result == exchange.VerdictVerified && slices.Contains(rep.Verification.Principals, c)) {
			fmt.Fprintf(a.stdout, "the bundle names its signer %s (a claim, not proof)\n", cell(c, 100))
		}
	}
	a.warnClaim(rep)
	if code == exitOK {
		return nil
	}
	if rep.Result == exchange.VerdictInvalid || rep.Result == exchange.VerdictUnchecked {
		return exitError{code: code, err: fmt.Errorf("%s: %s", inputName(opts.input), rep.Error)}
	}
	return exitError{code: code}
}

// runInspect prints the manifest exchange.Check read.
func runInspect(a *app, opts *checkOptions) error {
	rep, err := a.checkBundle(opts)
	if err != nil {
		return err
	}
	if rep.Manifest == nil {
		return exitError{code: exitCodeFor(rep), err: fmt.Errorf("%s: %s", inputName(opts.input), rep.Error)}
	}
	if opts.json {
		return a.writeJSON(rep)
	}
	printManifest(a, rep)
	a.warnClaim(rep)
	if !rep.ForMe {
		fmt.Fprintln(a.stderr, "warning: signed for other recipients: import would refuse it")
	}
	return nil
}

func printManifest(a *app, rep *exchange.CheckReport) {
	m, w := rep.Manifest, a.stdout
	fmt.Fprintf(w, "bundle:      %s (format %s version %d)\n", m.BundleID, m.Format, m.Version)
	fmt.Fprintf(w, "created:     %s by %s %s", m.CreatedAt.Format("2006-01-02 15:04:05Z07:00"), cell(m.Producer.Name, 40), cell(m.Producer.Version, 40))
	if m.Producer.Machine != "" {
		fmt.Fprintf(w, " on %s", cell(m.Producer.Machine, 64))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "signature:   %s\n", describeVerification(*rep.Verification))
	if m.Signer != nil && m.Signer.Name != "" {
		fmt.Fprintf(w, "signer says: %s (a claim, not proof)\n", cell(m.Signer.Name, 80))
	}
	fmt.Fprintf(w, "encryption:  %s", m.Encryption)
	if rep.Encryption != "" && rep.Encryption != m.Encryption {
		fmt.Fprintf(w, " as the manifest claims, but the outer layer is %s", rep.Encryption)
	}
	if len(m.Recipients) > 0 {
		forMe := "not including me"
		if rep.ForMe {
			forMe = "including me"
		}
		fmt.Fprintf(w, ", %d recipient(s), %s", len(m.Recipients), forMe)
	}
	fmt.Fprintln(w)
	for _, r := range m.Recipients {
		fmt.Fprintf(w, "  recipient %s\n", r)
	}
	fmt.Fprintf(w, "handoff:     %s  %s\n", m.Record.ID, cell(m.Record.Title, 80))
	for _, b := range m.Blobs {
		fmt.Fprintf(w, "  blob %s  %d bytes  %s  %s\n", b.SHA256, b.Size, cell(b.MediaType, 40), cell(b.Name, 60))
	}
}

// warnClaim warns when the name a bundle claims for its signer is one the
// trust store binds to other keys.
func (a *app) warnClaim(rep *exchange.CheckReport) {
	a.warnPinnedClaim(rep.ClaimedSigner, rep.ClaimPinnedTo)
}

// warnPinnedClaim warns, once, that a bundle's claimed signer is a name
// the trust store binds to other keys (pinnedTo): one that impersonates.
func (a *app) warnPinnedClaim(claimed string, pinnedTo []string) {
	if len(pinnedTo) > 0 {
		a.warn("the bundle claims to be signed by %s, but your trust store binds that name to another key (%s): treat it as someone else",
			cell(claimed, 100), strings.Join(pinnedTo, ", "))
	}
}

func inputName(arg string) string {
	if arg == "-" {
		return "standard input"
	}
	return arg
}

// checkBundle reads the bundle opts names through exchange.Check. An
// error is a problem before reading started (usage, I/O, keys).
func (a *app) checkBundle(opts *checkOptions) (*exchange.CheckReport, error) {
	kr, ropts, err := a.readOptions(opts.reader)
	if err != nil {
		return nil, err
	}
	in, err := a.openInput(opts.input)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	_, rep, err := exchange.Check(in, kr, ropts)
	return rep, err
}

// describeVerification says in one line what a signature proves.
func describeVerification(v bundle.Verification) string {
	switch v.Status {
	case bundle.StatusVerified:
		// A principal comes from a hand-editable trust store: printed
		// without the control characters that would drive the terminal.
		return fmt.Sprintf("verified: signed by %s (%s)", cell(firstOr(v.Principals, "?"), 100), v.Fingerprint)
	case bundle.StatusUntrusted:
		return fmt.Sprintf("valid signature by an untrusted key %s", v.Fingerprint)
	case bundle.StatusUnsigned:
		return "unsigned"
	}
	return "invalid: " + v.Reason
}

func firstOr(list []string, def string) string {
	if len(list) == 0 {
		return def
	}
	return list[0]
}

package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/bundle"
)

// Exit codes of verify (documented in its help, README and FORMAT.md).
const (
	exitVerified  = 0
	exitUntrusted = 3
	exitUnsigned  = 4
	exitInvalid   = 5
)

// verifyReport is the --json form of verify and inspect.
type verifyReport struct {
	Result       string               `json:"result"` // verified, untrusted, unsigned, invalid
	Reason       string               `json:"reason,omitempty"`
	Verification *bundle.Verification `json:"verification,omitempty"`
	ForMe        bool                 `json:"for_me"`
	Encryption   bundle.Encryption    `json:"encryption,omitempty"`
	Armored      bool                 `json:"armored"`
	BundleID     string               `json:"bundle_id,omitempty"`
	Manifest     *bundle.Manifest     `json:"manifest,omitempty"`
	Error        string               `json:"error,omitempty"`
	Kind         string               `json:"error_kind,omitempty"`
	Blobs        []bundle.Blob        `json:"blobs,omitempty"`
	_            struct{}             `json:"-"`
}

func init() {
	register(&command{
		name:    "verify",
		summary: "check a bundle and say who signed it; stores nothing",
		usage:   "verify FILE|- [--identity F…] [--json]",
		help: `Reads the whole bundle and checks every layer, every hash and the
signature, against my trust store only, without storing anything. The
exit code tells the answer:
  0  verified: signed by a key in my trust store (principal and fingerprint)
  3  valid signature, but by a key I have not trusted
  4  unsigned
  5  invalid: bad signature, hash mismatch, malformed, a limit hit, signed
     for other recipients, or an unsupported version
  1  could not check: unreadable file, no identity to decrypt it, wrong
     passphrase
  2  usage error`,
		example: `  session-handoff verify auth.handoff && session-handoff import auth.handoff
  session-handoff verify - --json < auth.handoff`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			rf := addReaderFlags(fs, a)
			asJSON := fs.Bool("json", false, "print the answer as JSON")
			return func(args []string) error {
				res, rep, err := a.checkBundle(args, rf)
				if err != nil && rep == nil {
					return err
				}
				code := exitCodeFor(rep)
				if *asJSON {
					if err := a.writeJSON(rep); err != nil {
						return err
					}
					return exitError{code: code}
				}
				switch rep.Result {
				case "verified", "untrusted", "unsigned":
					fmt.Fprintln(a.stdout, describeVerification(res.Verification))
				}
				if code == exitOK {
					return nil
				}
				if rep.Result == "invalid" || rep.Result == "error" {
					return exitError{code: code, err: fmt.Errorf("%s: %s", inputName(args[0]), rep.Error)}
				}
				return exitError{code: code}
			}
		},
	})
	register(&command{
		name:    "inspect",
		summary: "show what a bundle holds: manifest, blobs, signers, recipients; stores nothing",
		usage:   "inspect FILE|- [--identity F…] [--json]",
		help:    `Reads and checks the bundle as verify does and prints its manifest: the bundle id, producer, signer and what the signature proves, the encryption and hashed recipients (and whether I am one), the handoff, and the attachments. A bundle signed for other recipients is still shown. Nothing is stored.`,
		example: "  session-handoff inspect auth.handoff --json | jq .manifest.blobs",
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			rf := addReaderFlags(fs, a)
			asJSON := fs.Bool("json", false, "print as JSON")
			return func(args []string) error {
				res, rep, err := a.checkBundle(args, rf)
				if err != nil && rep == nil {
					return err
				}
				if rep.Manifest == nil {
					return exitError{code: exitCodeFor(rep), err: fmt.Errorf("%s: %s", inputName(args[0]), rep.Error)}
				}
				if *asJSON {
					return a.writeJSON(rep)
				}
				m := rep.Manifest
				w := a.stdout
				fmt.Fprintf(w, "bundle:      %s (format %s version %d)\n", m.BundleID, m.Format, m.Version)
				fmt.Fprintf(w, "created:     %s by %s %s", m.CreatedAt.Format("2006-01-02 15:04:05Z07:00"), cell(m.Producer.Name, 40), cell(m.Producer.Version, 40))
				if m.Producer.Machine != "" {
					fmt.Fprintf(w, " on %s", cell(m.Producer.Machine, 64))
				}
				fmt.Fprintln(w)
				fmt.Fprintf(w, "signature:   %s\n", describeVerification(res.Verification))
				if m.Signer != nil && m.Signer.Name != "" {
					fmt.Fprintf(w, "signer says: %s (a claim, not proof)\n", cell(m.Signer.Name, 80))
				}
				fmt.Fprintf(w, "encryption:  %s", m.Encryption)
				if _, used, differ := res.EncryptionMismatch(); differ {
					fmt.Fprintf(w, " as the manifest claims, but the outer layer is %s", used)
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
				if !rep.ForMe {
					fmt.Fprintln(a.stderr, "warning: signed for other recipients: import would refuse it")
				}
				return nil
			}
		},
	})
}

func inputName(arg string) string {
	if arg == "-" {
		return "standard input"
	}
	return arg
}

// checkBundle reads a bundle as verify and inspect do. It returns a report
// for every outcome it can classify, and an error alone for usage and I/O
// problems before reading started.
func (a *app) checkBundle(args []string, rf readerFlags) (*bundle.Result, *verifyReport, error) {
	if len(args) != 1 {
		return nil, nil, usagef("takes one bundle file, or - for standard input")
	}
	kr, ropts, err := a.readOptions(rf)
	if err != nil {
		return nil, nil, err
	}
	trust, err := kr.TrustStore()
	if err != nil {
		return nil, nil, err
	}
	ropts.Trusted = trust
	in, err := a.openInput(args[0])
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	res, err := bundle.Read(in, ropts)
	rep := &verifyReport{ForMe: true}
	if res != nil {
		rep.Encryption, rep.Armored = res.Encryption, res.Armored
		if res.Manifest != nil && (err == nil || errors.Is(err, bundle.ErrWrongRecipient)) {
			rep.Manifest = res.Manifest
			rep.BundleID = res.Manifest.BundleID
			rep.Blobs = res.Manifest.Blobs
			rep.ForMe = res.ForReader
			v := res.Verification
			rep.Verification = &v
		}
	}
	switch {
	case err == nil:
		rep.Result = string(res.Verification.Status)
		if res.Verification.Status == bundle.StatusInvalid {
			rep.Reason = res.Verification.Reason
			rep.Error = res.Verification.Reason
		}
	case errors.Is(err, bundle.ErrNoIdentity), errors.Is(err, bundle.ErrWrongPassphrase):
		rep.Result, rep.Error, rep.Kind = "error", oneLine(err.Error()), errorKind(err)
	default:
		rep.Result, rep.Error, rep.Kind = "invalid", oneLine(err.Error()), errorKind(err)
		rep.Reason = rep.Error
	}
	return res, rep, nil
}

func exitCodeFor(rep *verifyReport) int {
	switch rep.Result {
	case string(bundle.StatusVerified):
		return exitVerified
	case string(bundle.StatusUntrusted):
		return exitUntrusted
	case string(bundle.StatusUnsigned):
		return exitUnsigned
	case "error":
		return exitFailure
	}
	return exitInvalid
}

// errorKind names the class of a bundle error for --json readers.
func errorKind(err error) string {
	for _, k := range []struct {
		err  error
		name string
	}{
		{bundle.ErrWrongRecipient, "wrong_recipient"}, {bundle.ErrSignature, "bad_signature"},
		{bundle.ErrHashMismatch, "hash_mismatch"}, {bundle.ErrUnsupportedVersion, "unsupported_version"},
		{bundle.ErrLimit, "limit"}, {bundle.ErrNoIdentity, "no_identity"},
		{bundle.ErrWrongPassphrase, "wrong_passphrase"}, {bundle.ErrMalformed, "malformed"},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other"
}

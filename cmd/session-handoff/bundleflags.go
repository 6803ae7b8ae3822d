package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/ctxio"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// limitFlags adds a flag for each reader limit; zero keeps the default.
func limitFlags(fs *pflag.FlagSet) *bundle.Limits {
	d := bundle.DefaultLimits()
	l := &bundle.Limits{}
	fs.Int64Var(&l.MaxInput, "max-input", 0, fmt.Sprintf("largest bundle to read, in bytes (default %d)", d.MaxInput))
	fs.Int64Var(&l.MaxDecompressed, "max-decompressed", 0, fmt.Sprintf("most bytes the bundle may decompress to (default %d)", d.MaxDecompressed))
	fs.Int64Var(&l.MaxWindow, "max-window", 0, fmt.Sprintf("largest zstd window, in bytes (default %d)", d.MaxWindow))
	fs.IntVar(&l.MaxEntries, "max-entries", 0, fmt.Sprintf("most archive entries (default %d)", d.MaxEntries))
	fs.Int64Var(&l.MaxEntrySize, "max-entry-size", 0, fmt.Sprintf("largest attachment, in bytes (default %d)", d.MaxEntrySize))
	fs.Int64Var(&l.MaxManifest, "max-manifest", 0, fmt.Sprintf("largest signed manifest, in bytes (default %d)", d.MaxManifest))
	fs.IntVar(&l.MaxScryptWorkFactor, "max-scrypt-work-factor", 0, fmt.Sprintf("highest passphrase work factor, log2 N (default %d)", d.MaxScryptWorkFactor))
	return l
}

// checkLimits refuses negative limits, which would read as "no limit".
func checkLimits(l *bundle.Limits) error {
	if l.MaxInput < 0 || l.MaxDecompressed < 0 || l.MaxWindow < 0 || l.MaxEntries < 0 || l.MaxEntrySize < 0 || l.MaxManifest < 0 || l.MaxScryptWorkFactor < 0 {
		return usagef("limits must be positive")
	}
	return nil
}

// readerOptions are the flags of a bundle reader on cobra: identities to
// decrypt with, the bundle's passphrase file, and the reader limits.
type readerOptions struct {
	identities []string
	passFile   string
	limits     *bundle.Limits // nil: the defaults
}

// bind declares the reader flags on f.
func (o *readerOptions) bind(f *pflag.FlagSet) {
	repeatedVar(f, &o.identities, "identity", "an age identity file or OpenSSH private key to decrypt with, besides my own and ~/.ssh/id_ed25519 and id_rsa (repeatable)")
	f.StringVar(&o.passFile, "passphrase-file", "", "read the passphrase of a passphrase bundle from this file")
	o.limits = limitFlags(f)
}

// readOptions loads identities and builds what bundle.Read needs.
func (a *app) readOptions(rf readerOptions) (exchange.Keyring, bundle.ReadOptions, error) {
	if rf.limits == nil {
		rf.limits = &bundle.Limits{}
	}
	if err := checkLimits(rf.limits); err != nil {
		return exchange.Keyring{}, bundle.ReadOptions{}, err
	}
	kr, err := a.keyring()
	if err != nil {
		return kr, bundle.ReadOptions{}, err
	}
	idPass := &passphraseSource{a: a, env: []string{keyPassphraseEnv, passphraseEnv}, prompt: "passphrase for the identity key"}
	ids, recips, err := kr.Identities(rf.identities, idPass.get)
	if err != nil {
		return kr, bundle.ReadOptions{}, err
	}
	bundlePass := &passphraseSource{a: a, file: &rf.passFile, fileFlag: "--passphrase-file", env: []string{passphraseEnv}, prompt: "passphrase for the bundle"}
	return kr, bundle.ReadOptions{Identities: ids, Recipients: recips, Passphrase: bundlePass.get, Limits: *rf.limits, Context: a.ctx}, nil
}

// openInput opens a bundle named on the command line, "-" for stdin. On a
// terminal it first says how to paste one, since nothing else would tell
// the user why the command waits.
func (a *app) openInput(name string) (io.ReadCloser, error) {
	if name == "-" {
		if a.stdinTTY {
			fmt.Fprintln(a.stderr, pastePrompt)
		}
		return io.NopCloser(ctxio.Reader(a.ctx, a.stdin)), nil
	}
	// A regular file only, as every path read: a FIFO would block the
	// open for ever, a device never end.
	f, _, err := safefile.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{ctxio.Reader(a.ctx, f), f}, nil
}

// parseRecipients turns --to values (age1…, ssh-… lines, files of either,
// or names from the address book) and --to-file files into recipients; a
// bad inline key is a usage error.
func (a *app) parseRecipients(to, toFiles []string) ([]crypto.RecipientInfo, error) {
	kr, err := a.keyring()
	if err != nil {
		return nil, err
	}
	list, err := kr.Recipients(to, toFiles)
	var bad *exchange.BadRecipientError
	switch {
	case errors.As(err, &bad):
		return nil, usagef("--to: %v", bad.Err)
	case errors.Is(err, people.ErrUnknown):
		return nil, withHint(fmt.Errorf("--to: %w", err), "pass age1…, an ssh- key line or a file of them, or add the person first: session-handoff people add NAME age1…")
	}
	return list, err
}

// pastePrompt is what a command reading a bundle from a terminal says.
var pastePrompt = "paste the bundle, then Ctrl-D" + map[bool]string{true: " (Ctrl-Z, Enter on Windows)"}[runtime.GOOS == "windows"]

// repeatedVar binds a flag given once per value (--next A --next B) to p:
// pflag's StringArrayVar with no default, without the CSV writer (a 4 KiB
// buffer) that StringArrayVar makes at start to print the empty default
// of every such flag of every command.
func repeatedVar(fs *pflag.FlagSet, p *[]string, name, usage string) {
	fs.Var(repeatedValue{p}, name, usage)
}

// repeatedValue is repeatedVar's flag value.
type repeatedValue struct{ p *[]string }

func (v repeatedValue) Set(s string) error { *v.p = append(*v.p, s); return nil }

// Type is StringArray's, which completion and help know as repeatable.
func (v repeatedValue) Type() string { return "stringArray" }

func (v repeatedValue) String() string { return "[" + strings.Join(*v.p, ",") + "]" }

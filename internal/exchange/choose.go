package exchange

import (
	"errors"
	"fmt"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"os"
	"os/user"
	"strings"
)

// Encryption is how an export is asked to be encrypted.
type Encryption int

// The ways an export can be encrypted.
const (
	EncryptToRecipients Encryption = iota + 1
	EncryptToPassphrase
	EncryptNot
)

// Errors of ChooseEncryption.
var (
	ErrNoEncryption       = errors.New("no recipients")
	ErrEncryptionConflict = errors.New("choose one of recipients, a passphrase and no encryption")
)

// ChooseEncryption decides an export's encryption from what was asked:
// exactly one of recipients, a passphrase or no encryption must be, so
// that a bundle is never left unencrypted by omission.
func ChooseEncryption(recipients, passphrase, none bool) (Encryption, error) {
	var chosen []Encryption
	for _, c := range []struct {
		on bool
		e  Encryption
	}{{recipients, EncryptToRecipients}, {passphrase, EncryptToPassphrase}, {none, EncryptNot}} {
		if c.on {
			chosen = append(chosen, c.e)
		}
	}
	switch len(chosen) {
	case 0:
		return 0, ErrNoEncryption
	case 1:
		return chosen[0], nil
	}
	return 0, ErrEncryptionConflict
}

// RedactAttachments says whether the files attached to an export travel
// through the redactor: whenever there are any, unless the sender said
// not to.
func RedactAttachments(attach []string, noRedact bool) bool {
	return len(attach) > 0 && !noRedact
}

// ParseConflict reads a conflict policy by name: fail, skip or replace.
func ParseConflict(s string) (Conflict, error) {
	switch c := Conflict(s); c {
	case ConflictFail, ConflictSkip, ConflictReplace:
		return c, nil
	}
	return "", fmt.Errorf("%s: want fail, skip or replace", untrusted.Quote(s, 32))
}

// maxKeyLineFile bounds a file holding one public key.
const maxKeyLineFile = 64 << 10

// KeyArg takes a key given on the command line as it is when it starts
// with one of prefixes (case-insensitively), and otherwise reads it from
// the file it names: the first line that is not blank or a # comment.
func KeyArg(arg string, prefixes ...string) (string, error) {
	for _, p := range prefixes {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(arg)), p) {
			return arg, nil
		}
	}
	data, err := safefile.ReadFile(arg, maxKeyLineFile)
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

// ErrNoPrincipal is a key to trust with neither a principal given nor a
// comment to take one from.
var ErrNoPrincipal = errors.New("the key line has no comment: pass a principal")

// ErrNotTrusted is a principal or fingerprint that is not in the trust
// store.
var ErrNotTrusted = errors.New("not in the trust store")

// BadPrincipalError is a principal that people.CheckName refuses.
type BadPrincipalError struct{ Err error }

func (e *BadPrincipalError) Error() string { return e.Err.Error() }
func (e *BadPrincipalError) Unwrap() error { return e.Err }

// TrustKey reads a key to trust: arg is a public key line ("ssh-ed25519
// AAAA… bob@desk") or the name of a file holding one. The principal is
// principal, or else the line's comment; it must be a valid trust-store
// name (people.CheckName: never one of my devices' "me@" names, which
// pairing alone gives), else a *BadPrincipalError.
func TrustKey(arg, principal string) (crypto.PublicKey, string, error) {
	line := arg
	if !strings.HasPrefix(strings.TrimSpace(line), "ssh-") {
		data, err := safefile.ReadFile(line, maxKeyLineFile)
		if err != nil {
			return crypto.PublicKey{}, "", fmt.Errorf("read key file: %w", err)
		}
		line = string(data)
	}
	key, comment, err := crypto.ParsePublicKeyLine(line)
	if err != nil {
		return crypto.PublicKey{}, "", err
	}
	if principal == "" {
		principal = comment
	}
	if principal == "" {
		return crypto.PublicKey{}, "", ErrNoPrincipal
	}
	if err := people.CheckName(principal); err != nil {
		return crypto.PublicKey{}, "", &BadPrincipalError{err}
	}
	return key, principal, nil
}

// Trust adds key to the trust store under principal. named says the user
// typed the principal (--principal); one taken from the key line's comment
// is refused when it looks like a principal already trusted.
func (k Keyring) Trust(principal string, key crypto.PublicKey, named bool) error {
	return crypto.UpdateTrustStore(k.TrustPath(), func(ts *crypto.TrustStore) error {
		if !named {
			// A name taken from the key's own comment must not look like
			// one already trusted (crypto.ErrLookAlike).
			if err := ts.CheckNew(principal); err != nil {
				return err
			}
		}
		return ts.Add(principal, key)
	})
}

// Untrust removes the entries for a principal or fingerprint from the
// trust store and returns how many it removed; none is ErrNotTrusted, and
// a missing trust store is not created.
func (k Keyring) Untrust(who string) (int, error) {
	if _, err := os.Stat(k.TrustPath()); errors.Is(err, os.ErrNotExist) {
		return 0, ErrNotTrusted
	}
	removed := 0
	err := crypto.UpdateTrustStore(k.TrustPath(), func(ts *crypto.TrustStore) error {
		n, err := ts.Remove(who)
		removed = n
		return err
	})
	if err == nil && removed == 0 {
		err = ErrNotTrusted
	}
	return removed, err
}

// DefaultKeyName is the name a new key gets when none is given: user@host.
func DefaultKeyName() string {
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

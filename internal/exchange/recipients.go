package exchange

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// maxRecipientsFile bounds a file of recipients.
const maxRecipientsFile = 1 << 20

// BadRecipientError is a recipient given inline that does not parse.
type BadRecipientError struct{ Err error }

func (e *BadRecipientError) Error() string { return e.Err.Error() }
func (e *BadRecipientError) Unwrap() error { return e.Err }

// ParseRecipients turns recipient specs into recipients, without
// duplicates: each of to is an age1… key, an ssh-ed25519/ssh-rsa key line,
// or the path of a file of them; each of files is such a file, one per
// line.
func ParseRecipients(to, files []string) ([]crypto.RecipientInfo, error) {
	return parseRecipients(to, files, nil)
}

// Recipients is ParseRecipients with the keyring's address book: a to
// value that is neither a key nor an existing file is a name from the book
// ('people add'), as send takes it; one with a slash is always a file. A value that is both a file and a name
// is refused as ambiguous; one that is neither wraps people.ErrUnknown.
func (k Keyring) Recipients(to, files []string) ([]crypto.RecipientInfo, error) {
	var book *people.Book
	lookup := func(name string) (crypto.RecipientInfo, bool, error) {
		if book == nil {
			var err error
			if book, err = people.Load(k.Dir); err != nil {
				return crypto.RecipientInfo{}, false, err
			}
		}
		if _, ok := book.Lookup(name); !ok {
			return crypto.RecipientInfo{}, false, nil
		}
		ri, _, err := book.Resolve(name)
		return ri, err == nil, err
	}
	return parseRecipients(to, files, lookup)
}

// parseRecipients is ParseRecipients; lookup, when not nil, finds a name
// in the address book.
func parseRecipients(to, files []string, lookup func(string) (crypto.RecipientInfo, bool, error)) ([]crypto.RecipientInfo, error) {
	var out []crypto.RecipientInfo
	seen := map[string]bool{}
	add := func(list []crypto.RecipientInfo) {
		for _, r := range list {
			if !seen[r.Canonical] {
				seen[r.Canonical] = true
				out = append(out, r)
			}
		}
	}
	files = append([]string(nil), files...)
	for _, t := range to {
		s := strings.TrimSpace(t)
		if strings.HasPrefix(strings.ToLower(s), "age1") || strings.HasPrefix(s, "ssh-") {
			r, canon, err := crypto.ParseRecipient(s)
			if err != nil {
				return nil, &BadRecipientError{err}
			}
			add([]crypto.RecipientInfo{{Recipient: r, Canonical: canon}})
			continue
		}
		// A value with a path separator is a file: no name has one.
		if lookup != nil && !strings.ContainsAny(s, `/\`) {
			ri, named, err := lookup(s)
			if err != nil {
				return nil, err
			}
			_, statErr := os.Stat(t)
			switch {
			case named && statErr == nil:
				return nil, &BadRecipientError{fmt.Errorf("%q is both a file and a name in the address book: write ./%s for the file", s, s)}
			case named:
				add([]crypto.RecipientInfo{ri})
				continue
			case errors.Is(statErr, fs.ErrNotExist):
				return nil, fmt.Errorf("%q is neither a key nor a file, and %w", s, people.ErrUnknown)
			}
		}
		files = append(files, t)
	}
	for _, f := range files {
		data, err := safefile.ReadFile(f, maxRecipientsFile)
		if err != nil {
			return nil, fmt.Errorf("read recipients %s: %w", f, err)
		}
		list, err := crypto.ParseRecipientsFile(data, f)
		if err != nil {
			return nil, err
		}
		add(list)
	}
	return out, nil
}

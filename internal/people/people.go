// Package people is the address book: the names a user sends handoffs to,
// each with the recipient a bundle is encrypted to and, optionally, the
// key that signs the person's own bundles.
//
// The book is one text file in the configuration directory (see
// docs/FORMAT.md §10), written atomically under a lock, so concurrent
// writers never lose each other's entries and a crash leaves the old file
// or the new one.
package people

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/tsvconf"
)

// header is the first line of the file: its format and version.
const header = "session-handoff-people 1"

// Bounds on the file.
const (
	// MaxFileSize bounds the address book file.
	MaxFileSize = 1 << 20
	// MaxPeople bounds the number of entries.
	MaxPeople = 10_000
)

// Errors callers tell apart.
var (
	// ErrUnknown is wrapped when a name is not in the address book.
	ErrUnknown = errors.New("not in the address book")
	// ErrExists is wrapped when a name is taken by different keys.
	ErrExists = errors.New("already in the address book with other keys")
)

// Person is one entry of the address book.
type Person struct {
	// Name is how the user refers to the person; it follows the rules of a
	// trust-store principal (crypto.ValidatePrincipal).
	Name string `json:"name"`
	// Recipient is the canonical recipient string bundles are encrypted
	// to: an age1… key or "ssh-ed25519 BASE64" / "ssh-rsa BASE64".
	Recipient string `json:"recipient"`
	// SigningKey is the person's signing key, "ssh-ed25519 BASE64", or
	// empty when it is not known.
	SigningKey string `json:"signing_key,omitempty"`
}

// RecipientHash is the hash of the person's recipient, as a bundle's
// signed recipient list and the git inbox's directories name it.
func (p Person) RecipientHash() string { return crypto.RecipientHash(p.Recipient) }

// SignerHash is the hash (crypto.RecipientHash) of the person's signing
// key in canonical form, as the git inbox names sender logs, or "" when the
// signing key is not known.
func (p Person) SignerHash() string {
	if p.SigningKey == "" {
		return ""
	}
	return crypto.RecipientHash(p.SigningKey)
}

// New checks a name, a recipient and an optional signing key line (a
// comment after the key is dropped) and returns them in canonical form.
func New(name, recipient, signingKey string) (Person, error) {
	if err := crypto.ValidatePrincipal(name); err != nil {
		return Person{}, fmt.Errorf("name %q: %w", handoff.Shorten(name, 60), err)
	}
	_, canon, err := crypto.ParseRecipient(recipient)
	if err != nil {
		return Person{}, fmt.Errorf("recipient of %s: %w", name, err)
	}
	p := Person{Name: name, Recipient: canon}
	if strings.TrimSpace(signingKey) != "" {
		key, _, err := crypto.ParsePublicKeyLine(signingKey)
		if err != nil {
			return Person{}, fmt.Errorf("signing key of %s: %w", name, err)
		}
		p.SigningKey = key.String()
	}
	return p, nil
}

// Book is the address book as read from its file.
type Book struct {
	path   string
	people []Person
}

// Path is the file of the address book in dir.
func Path(dir string) string { return paths.ConfigDir(dir).People() }

// file is the address book's file in dir.
func file(dir string) tsvconf.File {
	return tsvconf.File{Path: Path(dir), What: "address book", Kind: "address book", Header: header,
		Comment: "NAME<TAB>RECIPIENT[<TAB>SIGNING-KEY]; managed by 'session-handoff people'",
		MaxSize: MaxFileSize, Perm: 0o600}
}

// Load reads the address book in the configuration directory dir; a
// missing file is an empty book.
func Load(dir string) (*Book, error) {
	b := &Book{path: Path(dir)}
	seen := map[string]bool{}
	err := file(dir).Read(func(f []string) error {
		if len(f) < 2 || len(f) > 3 {
			return errors.New("want NAME, RECIPIENT and an optional SIGNING-KEY separated by tabs")
		}
		sk := ""
		if len(f) == 3 {
			sk = f[2]
		}
		p, err := New(f[0], f[1], sk)
		if err != nil {
			return err
		}
		if seen[p.Name] {
			return fmt.Errorf("%s is listed twice", p.Name)
		}
		if len(b.people) >= MaxPeople {
			return fmt.Errorf("more than %d people", MaxPeople)
		}
		seen[p.Name] = true
		b.people = append(b.people, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// records are the book's lines, sorted by name.
func (b *Book) records() [][]string {
	var out [][]string
	for _, p := range b.List() {
		r := []string{p.Name, p.Recipient}
		if p.SigningKey != "" {
			r = append(r, p.SigningKey)
		}
		out = append(out, r)
	}
	return out
}

// List returns the entries sorted by name.
func (b *Book) List() []Person {
	out := append([]Person(nil), b.people...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a person by name.
func (b *Book) Lookup(name string) (Person, bool) {
	for _, p := range b.people {
		if p.Name == name {
			return p, true
		}
	}
	return Person{}, false
}

// Names maps recipient hashes and signer hashes (as the git inbox names
// directories and logs) to the names of the people they belong to.
func (b *Book) Names() (byRecipient, bySigner map[string]string) {
	byRecipient, bySigner = map[string]string{}, map[string]string{}
	for _, p := range b.people {
		byRecipient[p.RecipientHash()] = p.Name
		if p.SigningKey != "" {
			bySigner[p.SignerHash()] = p.Name
		}
	}
	return byRecipient, bySigner
}

// Add adds p (checked by New). Adding an entry that is already there is a
// no-op and reports false; a name taken by other keys fails with ErrExists,
// and a new name that looks like another one of the book (a case variant
// or a confusable, crypto.Confusable) with an error wrapping
// crypto.ErrLookAlike.
func (b *Book) Add(p Person) (added bool, err error) {
	if old, ok := b.Lookup(p.Name); ok {
		if old == p {
			return false, nil
		}
		return false, fmt.Errorf("%s: %w", p.Name, ErrExists)
	}
	for _, o := range b.people {
		if crypto.Confusable(o.Name, p.Name) {
			return false, fmt.Errorf("%s %w: %s", strconv.QuoteToASCII(handoff.Shorten(p.Name, 60)), crypto.ErrLookAlike, strconv.QuoteToASCII(o.Name))
		}
	}
	if len(b.people) >= MaxPeople {
		return false, fmt.Errorf("the address book has %d people already", MaxPeople)
	}
	b.people = append(b.people, p)
	return true, nil
}

// Remove deletes the entry for name, failing with ErrUnknown if there is
// none.
func (b *Book) Remove(name string) error {
	for i, p := range b.people {
		if p.Name == name {
			b.people = append(b.people[:i:i], b.people[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("%q: %w", handoff.Shorten(name, 60), ErrUnknown)
}

// Update loads the book in dir, lets fn change it and writes it back, all
// under the lock file people.lock, so that concurrent writers do not lose
// each other's changes. If fn fails, nothing is written.
func Update(dir string, fn func(*Book) error) error {
	return file(dir).Update(func() ([][]string, error) {
		b, err := Load(dir)
		if err != nil {
			return nil, err
		}
		if err := fn(b); err != nil {
			return nil, err
		}
		return b.records(), nil
	})
}

// Resolve turns a --to value into a recipient: a raw age1… or ssh- key is
// taken as it is, anything else is a name looked up in the book (an
// unknown name wraps ErrUnknown). label is the name, or the key shortened,
// for messages.
func (b *Book) Resolve(spec string) (r crypto.RecipientInfo, label string, err error) {
	s := strings.TrimSpace(spec)
	if strings.HasPrefix(strings.ToLower(s), "age1") || strings.HasPrefix(s, "ssh-") {
		rec, canon, err := crypto.ParseRecipient(s)
		if err != nil {
			return r, "", err
		}
		return crypto.RecipientInfo{Recipient: rec, Canonical: canon}, Short(canon), nil
	}
	p, ok := b.Lookup(s)
	if !ok {
		return r, "", fmt.Errorf("%q: %w", handoff.Shorten(s, 60), ErrUnknown)
	}
	rec, canon, err := crypto.ParseRecipient(p.Recipient)
	if err != nil {
		return r, "", fmt.Errorf("%s: %w", b.path, err)
	}
	return crypto.RecipientInfo{Recipient: rec, Canonical: canon}, p.Name, nil
}

// Short shortens a recipient for messages and tables: "age1ql3z7hjy…cac8p".
func Short(recipient string) string {
	if len(recipient) <= 24 {
		return recipient
	}
	return recipient[:12] + "…" + recipient[len(recipient)-6:]
}

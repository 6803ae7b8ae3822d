package exchange

import (
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/crypto"
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

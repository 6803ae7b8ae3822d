package bundle

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Sentinel errors. Every error Read and Write return for a bad bundle is an
// *Error whose Kind is one of these, so a caller can map them to exit codes
// with errors.Is. Messages are one lowercase line and never carry secret
// material (passphrases, identities, file keys).
var (
	// ErrMalformed: the input is not a well-formed bundle (bad armor, a
	// corrupt age, zstd or tar layer, a manifest that breaks the schema,
	// unexpected or missing archive entries, trailing data).
	ErrMalformed = errors.New("malformed bundle")
	// ErrLimit: a size or work limit was hit. The message names the limit,
	// its value and the flag that raises it.
	ErrLimit = errors.New("limit exceeded")
	// ErrSignature: the envelope carries signatures but none verifies.
	ErrSignature = errors.New("bad signature")
	// ErrHashMismatch: a blob's bytes do not match the signed manifest.
	ErrHashMismatch = errors.New("hash mismatch")
	// ErrUnsupportedVersion: the bundle is of a format version this
	// program does not read.
	ErrUnsupportedVersion = errors.New("unsupported bundle version")
	// ErrWrongRecipient: the bundle is intact but its signed recipient list
	// does not include the reader. Read returns it together with a full
	// Result, so that inspect can show the bundle while import refuses it.
	ErrWrongRecipient = errors.New("signed for other recipients")
	// ErrNoIdentity: the bundle is encrypted and none of the reader's
	// identities can decrypt it.
	ErrNoIdentity = errors.New("no matching identity")
	// ErrWrongPassphrase: a passphrase bundle and the passphrase is wrong.
	ErrWrongPassphrase = errors.New("wrong passphrase")
	// ErrUntrusted and ErrUnsigned are returned by Result.RequireVerified,
	// not by Read: Read reports them as a Verification status.
	ErrUntrusted = errors.New("signed by an untrusted key")
	ErrUnsigned  = errors.New("unsigned bundle")
	// ErrIO: reading the input or writing a blob file failed; says
	// nothing about the bundle.
	ErrIO = errors.New("i/o error")
	// ErrNotAdmitted: ReadOptions.Admit refused the bundle once its
	// envelope and manifest were read, before any blob was; says nothing
	// against the bundle itself.
	ErrNotAdmitted = errors.New("not admitted")
)

// Error is the error type of this package. Error() is "bundle: " + Msg.
type Error struct {
	// Kind is one of the sentinel errors above.
	Kind error
	// Msg is a one-line lowercase description.
	Msg string
	// Err is the underlying cause, if any. Its text is already in Msg.
	Err error
}

func (e *Error) Error() string { return "bundle: " + e.Msg }

// Unwrap lets errors.Is match Kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// errorf builds an *Error of the given kind.
func errorf(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: untrusted.OneLine(fmt.Sprintf(format, args...), maxMessage)}
}

// wrapf builds an *Error of the given kind with a cause whose text is
// appended after a colon.
func wrapf(kind error, cause error, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if cause != nil {
		msg += ": " + causeText(cause)
	}
	return &Error{Kind: kind, Msg: untrusted.OneLine(msg, maxMessage), Err: cause}
}

// limitError names the limit that was hit, its value and the flag that
// raises it, e.g. "decompressed size exceeds limit of 1073741824 bytes
// (--max-decompressed)".
func limitError(what string, limit int64, unit, flag string) *Error {
	return errorf(ErrLimit, "%s exceeds limit of %d %s (%s)", what, limit, unit, flag)
}

// causeText is the text of a lower-level error, lower-cased at the start,
// without redundant prefixes.
func causeText(err error) string {
	var be *Error
	if errors.As(err, &be) {
		return be.Msg
	}
	s := err.Error()
	for _, p := range []string{"invalid armor: ", "archive/tar: ", "zstd: "} {
		s = strings.TrimPrefix(s, p)
	}
	return lowerFirst(s)
}

func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if !unicode.IsUpper(r) {
		return s
	}
	// Keep acronyms (EOF, CRC, UTF-8) as they are.
	if len(s) > size && unicode.IsUpper(rune(s[size])) {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}

// maxMessage bounds an error message, whatever text it quotes: each is
// one cleaned line (untrusted.OneLine).
const maxMessage = 400

// kindName returns the name of a sentinel error, for tests and the corpus.
func kindName(err error) string {
	for _, k := range []struct {
		name string
		err  error
	}{
		{"ErrMalformed", ErrMalformed}, {"ErrLimit", ErrLimit}, {"ErrSignature", ErrSignature},
		{"ErrHashMismatch", ErrHashMismatch}, {"ErrUnsupportedVersion", ErrUnsupportedVersion},
		{"ErrWrongRecipient", ErrWrongRecipient}, {"ErrNoIdentity", ErrNoIdentity},
		{"ErrWrongPassphrase", ErrWrongPassphrase}, {"ErrUntrusted", ErrUntrusted},
		{"ErrUnsigned", ErrUnsigned}, {"ErrIO", ErrIO},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return ""
}

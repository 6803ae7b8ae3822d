package bundle

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"strconv"

	"filippo.io/age"
	"filippo.io/age/armor"
	"github.com/klauspost/compress/zstd"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/ctxio"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// Outer layers a reader can meet first.
type layer int

const (
	layerUnknown layer = iota
	layerAge
	layerAgeArmor
	layerZstd
	layerArmor
	// layerText is input that starts with none of the above: perhaps an
	// armored bundle pasted inside other text.
	layerText
)

const (
	ageMagic       = "age-encryption.org/v1\n"
	ageArmorHeader = armor.Header
	zstdMagic      = "\x28\xb5\x2f\xfd"
)

// sniff looks at the first bytes of br and says which layer starts there.
// White space (including CRLF) before an armor header is skipped, since
// armor is pasted; before a binary layer it is an error.
func sniff(br *bufio.Reader) (layer, error) {
	skipped := 0
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			if skipped == 0 {
				return layerUnknown, errorf(ErrMalformed, "empty input")
			}
			return layerUnknown, errorf(ErrMalformed, "input is only white space")
		}
		if err != nil {
			return layerUnknown, err
		}
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
			skipped++
			if skipped > maxWhitespace {
				return layerUnknown, errorf(ErrMalformed, "more than %d bytes of white space before the bundle", maxWhitespace)
			}
			continue
		}
		if err := br.UnreadByte(); err != nil {
			return layerUnknown, err
		}
		break
	}
	peek := func(s string) bool {
		b, _ := br.Peek(len(s))
		return string(b) == s
	}
	switch {
	case peek(ageArmorHeader):
		return layerAgeArmor, nil
	case peek(ArmorHeader):
		return layerArmor, nil
	case skipped > 0:
		// Binary layers are never pasted: leading white space means the
		// input is not what it claims to be.
	case peek(ageMagic):
		return layerAge, nil
	case peek(zstdMagic):
		return layerZstd, nil
	}
	if b, _ := br.Peek(len("age-encryption.org/")); string(b) == "age-encryption.org/" {
		return layerUnknown, errorf(ErrUnsupportedVersion, "unsupported age format version (this program reads age-encryption.org/v1)")
	}
	return layerText, errorf(ErrMalformed, "not a session-handoff bundle: input starts with neither age, zstd nor armor")
}

// state records the first error any layer hit, so that the error reported
// is the root cause (an input limit, a failed decryption) and not what a
// higher layer made of it (a truncated tar entry).
type state struct {
	err *Error
}

func (s *state) set(e *Error) *Error {
	if s.err == nil {
		s.err = e
	}
	return s.err
}

// tap wraps a layer's reader, classifying its read errors and recording
// them in the shared state.
type tap struct {
	r        io.Reader
	st       *state
	classify func(error) *Error
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		if t.st.err != nil {
			return n, t.st.err
		}
		var be *Error
		if errors.As(err, &be) {
			return n, t.st.set(be)
		}
		return n, t.st.set(t.classify(err))
	}
	return n, err
}

// limitCounter counts the bytes that pass and fails once more than limit
// have passed, naming the limit.
type limitCounter struct {
	r     io.Reader
	n     int64
	limit int64
	st    *state
	err   func() *Error
}

func (c *limitCounter) Read(p []byte) (int, error) {
	if c.n > c.limit {
		return 0, c.st.set(c.err())
	}
	if rem := c.limit + 1 - c.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.limit {
		return 0, c.st.set(c.err())
	}
	return n, err
}

// classifiers for each layer's errors.

func classifyInput(err error) *Error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errorf(ErrMalformed, "truncated input")
	}
	return wrapf(ErrIO, err, "read input")
}

func classifyArmor(err error) *Error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errorf(ErrMalformed, "armor: truncated")
	}
	return wrapf(ErrMalformed, err, "armor")
}

func classifyAgePayload(err error) *Error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errorf(ErrMalformed, "age payload: truncated")
	}
	return wrapf(ErrMalformed, err, "age payload")
}

func (l Limits) classifyZstd(err error) *Error {
	switch {
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return limitError("zstd window", l.MaxWindow, "bytes", flagMaxWindow)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(ErrMalformed, "zstd: truncated")
	case errors.Is(err, zstd.ErrMagicMismatch):
		return errorf(ErrMalformed, "zstd: trailing data after the compressed stream")
	}
	return wrapf(ErrMalformed, err, "zstd")
}

// passphraseIdentity asks for a passphrase only when the bundle turns out
// to be a passphrase (scrypt) bundle, after checking its work factor
// against the limit, so that nobody is prompted for a bundle that will be
// refused anyway. Its failures are classified for Read.
type passphraseIdentity struct {
	ask       func() ([]byte, error)
	maxWF     int
	ctx       context.Context // interrupts the derivation; nil for none
	isScrypt  bool
	classifed *Error
}

func (p *passphraseIdentity) fail(e *Error) ([]byte, error) {
	p.classifed = e
	return nil, e
}

func (p *passphraseIdentity) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	var s *age.Stanza
	for _, st := range stanzas {
		if st.Type == "scrypt" {
			s = st
			break
		}
	}
	if s == nil {
		return nil, age.ErrIncorrectIdentity
	}
	p.isScrypt = true
	if len(stanzas) != 1 {
		return p.fail(errorf(ErrMalformed, "age header: a passphrase stanza must be the only one"))
	}
	if len(s.Args) != 2 {
		return p.fail(errorf(ErrMalformed, "age header: invalid passphrase stanza"))
	}
	if !isDigits(s.Args[1]) || s.Args[1][0] == '0' {
		return p.fail(errorf(ErrMalformed, "age header: invalid scrypt work factor"))
	}
	wf, err := strconv.Atoi(s.Args[1])
	if err != nil {
		wf = 1 << 30 // too many digits: over any limit
	}
	if wf > p.maxWF {
		return p.fail(errorf(ErrLimit, "scrypt work factor %s exceeds limit of %d (%s)", handoff.Shorten(s.Args[1], 12), p.maxWF, flagMaxScrypt))
	}
	if p.ask == nil {
		return p.fail(errorf(ErrNoIdentity, "encrypted to a passphrase and none was given"))
	}
	pass, err := p.ask()
	if err != nil {
		return p.fail(wrapf(ErrNoIdentity, err, "read passphrase"))
	}
	if len(pass) == 0 {
		return p.fail(errorf(ErrWrongPassphrase, "empty passphrase"))
	}
	id, err := crypto.NewScryptIdentity(pass, p.maxWF)
	if err != nil {
		return p.fail(wrapf(ErrMalformed, err, "scrypt identity"))
	}
	// scrypt does not stop for an interrupt: the derivation runs apart,
	// and an interrupt returns at once, leaving it to finish unheard.
	key, err := ctxio.Do(p.ctx, func() ([]byte, error) { return id.Unwrap(stanzas) })
	switch {
	case err == nil:
		return key, nil
	case p.ctx != nil && p.ctx.Err() != nil && errors.Is(err, p.ctx.Err()):
		return p.fail(wrapf(ErrIO, err, "derive the passphrase key"))
	case errors.Is(err, crypto.ErrWorkFactorTooHigh):
		return p.fail(errorf(ErrLimit, "scrypt work factor %d exceeds limit of %d (%s)", wf, p.maxWF, flagMaxScrypt))
	case errors.Is(err, crypto.ErrWrongPassphrase), errors.Is(err, age.ErrIncorrectIdentity):
		return p.fail(errorf(ErrWrongPassphrase, "wrong passphrase"))
	default:
		return p.fail(wrapf(ErrMalformed, err, "age header"))
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// classifyDecrypt maps an error of age.Decrypt (the header) to ours.
// armored says the bundle came as armor, perhaps pasted.
func classifyDecrypt(err error, pi *passphraseIdentity, armored bool) *Error {
	if pi.classifed != nil {
		return pi.classifed
	}
	var nm *age.NoIdentityMatchError
	switch {
	case errors.As(err, &nm):
		if pi.isScrypt {
			return errorf(ErrWrongPassphrase, "wrong passphrase")
		}
		// A recipient stanza that is not ours and one that was damaged
		// fail alike: age cannot tell them apart. A paste that lost a
		// line of the header, or took one from another bundle, is the
		// likelier cause of the two when armor arrives.
		if armored {
			return errorf(ErrNoIdentity, "no identity matches the bundle's recipients: the pasted armor may be damaged (a line lost, or taken from another bundle), or it is encrypted to someone else")
		}
		return errorf(ErrNoIdentity, "no identity matches the bundle's recipients: it is encrypted to someone else, or its header is damaged")
	case errors.Is(err, crypto.ErrWrongPassphrase):
		return wrapf(ErrWrongPassphrase, err, "decrypt")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errorf(ErrMalformed, "age header: truncated")
	}
	msg := err.Error()
	for _, p := range []string{"failed to read header: ", "parsing age header: "} {
		if i := bytes.Index([]byte(msg), []byte(p)); i >= 0 {
			msg = msg[i+len(p):]
		}
	}
	return &Error{Kind: ErrMalformed, Msg: untrusted.OneLine("age header: "+lowerFirst(msg), maxMessage), Err: err}
}

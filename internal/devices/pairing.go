package devices

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// PairingPrefix starts a pairing text.
const PairingPrefix = "session-handoff-pair:"

// MaxPairingText bounds a pairing text as read.
const MaxPairingText = 4 << 10

// ErrPairingText is wrapped when a text is not a pairing text, or was
// damaged on its way (its checksum does not match).
var ErrPairingText = errors.New("not a pairing text")

// PairingText is the one line 'devices add' prints for the user to paste
// on the other machine: PairingPrefix, then the unpadded URL-safe base64
// of "NAME\nSIGNING-KEY\nAGE-RECIPIENT", a dot, and the first 8 hex digits
// of that payload's SHA-256. The checksum catches a text cut or mistyped
// on its way; it proves nothing about who made it (see SECURITY.md:
// the user carries it, and compares the pairing code).
func (d Device) PairingText() string {
	payload := d.Name + "\n" + d.SigningKey + "\n" + d.Recipient
	return PairingPrefix + base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + checksum(payload)
}

func checksum(payload string) string {
	sum := sha256.Sum256([]byte(payload))
	return hex.EncodeToString(sum[:4])
}

// ParsePairingText reads a pairing text (white space around it, and
// inside it from a wrapped paste, is ignored) into the device it
// describes, checked as New checks.
func ParsePairingText(text string) (Device, error) {
	if len(text) > MaxPairingText {
		return Device{}, fmt.Errorf("%w: longer than %d bytes", ErrPairingText, MaxPairingText)
	}
	text = strings.Join(strings.Fields(text), "")
	body, ok := strings.CutPrefix(text, PairingPrefix)
	if !ok {
		return Device{}, fmt.Errorf("%w: it does not start with %q", ErrPairingText, PairingPrefix)
	}
	b64, sum, ok := strings.Cut(body, ".")
	if !ok {
		return Device{}, fmt.Errorf("%w: no checksum", ErrPairingText)
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(b64)
	if err != nil {
		return Device{}, fmt.Errorf("%w: damaged (%v)", ErrPairingText, err)
	}
	payload := string(raw)
	if checksum(payload) != sum {
		return Device{}, fmt.Errorf("%w: the checksum does not match: it was cut or changed on its way; copy it again", ErrPairingText)
	}
	f := strings.Split(payload, "\n")
	if len(f) != 3 {
		return Device{}, fmt.Errorf("%w: want a name and two keys", ErrPairingText)
	}
	return New(f[0], f[2], f[1])
}

// CodeBits is how many bits of a hash of both devices' keys the pairing
// code shows. An attacker who swaps both texts must make the two machines
// print one code: generate fake devices for each side until two codes
// meet, a collision found after about 2^(CodeBits/2) key pairs on each
// side. At 100 bits that is 2^50 key pairs, some 8,000 years of one core
// at the 80,000 key pairs in 18 s measured (SECURITY.md), where 32 bits
// fell in those 18 s.
const CodeBits = 100

// codeAlphabet writes the code, five bits a character: Crockford's
// base32 in lower case, without the letters read as digits (i, l, o) or
// rude words (u).
const codeAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// Code is the pairing code both machines print once each has the other's
// text: the same CodeBits bits on both sides, as 20 characters of
// codeAlphabet in five groups of four, when each got the other's keys as
// they were sent, whatever order they paired in.
func Code(a, b Device) string {
	ends := []string{a.SigningKey + " " + a.Recipient, b.SigningKey + " " + b.Recipient}
	slices.Sort(ends)
	sum := sha256.Sum256([]byte("session-handoff pairing code\n" + ends[0] + "\n" + ends[1]))
	var out strings.Builder
	for i := range CodeBits / 5 {
		if i > 0 && i%4 == 0 {
			out.WriteByte('-')
		}
		// Bits 5i to 5i+4 of the hash, most significant first.
		bit := i * 5
		v := (int(sum[bit/8])<<8 | int(sum[bit/8+1])) >> (11 - bit%8) & 31
		out.WriteByte(codeAlphabet[v])
	}
	return out.String()
}

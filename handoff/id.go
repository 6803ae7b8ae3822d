package handoff

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// IDLength is the number of characters in a handoff id.
const IDLength = 26

// crockford is Crockford's base32 alphabet: digits and upper-case letters
// without I, L, O and U, so ids survive being read aloud or retyped.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// An ID names one handoff. It is 26 characters of Crockford base32 over 128
// bits: 48 bits of milliseconds since the Unix epoch, then 80 random bits.
// Ids sort by creation time as plain strings and are unique across machines
// without coordination. Within one process ids are strictly increasing even
// when several are made in the same millisecond.
type ID string

var (
	idMu   sync.Mutex
	lastID [16]byte
)

// NewID returns a fresh id for time t.
func NewID(t time.Time) (ID, error) {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	if t.UnixMilli() < 0 || ms >= 1<<48 {
		return "", fmt.Errorf("time %s cannot be encoded in an id", t.UTC().Format(time.RFC3339))
	}
	binary.BigEndian.PutUint16(b[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(b[2:6], uint32(ms))
	if _, err := rand.Read(b[6:]); err != nil {
		return "", fmt.Errorf("read random bits for id: %w", err)
	}
	idMu.Lock()
	defer idMu.Unlock()
	// Same millisecond as the last id made here: increment the last id
	// instead, keeping the order strict.
	if string(b[:6]) == string(lastID[:6]) {
		b = lastID
		for i := 15; i >= 6; i-- {
			b[i]++
			if b[i] != 0 {
				break
			}
		}
	}
	lastID = b
	return ID(encodeBase32(b)), nil
}

// IDFromBytes encodes 16 bytes (48 bits of milliseconds, then 80 other
// bits) as an id. Use it to derive stable ids, for example when converting
// records from another format; NewID is for fresh ones.
func IDFromBytes(b [16]byte) ID {
	return ID(encodeBase32(b))
}

func encodeBase32(b [16]byte) string {
	// 128 bits in 26 characters: the first character carries 3 bits.
	var out [IDLength]byte
	hi := binary.BigEndian.Uint64(b[0:8])
	lo := binary.BigEndian.Uint64(b[8:16])
	for i := IDLength - 1; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

// ErrInvalidID is wrapped by errors for malformed ids.
var ErrInvalidID = errors.New("invalid handoff id")

// ParseID checks that s is a well-formed id and returns it in canonical
// (upper-case) form.
func ParseID(s string) (ID, error) {
	if len(s) != IDLength {
		return "", fmt.Errorf("%w: %s has %d characters, want %d", ErrInvalidID, untrusted.Quote(s, 40), len(s), IDLength)
	}
	up := strings.ToUpper(s)
	if up[0] > '7' {
		return "", fmt.Errorf("%w: %s is out of range", ErrInvalidID, untrusted.Quote(s, IDLength))
	}
	if i := strings.IndexFunc(up, func(r rune) bool { return !strings.ContainsRune(crockford, r) }); i >= 0 {
		return "", fmt.Errorf("%w: %q has a character outside Crockford base32 at position %d", ErrInvalidID, Shorten(s, 40), i+1)
	}
	return ID(up), nil
}

// ValidPrefix reports whether s could begin an id: non-empty, at most
// IDLength characters, all from the id alphabet (case-insensitive).
func ValidPrefix(s string) bool {
	if s == "" || len(s) > IDLength {
		return false
	}
	for _, r := range strings.ToUpper(s) {
		if !strings.ContainsRune(crockford, r) {
			return false
		}
	}
	return true
}

// Time returns the creation time encoded in the id, to the millisecond.
func (id ID) Time() time.Time {
	var ms uint64
	for i := 0; i < 10 && i < len(id); i++ {
		ms = ms<<5 | uint64(strings.IndexByte(crockford, id[i]))
	}
	// The first ten characters hold 50 bits: two bits of padding, then the
	// 48-bit time.
	return time.UnixMilli(int64(ms)).UTC()
}

// ShortLength is the length of a short id: the ten characters of the
// timestamp and three random ones, so ids made in the same millisecond
// still differ.
const ShortLength = 13

// Short returns the first ShortLength characters, enough to tell ids apart
// by eye and almost always a unique prefix.
func (id ID) Short() string {
	if len(id) < ShortLength {
		return string(id)
	}
	return string(id[:ShortLength])
}

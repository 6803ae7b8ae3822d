package remote

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/crypto"
)

// The layout of the inbox branch (docs/FORMAT.md §10):
//
//	session-handoff-inbox           "session-handoff-inbox 1\n"
//	to/<recipient-hex>/<bundle-id>.handoff
//	log/<sender-hex>.log            one line per bundle sent
//
// <recipient-hex> is the hex of crypto.RecipientHash of a recipient's
// canonical string, the very hash the bundle's signed manifest lists;
// <sender-hex> the same hash of the sender's signing key
// ("ssh-ed25519 BASE64").
const (
	markerFile    = "session-handoff-inbox"
	markerContent = "session-handoff-inbox 1\n"
	toDir         = "to"
	logDir        = "log"
	bundleExt     = ".handoff"
	logExt        = ".log"
	// CommitPrefix starts every commit message: "session-handoff: 2 bundles".
	commitPrefix = "session-handoff: "
)

// Limits on what is read from a remote.
const (
	// DefaultMaxBundle bounds one bundle file read from a remote unless
	// the caller's bundle limits say otherwise (MaxInput).
	DefaultMaxBundle = 64 << 20
	// MaxLogSize bounds a sender's log: larger ones are not read.
	MaxLogSize = 4 << 20
	// maxAttempts bounds the fetch, rebuild, push rounds of one send.
	maxAttempts = 5
)

// markerOK reports whether the marker file's tree entry holds exactly
// markerContent, from its object id alone (SHA-1 or SHA-256 object format).
func markerOK(e entry) bool {
	if !e.regular() || e.size != int64(len(markerContent)) {
		return false
	}
	obj := []byte(fmt.Sprintf("blob %d\x00%s", len(markerContent), markerContent))
	switch len(e.object) {
	case 40:
		sum := sha1.Sum(obj)
		return e.object == hex.EncodeToString(sum[:])
	case 64:
		sum := sha256.Sum256(obj)
		return e.object == hex.EncodeToString(sum[:])
	}
	return false
}

// hexOf returns the hex part of a "sha256:<hex>" recipient hash.
func hexOf(h string) string { return strings.TrimPrefix(h, "sha256:") }

// RecipientDir is the directory of the inbox that holds the bundles for
// the recipient whose crypto.RecipientHash is h.
func RecipientDir(h string) string { return toDir + "/" + hexOf(h) }

// BundlePath is where a bundle for recipient hash h lives in the inbox.
func BundlePath(h, bundleID string) string { return RecipientDir(h) + "/" + bundleID + bundleExt }

// LogPath is the log of the sender whose signing key hashes to h.
func LogPath(h string) string { return logDir + "/" + hexOf(h) + logExt }

// SenderHash is the hash that names a sender's log: crypto.RecipientHash
// of the signing key in canonical form.
func SenderHash(key crypto.PublicKey) string { return crypto.RecipientHash(key.String()) }

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// parseBundlePath splits "to/<64 hex>/<32 hex>.handoff" and reports
// whether path has exactly that shape.
func parseBundlePath(path string) (recipientHash, bundleID string, ok bool) {
	parts := strings.Split(path, "/")
	if len(parts) != 3 || parts[0] != toDir || !isHex(parts[1], 64) {
		return "", "", false
	}
	id, found := strings.CutSuffix(parts[2], bundleExt)
	if !found || !isHex(id, 32) {
		return "", "", false
	}
	return "sha256:" + parts[1], id, true
}

// parseLogPath reports the sender hash of "log/<64 hex>.log".
func parseLogPath(path string) (senderHash string, ok bool) {
	parts := strings.Split(path, "/")
	if len(parts) != 2 || parts[0] != logDir {
		return "", false
	}
	h, found := strings.CutSuffix(parts[1], logExt)
	if !found || !isHex(h, 64) {
		return "", false
	}
	return "sha256:" + h, true
}

// LogEntry is one line of a sender's log: when a bundle was sent and to
// which recipient hashes. Nothing else is logged.
type LogEntry struct {
	Time       time.Time `json:"time"`
	BundleID   string    `json:"bundle_id"`
	Recipients []string  `json:"recipients"`
}

// String renders the entry as its log line, without the newline:
// "2026-11-23T09:00:00.123Z<TAB>bundle-id<TAB>sha256:…,sha256:…".
func (e LogEntry) String() string {
	return e.Time.UTC().Format(timeFormat) + "\t" + e.BundleID + "\t" + strings.Join(e.Recipients, ",")
}

const timeFormat = "2006-01-02T15:04:05.000Z"

// parseLogLine reads one log line; anything that is not exactly a log
// entry is refused (callers skip it: a log is a claim, for display only).
func parseLogLine(line string) (LogEntry, error) {
	f := strings.Split(line, "\t")
	if len(f) != 3 {
		return LogEntry{}, fmt.Errorf("want 3 tab-separated fields")
	}
	t, err := time.Parse(timeFormat, f[0])
	if err != nil || t.Format(timeFormat) != f[0] {
		return LogEntry{}, fmt.Errorf("bad time")
	}
	if !isHex(f[1], 32) {
		return LogEntry{}, fmt.Errorf("bad bundle id")
	}
	e := LogEntry{Time: t.UTC(), BundleID: f[1]}
	for _, r := range strings.Split(f[2], ",") {
		if !strings.HasPrefix(r, "sha256:") || !isHex(hexOf(r), 64) {
			return LogEntry{}, fmt.Errorf("bad recipient hash")
		}
		e.Recipients = append(e.Recipients, r)
	}
	return e, nil
}

// parseLog reads the entries of a log, skipping lines that do not parse.
func parseLog(data []byte) []LogEntry {
	var out []LogEntry
	for _, line := range strings.Split(string(data), "\n") {
		if e, err := parseLogLine(strings.TrimRight(line, "\r")); err == nil {
			out = append(out, e)
		}
	}
	return out
}

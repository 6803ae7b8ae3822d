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

// The layouts of an inbox (docs/FORMAT.md §10). Layout 2, the one written:
//
//	refs/heads/handoffs             one commit: session-handoff-inbox, "session-handoff-inbox 2\n"
//	refs/heads/inbox/<recipient-hex>  one commit without parent: <bundle-id>.handoff ...
//
// Layout 1, read and migrated, never written:
//
//	refs/heads/handoffs             session-handoff-inbox, "session-handoff-inbox 1\n"
//	                                to/<recipient-hex>/<bundle-id>.handoff
//	                                log/<sender-hex>.log (never read)
//
// <recipient-hex> is the hex of crypto.RecipientHash of a recipient's
// canonical string, the very hash the bundle's signed manifest lists.
const (
	markerFile    = "session-handoff-inbox"
	markerContent = "session-handoff-inbox 1\n"
	// markerV2 marks the branch of a layout-2 inbox: its bundles are in
	// one ref per recipient, and this branch holds nothing else.
	markerV2  = "session-handoff-inbox 2\n"
	toDir     = "to"
	logDir    = "log"
	bundleExt = ".handoff"
	logExt    = ".log"
	// CommitPrefix starts every commit message: "session-handoff: 2 bundles".
	commitPrefix = "session-handoff: "
)

// Limits on what is read from a remote.
const (
	// DefaultMaxBundle bounds one bundle file read from a remote unless
	// the caller's bundle limits say otherwise (MaxInput).
	DefaultMaxBundle = 64 << 20
)

// markerVersion reports which layout the marker file's tree entry
// declares (1 or 2), from its object id alone (SHA-1 or SHA-256 object
// format); 0 means neither (another program's file, or a newer layout).
func markerVersion(e entry) int {
	for v, content := range map[int]string{1: markerContent, 2: markerV2} {
		if e.regular() && e.size == int64(len(content)) && e.object == blobID(content, len(e.object)) {
			return v
		}
	}
	return 0
}

// blobID is the git object id of a blob holding content, in the object
// format whose ids have n hex digits.
func blobID(content string, n int) string {
	obj := []byte(fmt.Sprintf("blob %d\x00%s", len(content), content))
	switch n {
	case 40:
		sum := sha1.Sum(obj)
		return hex.EncodeToString(sum[:])
	case 64:
		sum := sha256.Sum256(obj)
		return hex.EncodeToString(sum[:])
	}
	return ""
}

// refPrefix is the namespace of a layout-2 inbox's recipient refs:
// refs/heads/inbox/ beside the default branch, refs/heads/<branch>-inbox/
// beside any other.
func (r Remote) refPrefix() string {
	if r.branch() == DefaultBranch {
		return "refs/heads/inbox/"
	}
	return "refs/heads/" + r.branch() + "-inbox/"
}

// recipientRef is the ref of a layout-2 inbox that holds the bundles for
// the recipient whose hash is h.
func (r Remote) recipientRef(h string) string { return r.refPrefix() + hexOf(h) }

// markerRef is the inbox branch: layout 1's whole inbox, layout 2's marker.
func (r Remote) markerRef() string { return "refs/heads/" + r.branch() }

// parseBundleName reports the bundle id of "<32 hex>.handoff", the name
// of a bundle in a layout-2 recipient tree.
func parseBundleName(name string) (string, bool) {
	id, found := strings.CutSuffix(name, bundleExt)
	return id, found && isHex(id, 32)
}

// hexOf returns the hex part of a "sha256:<hex>" recipient hash.
func hexOf(h string) string { return strings.TrimPrefix(h, "sha256:") }

// RecipientDir is the directory of a layout-1 inbox that holds the
// bundles for the recipient whose crypto.RecipientHash is h.
func RecipientDir(h string) string { return toDir + "/" + hexOf(h) }

// SenderHash names a sender in pending sends and InboxEntry.From:
// crypto.RecipientHash of the signing key in canonical form.
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

// LogEntry is the part of a pending send that layout 1's senders' logs
// also held: when a bundle was made and to which recipient hashes.
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

// parseLogLine reads the three fields of a LogEntry; anything that is not
// exactly one is refused.
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

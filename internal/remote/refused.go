package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"sort"
	"strings"

	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// RefusedFile, in the data directory, remembers the bundles of my refs
// that a receive refused for their signer (the policy, judged from the
// envelope), by the git object that holds each: as long as the object,
// the trust store and the policy are what they were, a later receive
// reports the bundle as still refused without reading it again. A
// bundle's entry goes once it leaves my refs (dropped, or removed by
// anyone) or is read again.
const RefusedFile = "inbox-refused"

const (
	refusedHeader  = "session-handoff-inbox-refused 1"
	maxRefusedSize = 16 << 20
	maxTrustRead   = 16 << 20
)

// refusal is one remembered refusal: the remote, the git object of the
// bundle file, its bundle id, the state it was refused in (refusalState)
// and why.
type refusal struct {
	remote, object, bundleID, state, reason string
}

func (r refusal) key() string { return r.remote + "\x00" + r.object + "\x00" + r.state }

func refusedPath(dataDir string) string { return filepath.Join(dataDir, RefusedFile) }

// refusalState names what a refusal by the policy depends on: the trust
// store's bytes and the policy's signer rules. Any change to either, and
// remembered refusals are read again.
func refusalState(keys exchange.Keyring, pol exchange.Policy) (string, error) {
	h := sha256.New()
	data, err := safefile.ReadFile(keys.TrustPath(), maxTrustRead)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read trust store: %w", err)
	}
	signers := append([]string(nil), pol.Signers...)
	sort.Strings(signers)
	fmt.Fprintf(h, "%d\n%s\n%t %t %t %t\n%s\n", len(data), data, pol.AllowUntrusted, pol.AllowUnsigned, pol.AllowOtherRecipients, pol.TOFU, strings.Join(signers, " "))
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// loadRefusals reads the remembered refusals; a missing file is none, and
// a damaged one is read as none (it only saves work).
func loadRefusals(dataDir string) map[string]refusal {
	out := map[string]refusal{}
	data, err := safefile.ReadFile(refusedPath(dataDir), maxRefusedSize)
	if err != nil {
		return out
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 || lines[0] != refusedHeader {
		return out
	}
	for _, line := range lines[1:] {
		f := strings.SplitN(line, "\t", 5)
		if len(f) != 5 || !(isHex(f[1], 40) || isHex(f[1], 64)) || !isHex(f[2], 32) || !isHex(f[3], 32) {
			continue
		}
		r := refusal{remote: f[0], object: f[1], bundleID: f[2], state: f[3], reason: f[4]}
		out[r.key()] = r
	}
	return out
}

// saveRefusals replaces what is remembered for remote in state with now,
// under the file's lock, atomically. What other remotes hold is kept, and
// what other states of this remote hold while its object is still in my
// refs (present): a refusal under an older trust store is forgotten once
// its bundle is gone.
func saveRefusals(dataDir, remote, state string, now []refusal, present map[string]bool) (err error) {
	lock, err := safefile.LockFile(refusedPath(dataDir) + ".lock")
	if err != nil {
		return fmt.Errorf("lock %s: %w", RefusedFile, err)
	}
	defer func() {
		if uerr := lock.Unlock(); uerr != nil && err == nil {
			err = uerr
		}
	}()
	old := loadRefusals(dataDir)
	all := map[string]refusal{}
	for k, r := range old {
		if r.remote != remote || r.state != state && present[r.object] {
			all[k] = r
		}
	}
	for _, r := range now {
		r.remote, r.state, r.reason = remote, state, ledgerDetail(r.reason)
		all[r.key()] = r
	}
	if maps.Equal(old, all) {
		return nil
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(refusedHeader + "\n")
	for _, k := range keys {
		r := all[k]
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", r.remote, r.object, r.bundleID, r.state, r.reason)
	}
	if err := safefile.WriteFile(refusedPath(dataDir), []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", RefusedFile, err)
	}
	return nil
}

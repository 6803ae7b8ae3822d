package remote

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// receivedFile, in the clone's state directory, says what the last
// receive that left nothing behind saw:
//
//	session-handoff-received 1
//	ledger <bytes>          the ledger's size once it had recorded all
//	earlier <n>             bundles of mine the ledger then recorded
//	<oid> <ref>             the inbox branch and my refs, as it left them
//
// A receive that finds the same refs on the remote (one ls-remote) and
// the same ledger has nothing to do: every bundle in my refs is recorded
// in the ledger, as that receive found. Written only by a receive after
// which nothing of mine is waiting: every bundle imported or rejected for
// good and recorded, the removal of delivered bundles done.
const (
	receivedFile   = "received"
	receivedHeader = "session-handoff-received 1"
	maxReceived    = 64 << 10
)

// received is the content of receivedFile.
type received struct {
	ledger  int64
	earlier int
	refs    refState
}

// nothingNew asks the remote for the commits of my refs and reports
// whether they, and the ledger, are as the last receive that left nothing
// behind saw them; if so it returns that receive's result without its
// items. Otherwise the answer is kept for the sync that follows.
func (c *clone) nothingNew(ctx context.Context, dirs []string, ledger string) (*ReceiveResult, bool, error) {
	want, err := c.lsRemote(ctx, c.myRefs(dirs)...)
	if err != nil {
		return nil, false, err
	}
	c.seen = want
	last, ok := c.loadReceived()
	if !ok || !maps.Equal(last.refs, want) || last.ledger != fileSize(ledger) {
		return nil, false, nil
	}
	return &ReceiveResult{Remote: c.remote.Name, Commit: want[c.remote.markerRef()], Directories: dirs, Items: []Item{}, Earlier: last.earlier}, true, nil
}

// loadReceived reads receivedFile; ok is false when there is none, or it
// cannot be read as one.
func (c *clone) loadReceived() (received, bool) {
	data, err := safefile.ReadRegular(c.state(receivedFile), maxReceived)
	if err != nil {
		return received{}, false
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 4 || lines[0] != receivedHeader || lines[len(lines)-1] != "" {
		return received{}, false
	}
	var r received
	ledger, ok1 := strings.CutPrefix(lines[1], "ledger ")
	earlier, ok2 := strings.CutPrefix(lines[2], "earlier ")
	if r.ledger, err = strconv.ParseInt(ledger, 10, 64); !ok1 || err != nil {
		return received{}, false
	}
	if r.earlier, err = strconv.Atoi(earlier); !ok2 || err != nil {
		return received{}, false
	}
	r.refs = refState{}
	for _, line := range lines[3 : len(lines)-1] {
		oid, ref, ok := strings.Cut(line, " ")
		if !ok || !(isHex(oid, 40) || isHex(oid, 64)) {
			return received{}, false
		}
		r.refs[ref] = oid
	}
	return r, true
}

// saveReceived writes receivedFile, without syncing its directory: lost,
// it only makes the next receive do its work.
func (c *clone) saveReceived(r received) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nledger %d\nearlier %d\n", receivedHeader, r.ledger, r.earlier)
	for ref, oid := range r.refs {
		fmt.Fprintf(&b, "%s %s\n", oid, ref)
	}
	return safefile.Place(c.state(receivedFile), []byte(b.String()), 0o600, false)
}

// forgetReceived removes receivedFile, before a receive that may leave
// something behind changes anything.
func (c *clone) forgetReceived() error {
	if err := os.Remove(c.state(receivedFile)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// fileSize is the size of the file at path, or -1 when it cannot be
// read.
func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return info.Size()
}

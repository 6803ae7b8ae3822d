package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// LedgerFile is the receive ledger in the data directory: one line per
// bundle imported or rejected, so that each is dealt with once.
const LedgerFile = "inbox-ledger"

const (
	ledgerHeader  = "session-handoff-inbox-ledger 1"
	maxLedgerSize = 256 << 20
	maxReason     = 300
)

// Ledger outcomes.
const (
	ledgerImported = "imported"
	ledgerRejected = "rejected"
)

// ledgerEntry is one line: time, bundle id, outcome, remote, and the
// handoff id (imported) or the reason (rejected).
type ledgerEntry struct {
	Time     time.Time
	BundleID string
	Outcome  string
	Remote   string
	Detail   string
}

// ledger is the receive ledger of a data directory.
type ledger struct {
	path    string
	entries map[string]ledgerEntry
}

func ledgerPath(dataDir string) string { return filepath.Join(dataDir, LedgerFile) }

// loadLedger reads the ledger without a lock: it is only ever appended to,
// and a last line without its newline (a torn append) is ignored.
func loadLedger(dataDir string) (*ledger, error) {
	l := &ledger{path: ledgerPath(dataDir), entries: map[string]ledgerEntry{}}
	data, err := safefile.ReadFile(l.path, maxLedgerSize)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read ledger %s: %w", l.path, err)
	}
	lines := strings.Split(string(data), "\n")
	// The last element is what follows the final newline: empty, or torn.
	lines = lines[:len(lines)-1]
	if len(lines) == 0 {
		return l, nil
	}
	if lines[0] != ledgerHeader {
		return nil, fmt.Errorf("%s:1: not a session-handoff ledger (want %q)", l.path, ledgerHeader)
	}
	for i, line := range lines[1:] {
		f := strings.SplitN(line, "\t", 5)
		if len(f) != 5 || !isHex(f[1], 32) || (f[2] != ledgerImported && f[2] != ledgerRejected) {
			return nil, fmt.Errorf("%s:%d: damaged ledger line", l.path, i+2)
		}
		t, err := time.Parse(time.RFC3339Nano, f[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: damaged ledger line", l.path, i+2)
		}
		l.entries[f[1]] = ledgerEntry{Time: t, BundleID: f[1], Outcome: f[2], Remote: f[3], Detail: f[4]}
	}
	return l, nil
}

// recordAll appends es under the ledger's lock, with one write and one
// fsync, synced before it returns.
func (l *ledger) recordAll(es []ledgerEntry) (err error) {
	if len(es) == 0 {
		return nil
	}
	lock, err := safefile.LockFile(l.path + ".lock")
	if err != nil {
		return fmt.Errorf("lock ledger: %w", err)
	}
	defer func() {
		if uerr := lock.Unlock(); uerr != nil && err == nil {
			err = uerr
		}
	}()
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open ledger: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	size := info.Size()
	if size > 0 {
		if size, err = dropTornLine(f, size); err != nil {
			return err
		}
	}
	var b strings.Builder
	if size == 0 {
		b.WriteString(ledgerHeader + "\n")
	}
	for i, e := range es {
		es[i].Detail = ledgerDetail(e.Detail)
		e = es[i]
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", e.Time.UTC().Format(timeFormat), e.BundleID, e.Outcome, e.Remote, e.Detail)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		return fmt.Errorf("write ledger: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync ledger: %w", err)
	}
	for _, e := range es {
		l.entries[e.BundleID] = e
	}
	return nil
}

// ledgerDetail makes a handoff id or a reason one line of at most
// maxReason bytes, cut on a character's start.
func ledgerDetail(s string) string {
	detail := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(detail) > maxReason {
		detail = detail[:maxReason]
		for len(detail) > 0 && !utf8Start(detail[len(detail)-1]) {
			detail = detail[:len(detail)-1]
		}
	}
	return detail
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// dropTornLine truncates a final line left without its newline by a crash,
// so the next append starts on a line of its own.
func dropTornLine(f *os.File, size int64) (int64, error) {
	const window = 4096
	start := max(size-window, 0)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil {
		return 0, fmt.Errorf("read ledger: %w", err)
	}
	if buf[len(buf)-1] == '\n' {
		return size, nil
	}
	i := strings.LastIndexByte(string(buf), '\n')
	if i < 0 && start > 0 {
		return 0, errors.New("ledger: last line is longer than 4096 bytes")
	}
	size = start + int64(i+1)
	if err := f.Truncate(size); err != nil {
		return 0, fmt.Errorf("repair ledger: %w", err)
	}
	return size, nil
}

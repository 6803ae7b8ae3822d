package devsync

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// PullTimeFile, in the data directory, is how long the last pull that
// went through took, in milliseconds:
//
//	session-handoff-sync-pull-time 1
//	MILLISECONDS
//
// Session start waits for the pull it starts only when the remote
// answered that fast last time (hooks.Options.PullWait), so a remote
// across the world costs a session start nothing.
const PullTimeFile = "sync-pull-time"

const pullTimeHeader = "session-handoff-sync-pull-time 1"

// RecordPullTime writes d as the last pull's time.
func RecordPullTime(dataDir string, d time.Duration) error {
	data := fmt.Appendf(nil, "%s\n%d\n", pullTimeHeader, d.Milliseconds())
	return safefile.WriteFile(filepath.Join(dataDir, PullTimeFile), data, 0o600)
}

// LastPullTime is the last pull's time, and false when none is recorded
// or the file is not one of ours.
func LastPullTime(dataDir string) (time.Duration, bool) {
	data, err := safefile.ReadRegular(filepath.Join(dataDir, PullTimeFile), 128)
	if err != nil {
		return 0, false
	}
	head, ms, _ := strings.Cut(strings.TrimSuffix(string(data), "\n"), "\n")
	n, err := strconv.ParseInt(ms, 10, 64)
	if head != pullTimeHeader || err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(n) * time.Millisecond, true
}

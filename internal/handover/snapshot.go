package handover

import (
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
)

// ModeTagPrefix starts the tag that records a snapshot's session mode
// (snapshot --mode build: the tag mode:build), as agent-handoff's
// snapshot --mode labelled a session.
const ModeTagPrefix = "mode:"

// ModeTag is the tag recording mode, or an error when mode cannot be one.
func ModeTag(mode string) (string, error) {
	t := ModeTagPrefix + strings.ToLower(strings.TrimSpace(mode))
	if !handoff.ValidTag(t) {
		return "", fmt.Errorf("--mode %q: want a short word of letters, digits, '.', '_' or '-'", handoff.Shorten(mode, 40))
	}
	return t, nil
}

// SnapshotText is HANDOFF.md as snapshot writes it: a few lines that say
// what made it, the session's mode, and where the agent's identity and
// memory are (SOUL.md and MEMORY.md, when identity says they are beside
// it), then the rendered handoff, which holds the branch, recent commits,
// uncommitted changes, the project's kind and its build and test commands.
func SnapshotText(rec *handoff.Record, mode string, identity bool, rendered string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Snapshot of %s, made by session-handoff snapshot at %s", handoff.CleanText(handoff.Shorten(rec.Project.Name, 128)), rec.CreatedAt.Format("2006-01-02 15:04 MST"))
	if mode != "" {
		fmt.Fprintf(&b, " in %s mode", handoff.CleanText(mode))
	}
	b.WriteString(".\n")
	if identity {
		b.WriteString("Read SOUL.md (who you are) and MEMORY.md (what you know), beside this file, first; then this handoff.\n")
	}
	b.WriteString("\n")
	b.WriteString(rendered)
	return b.String()
}

package memory

import (
	"errors"
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// The earlier agent-handover tool wrote the same three layers, in the same
// places, each file opening with
//
//	<!-- agent-handover | layerN | YYYY-MM-DD -->
//
// followed by the content as given (its MemoryStore.write; see
// ../shared/seeds/agent-handover-001.txt): no tag in the header (it is in
// the file name) and no entry markers. Such a file reads as the current
// form would hold it: a layer-1 note or layer-3 archive as one entry of
// that date, the state file as its text. The next write of the file
// rewrites it in the current form, keeping that entry.

// olderPrefix starts the header line of agent-handover's files.
const olderPrefix = "<!-- agent-handover |"

// parseOlder reads a file of agent-handover's whose path implies want.
func parseOlder(data []byte, want Header) (*Doc, error) {
	first, rest, err := splitHeader(data)
	if err != nil {
		return nil, err
	}
	inner, ok := strings.CutSuffix(first, "-->")
	if !ok {
		return nil, errors.New("line 1: agent-handover header: not a whole comment line")
	}
	parts := strings.Split(strings.TrimPrefix(inner, "<!--"), "|")
	if len(parts) != 3 || strings.TrimSpace(parts[0]) != "agent-handover" {
		return nil, errors.New("line 1: agent-handover header: want <!-- agent-handover | layerN | YYYY-MM-DD -->")
	}
	layer, date := strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
	if layer != fmt.Sprintf("layer%d", want.Layer) {
		return nil, fmt.Errorf("line 1: agent-handover header: %s, but the file is a layer-%d file", untrusted.Quote(layer, 32), want.Layer)
	}
	if err := ValidDate(date); err != nil {
		return nil, fmt.Errorf("line 1: agent-handover header: %w", err)
	}
	d := &Doc{Header: want, Older: true}
	if !hasEntries(want.Layer) {
		d.Header.Date = date
		d.Text = rest
		return d, nil
	}
	if err := want.checkEntryDate(date); err != nil {
		return nil, fmt.Errorf("line 1: agent-handover header: %w", err)
	}
	d.Entries = []Entry{{Date: date, Body: rest}}
	return d, nil
}

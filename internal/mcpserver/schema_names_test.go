package mcpserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/targets"
)

// The agents a tool's schema names come from the tables: handoff_capture's
// from enumerates every agent capture reads and auto; the descriptions list
// them, and the targets, with no placeholder left.
func TestSchemaNamesFromTheTable(t *testing.T) {
	s := inputSchema[captureInput](map[string]bound{"from": {enum: anys(append(capture.AgentNames(), "auto")), names: append(capture.AgentNames(), "auto")}})
	from := s.Properties["from"]
	var got []string
	for _, v := range from.Enum {
		got = append(got, v.(string))
	}
	if want := append(capture.AgentNames(), "auto"); !slices.Equal(got, want) {
		t.Errorf("from enum %v, want %v", got, want)
	}
	for _, n := range agents.Names() {
		if !strings.Contains(from.Description, n) {
			t.Errorf("from's description %q does not name %s", from.Description, n)
		}
	}
	r := inputSchema[renderInput](map[string]bound{"target": {names: targets.Names()}})
	if d := r.Properties["target"].Description; !strings.Contains(d, agents.OrList(targets.Names()...)) || strings.Contains(d, namesMark) {
		t.Errorf("target's description %q", d)
	}
	defer func() {
		if recover() == nil {
			t.Error("a description left with its placeholder did not panic")
		}
	}()
	inputSchema[renderInput](nil)
}

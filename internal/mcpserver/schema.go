package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
)

// bound is a size limit on one property of a tool's input, written into
// its JSON Schema so that the SDK refuses a larger argument before the
// tool runs, and an agent sees the limit in tools/list.
type bound struct {
	maxLength int // of a string, or of each string of an array
	maxItems  int // of an array
	enum      []any
	// names replace {names} in the property's description, as a list
	// ("a, b or c"): the agents and targets come from their tables.
	names []string
}

// namesMark stands in a jsonschema tag for a list that is computed.
const namesMark = "{names}"

// Bounds shared by the tools: the record's own limits (handoff.MaxTitle…),
// and short ones for references and names.
var (
	boundRef     = bound{maxLength: 64}  // an id, prefix or "latest"
	boundName    = bound{maxLength: 64}  // a tool, target or agent name
	boundQuery   = bound{maxLength: 256} // a search string, a project
	boundBudget  = bound{maxLength: 32}
	boundTitle   = bound{maxLength: handoff.MaxTitle}
	boundSummary = bound{maxLength: handoff.MaxText}
	boundItems   = bound{maxLength: handoff.MaxItem, maxItems: handoff.MaxItems}
	boundTags    = bound{maxLength: handoff.MaxTag, maxItems: handoff.MaxItems}
)

// inputSchema infers the JSON Schema of a tool's input type (every
// property described by its jsonschema tag; required unless omitempty;
// no other property allowed) and writes the bounds into it.
func inputSchema[In any](bounds map[string]bound) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema: %v", err))
	}
	for name, b := range bounds {
		p, ok := s.Properties[name]
		if !ok {
			panic(fmt.Sprintf("mcpserver: bound on unknown property %q", name))
		}
		target := p
		if p.Type == "array" || slices.Contains(p.Types, "array") {
			if b.maxItems > 0 {
				p.MaxItems = jsonschema.Ptr(b.maxItems)
			}
			target = p.Items
		}
		if b.maxLength > 0 {
			target.MaxLength = jsonschema.Ptr(b.maxLength)
		}
		if b.enum != nil {
			target.Enum = b.enum
		}
		if b.names != nil {
			p.Description = strings.ReplaceAll(p.Description, namesMark, agents.OrList(b.names...))
		}
	}
	for name, p := range s.Properties {
		if strings.Contains(p.Description, namesMark) {
			panic(fmt.Sprintf("mcpserver: property %q: %s without names", name, namesMark))
		}
	}
	return s
}

// addTool registers a tool with its inferred and bounded input schema
// (the output schema is inferred from Out), run safely behind gate.
func addTool[In, Out any](srv *mcp.Server, gate chan struct{}, t *mcp.Tool, bounds map[string]bound, h func(context.Context, In) (*mcp.CallToolResult, Out, error)) {
	t.InputSchema = inputSchema[In](bounds)
	mcp.AddTool(srv, t, safely(t.Name, gate, h))
}

//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// TestSearchPastSessions: with the hooks and the MCP server installed and
// the search index built, a session ends (the session-end hook captures
// it and updates the index, waited for here), and the next session's
// model calls handoff_search through MCP: the tool's answer to the model
// carries the first session's request with the hit marked, which neither
// the query nor the briefing holds. Claude Code only: the scenario was
// run against it.
func TestSearchPastSessions(t *testing.T) {
	forAgents(t, []agent{claudeCode}, func(t *testing.T, w *world) {
		w.sh("integrate", w.agent.name)
		w.sh("integrate", w.agent.name, "--mcp")
		w.agent.approveMCP(w)
		w.agent.trustHooks(w)
		w.sh("search", "--reindex")
		// The hooks start the index's update in a process of its own;
		// this makes them wait for it.
		w.env = append(w.env, "SESSION_HANDOFF_SEARCH_WAIT=1")

		const marker = "zanzibar"
		w.session("write the "+marker+" note into quokka.txt",
			fakemodel.Turn{Calls: []fakemodel.Call{w.agent.writeFile(w, "quokka.txt", "a note\n")}},
			fakemodel.Turn{Text: "Wrote it."})
		if out := w.sh("search", marker, "--no-update", "--json"); !strings.Contains(out, "«"+marker+"»") {
			t.Fatalf("the session-end hook left the session out of the index: search %s --no-update:\n%s", marker, out)
		}

		var turns []fakemodel.Turn
		if c := w.agent.toolSearch; c != nil {
			turns = append(turns, fakemodel.Turn{Calls: []fakemodel.Call{{Name: c.Name, Args: map[string]any{"query": "select:" + w.agent.mcpTool("handoff_search")}}}})
		}
		turns = append(turns,
			fakemodel.Turn{Calls: []fakemodel.Call{{Name: w.agent.mcpTool("handoff_search"), Args: map[string]any{"query": marker}}}},
			fakemodel.Turn{Text: "Found it."})
		main := mainRequests(w.session("where did we write that note?", turns...))
		if len(main) < 2 {
			t.Fatalf("the second session sent the model %d requests with tools", len(main))
		}
		if hasString(main[0].Body, "«"+marker+"»") {
			t.Fatal("the first request already holds the marked hit: the check below proves nothing")
		}
		if !hasString(main[0].Body, "can be searched with session-handoff's MCP tool handoff_search") {
			t.Errorf("the briefing does not point to handoff_search:\n%s", clip(string(main[0].Body)))
		}
		if last := main[len(main)-1].Body; !hasString(last, "«"+marker+"»") || !hasString(last, "quokka.txt") {
			t.Errorf("handoff_search's answer to the model lacks the first session's request:\n%s", clip(string(last)))
		}
	})
}

// hasString says whether a string in the JSON body (escapes decoded)
// contains s.
func hasString(body []byte, s string) bool {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return strings.Contains(string(body), s)
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			return strings.Contains(x, s)
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case map[string]any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

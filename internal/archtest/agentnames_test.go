package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
)

// allowedLiterals are the string literals, by file and by how they start,
// that name agents but are no list of agents to derive from the table.
var allowedLiterals = map[string][]string{
	// Wire formats: the word is the agent's format or API, not our name
	// for the agent (Gemini CLI's message type "gemini", the Gemini API,
	// the JSON keys the fast parser interns).
	"internal/jsonfast/jsonfast.go":       {"gemini"},
	"internal/e2e/fakemodel/fakemodel.go": {"gemini"},
	// The generator of the three agents' transcripts for tests spells
	// their names: the table imports the readers whose tests use it.
	"internal/transcriptgen/transcriptgen.go": {"gemini", "claude-code", "codex"},
	// A word that marks a provider's key in an assignment (GEMINI_KEY=),
	// whatever agent is running.
	"internal/redact/assign.go": {"gemini"},
	// Examples (command lines to copy, one agent each) and prose about
	// each agent's own files, commands and variables: the agents' own
	// facts, until each agent's knowledge moves into its folder.
	"cmd/session-handoff/capturecmd.go":   {"  session-handoff capture --from "},
	"cmd/session-handoff/helptopics.go":   {"SESSION_HANDOFF_HOME\n"},
	"cmd/session-handoff/integratecmd.go": {"  session-handoff integrate ", "  integrate claude-code --plugin DIR | gemini --extension DIR"},
	"cmd/session-handoff/launch.go":       {"Renders the handoff as a prompt for the target", "  session-handoff launch --target "},
	"cmd/session-handoff/rendercmd.go":    {"  session-handoff render latest --target "},
}

// TestAgentNamesOnlyInTheTable fails when an agent's name is spelled out
// as a Go string literal outside internal/agents (the table and each
// agent's folder) and tests: every list, help text, completion and schema
// enumeration of agents must derive from the table (issue 36).
func TestAgentNamesOnlyInTheTable(t *testing.T) {
	var names []string
	for _, a := range agents.All() {
		names = append(names, regexp.QuoteMeta(a.Name))
	}
	word := regexp.MustCompile(`(^|[^a-z0-9_-])(` + strings.Join(names, "|") + `)($|[^a-z0-9_-])`)
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	used := map[string]bool{}
	err := eachGoFile(root, func(path, rel string) error {
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "internal/agents/") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !namesAgents(word, s) {
				return true
			}
			for _, a := range allowedLiterals[rel] {
				if a == s || len(a) > 16 && strings.HasPrefix(s, a) {
					used[rel+"\x00"+a] = true
					return true
				}
			}
			t.Errorf("%s: %q names an agent: take it from internal/agents", fset.Position(lit.Pos()), s)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for file, lits := range allowedLiterals {
		for _, s := range lits {
			if !used[file+"\x00"+s] {
				t.Errorf("allowedLiterals: %s no longer holds %q: drop it from the list", file, s)
			}
		}
	}
}

// namesAgents says whether s is an agent's name, or a list that names two
// agents or more: a single mention in a sentence, a path or an example
// command line is the agent's own text, not a list of agents.
func namesAgents(word *regexp.Regexp, s string) bool {
	found := map[string]bool{}
	for _, m := range word.FindAllStringSubmatch(s, -1) {
		found[m[2]] = true
	}
	if len(found) == 0 {
		return false
	}
	return len(found) > 1 || word.FindStringSubmatch(s)[2] == strings.TrimSpace(s)
}

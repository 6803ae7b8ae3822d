// Command gen writes what the repository says of each agent outside its
// folder from the agents table (internal/agents), so that adding an agent
// is its folder and one line of the table: README.md's row for an agent
// that has none (its facts from the table; a row already there is the
// maintainers' and kept), and each agent's pin in internal/e2e/versions.env
// (agents.PinVar, the version the table says was checked). The render
// goldens are written by the next go:generate line of internal/agents
// (go test ./render -update). Run it as go generate ./internal/agents.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	if err := rewrite(filepath.Join(root, "README.md"), readmeRows); err != nil {
		return err
	}
	return rewrite(filepath.Join(root, "internal", "e2e", "versions.env"), pins)
}

// rewrite replaces the file at path by edit of its content, when that
// changes it.
func rewrite(path string, edit func([]byte) ([]byte, error)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := edit(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(out, data) {
		return nil
	}
	return safefile.WriteFile(path, out, 0o644)
}

// tableHeader starts README.md's table of what each agent gets.
const tableHeader = "| agent | `sessions`, `capture` |"

// readmeRows adds to README.md's table of agents a row for each agent of
// the table that has none, before the rows of targets that are no agent's
// (the last rows whose first cell names no agent).
func readmeRows(data []byte) ([]byte, error) {
	lines := strings.Split(string(data), "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, tableHeader) {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no table starting %q", tableHeader)
	}
	end := start + 2 // past the header and its rule
	have := map[string]bool{}
	insert := -1
	for ; end < len(lines) && strings.HasPrefix(lines[end], "| "); end++ {
		first := strings.TrimSpace(strings.Split(lines[end], "|")[1])
		have[first] = true
		if insert < 0 && !namesAnAgent(first) {
			insert = end
		}
	}
	if insert < 0 {
		insert = end
	}
	var add []string
	for _, a := range agents.All() {
		if !have[rowName(a)] {
			add = append(add, row(a))
		}
	}
	if len(add) == 0 {
		return data, nil
	}
	out := append(append(append([]string(nil), lines[:insert]...), add...), lines[insert:]...)
	return []byte(strings.Join(out, "\n")), nil
}

// rowName is the first cell of an agent's row.
func rowName(a agents.Agent) string { return a.Display + " (`" + a.Name + "`)" }

// namesAnAgent says whether a row's first cell is an agent's of the table.
func namesAnAgent(cell string) bool {
	for _, a := range agents.All() {
		if cell == rowName(a) {
			return true
		}
	}
	return false
}

// row is the README row of an agent, from the table's facts.
func row(a agents.Agent) string {
	sessions := "yes"
	if a.SessionsHelp != "" {
		sessions += " (`" + a.SessionsHelp + "`)"
	}
	files := "`" + a.InstructionFile + "`"
	if a.Profile.PersonalFile != "" {
		files += ", `" + a.Profile.PersonalFile + "`"
	}
	hooks := "no"
	if a.HookSpec != nil {
		hooks = "yes, `" + a.HookSpec.ProjectSettings + "`"
	}
	mcp := "no"
	if r := a.Profile.MCP; r != nil {
		mcp = "yes, `" + r.ProjectFile + "`"
		if r.ProjectFile == "" {
			mcp = "yes, `" + r.UserFile + "`"
		}
	}
	return "| " + strings.Join([]string{rowName(a), sessions, files, hooks, mcp, a.Checked}, " | ") + " |"
}

// pins sets each agent's pin in versions.env to the version the table
// says was checked, adding the pins that are missing at the end.
func pins(data []byte) ([]byte, error) {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	done := map[string]bool{}
	for i, l := range lines {
		key, _, ok := strings.Cut(l, "=")
		if !ok || strings.HasPrefix(key, "#") {
			continue
		}
		for _, a := range agents.All() {
			if key == agents.PinVar(a.Name) {
				lines[i], done[a.Name] = key+"="+a.Checked, true
			}
		}
	}
	for _, a := range agents.All() {
		if !done[a.Name] {
			lines = append(lines, agents.PinVar(a.Name)+"="+a.Checked)
		}
	}
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

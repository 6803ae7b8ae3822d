package integrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/jsonc"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/targets"
)

// MCPServerName is the name our MCP server is registered under.
const MCPServerName = "session-handoff"

// MCPServer is how an agent starts our MCP server: a program and its
// arguments, run without a shell.
type MCPServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// NewMCPServer is the server entry for agent, running program.
func NewMCPServer(program, agent string) MCPServer {
	return MCPServer{Command: program, Args: []string{"mcp", "--agent", agent}}
}

// ErrMCPUserScope is wrapped when an agent's user-wide MCP servers live in
// a file we do not edit; the error's hint is the agent's own command.
var ErrMCPUserScope = errors.New("the agent keeps its user-wide MCP servers in a file it rewrites itself")

// MCPPath is the file that registers MCP servers for the agent: the
// project's, or with user the user's own in the agent's directory (which
// CODEX_HOME or GEMINI_CLI_HOME may move). Claude Code's user servers live
// in ~/.claude.json, which Claude Code rewrites as it runs: that is not
// edited, and the error (ErrMCPUserScope) says the command to run.
func MCPPath(agent, projectRoot, home string, user bool, getenv func(string) string) (string, *targets.MCPRegistration, error) {
	p, err := targets.Lookup(agent)
	if err != nil || p.MCP == nil {
		return "", nil, fmt.Errorf("%s: no MCP registration known for it", agent)
	}
	reg := p.MCP
	if !user && reg.ProjectFile == "" {
		return "", reg, fmt.Errorf("%s registers MCP servers for the user only, in %s: use --user", p.Agent, reg.UserFile)
	}
	if !user {
		path := filepath.Join(projectRoot, filepath.FromSlash(reg.ProjectFile))
		if err := inProject(projectRoot, path); err != nil {
			return "", reg, err
		}
		return path, reg, nil
	}
	if reg.RegisterUser != "" {
		return "", reg, fmt.Errorf("%w (%s)", ErrMCPUserScope, reg.UserFile)
	}
	if info, ok := agents.Find(agent); ok {
		if dirs := info.Dirs(home, getenv); len(dirs) > 0 {
			// UserFile less ~/ and the agent's directory where no
			// variable moves it: "~/.copilot/mcp-config.json" is
			// mcp-config.json there, "~/.config/opencode/opencode.json"
			// opencode.json.
			own := filepath.ToSlash(info.Dirs(home, func(string) string { return "" })[0])
			own = strings.TrimPrefix(strings.TrimPrefix(own, filepath.ToSlash(home)), "/")
			rest, ok := strings.CutPrefix(strings.TrimPrefix(reg.UserFile, "~/"), own+"/")
			if !ok {
				_, rest, _ = strings.Cut(strings.TrimPrefix(reg.UserFile, "~/"), "/")
			}
			return filepath.Join(dirs[0], filepath.FromSlash(rest)), reg, nil
		}
	}
	return "", reg, fmt.Errorf("%s: its settings directory is not known", agent)
}

// mcpKey is the name an MCP install is recorded under in the state
// directory: not the file's path alone, since the same settings file
// (Gemini's) may also hold our hooks, recorded under its path.
func mcpKey(path string) string { return path + "#mcp" }

// PlanInstallMCP works out how to register server in the file at path,
// in the format reg says, by inserting text only.
func PlanInstallMCP(path string, reg *targets.MCPRegistration, server MCPServer) (*Change, error) {
	before, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	c := &Change{Path: path, Before: before, Key: mcpKey(path)}
	var (
		after     []byte
		snippet   string
		installed bool
	)
	switch reg.Format {
	case "json":
		var entry any = server
		if reg.Entry != nil {
			entry = reg.Entry(server.Command, server.Args)
		}
		after, snippet, installed, err = insertJSONServer(before, reg.Key, entry)
	case "toml":
		after, snippet, installed, err = insertTOMLServer(before, reg.Key, server)
	default:
		err = fmt.Errorf("unknown settings format %q", reg.Format)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if installed {
		c.Nothing = true
		return c, nil
	}
	c.After, c.Snippets = after, []string{snippet}
	return c, nil
}

// PlanRemoveMCP works out how to take our MCP server out of the file at
// path again, as PlanRemove does for hooks.
func PlanRemoveMCP(path, stateDir string) (*Change, error) {
	return planRemove(path, mcpKey(path), stateDir)
}

// insertJSONServer adds "NAME": {server} to the object key at the top of
// text (making the object when there is none). installed is set, and
// nothing changed, when the object already has a member NAME.
func insertJSONServer(text []byte, key string, server any) (out []byte, snippet string, installed bool, err error) {
	if len(bytes.TrimSpace(text)) == 0 {
		text = []byte("{}\n")
	}
	members, open, err := jsonc.TopObject(text)
	if err != nil {
		return nil, "", false, err
	}
	entry, err := json.Marshal(server)
	if err != nil {
		return nil, "", false, err
	}
	member := fmt.Sprintf("%q: %s", MCPServerName, entry)
	var at int
	for _, m := range members {
		if m.Key != key {
			continue
		}
		if text[m.ValueStart] != '{' {
			return nil, "", false, fmt.Errorf("%q: %w", key, ErrNotObject)
		}
		servers, err := jsonc.ObjectAt(text, m.ValueStart)
		if err != nil {
			return nil, "", false, err
		}
		for _, s := range servers {
			if s.Key == MCPServerName {
				return text, "", true, nil
			}
		}
		at, snippet = m.ValueStart+1, "\n    "+member
		if len(servers) > 0 {
			snippet += ","
		}
		break
	}
	if snippet == "" {
		at, snippet = open+1, fmt.Sprintf("\n  %q: {\n    %s\n  }", key, member)
		if len(members) > 0 {
			snippet += ","
		} else {
			snippet += "\n"
		}
	}
	out = append(append(append([]byte(nil), text[:at]...), snippet...), text[at:]...)
	if _, _, err := jsonc.TopObject(out); err != nil {
		return nil, "", false, fmt.Errorf("internal error: the edited settings do not parse: %w", err)
	}
	if json.Valid(text) && !json.Valid(out) {
		return nil, "", false, errors.New("internal error: the edited settings are not valid JSON")
	}
	return out, snippet, false, nil
}

// insertTOMLServer appends a table [key.NAME] to TOML text. installed is
// set, and nothing changed, when the table is already defined.
func insertTOMLServer(text []byte, key string, server MCPServer) (out []byte, snippet string, installed bool, err error) {
	var before map[string]any
	if _, err := toml.Decode(string(text), &before); err != nil {
		return nil, "", false, fmt.Errorf("not valid TOML: %w", err)
	}
	if servers, ok := before[key].(map[string]any); ok {
		if _, ok := servers[MCPServerName]; ok {
			return text, "", true, nil
		}
	}
	if inlineTable(text, key) {
		// TOML forbids adding to an inline table from outside it
		// (https://toml.io/en/v1.0.0#inline-table); some readers accept
		// it, Codex's does not.
		return nil, "", false, fmt.Errorf("%s is an inline table: add [%s.%s] by hand", key, key, MCPServerName)
	}
	var b strings.Builder
	if len(text) > 0 && text[len(text)-1] != '\n' {
		b.WriteString("\n")
	}
	if len(text) > 0 {
		b.WriteString("\n")
	}
	args, _ := json.Marshal(server.Args) // a TOML array of basic strings is written as JSON writes it
	fmt.Fprintf(&b, "# session-handoff's MCP server ('session-handoff integrate codex --mcp --remove' takes it out)\n[%s.%s]\ncommand = %s\nargs = %s\n",
		key, MCPServerName, tomlString(server.Command), args)
	snippet = b.String()
	out = append(append([]byte(nil), text...), snippet...)
	var after map[string]any
	if _, err := toml.Decode(string(out), &after); err != nil {
		return nil, "", false, fmt.Errorf("cannot add [%s.%s] to it (is %s an inline table?): %w", key, MCPServerName, key, err)
	}
	if servers, ok := after[key].(map[string]any); !ok || servers[MCPServerName] == nil {
		return nil, "", false, fmt.Errorf("internal error: [%s.%s] not found after the edit", key, MCPServerName)
	}
	return out, snippet, false, nil
}

// inlineTable reports whether key is given a value (an inline table) at
// the top of TOML text, before its first table header. A line inside a
// multi-line string may look so too: then the edit is refused, on the
// safe side.
func inlineTable(text []byte, key string) bool {
	for line := range strings.SplitSeq(string(text), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			return false
		}
		l = strings.Trim(l, `"'`)
		if rest, ok := strings.CutPrefix(l, key); ok {
			if strings.HasPrefix(strings.TrimLeft(strings.TrimLeft(rest, `"'`), " \t"), "=") {
				return true
			}
		}
	}
	return false
}

// tomlString writes s as a TOML basic string: every escape JSON writes
// (\" \\ \b \f \n \r \t \uXXXX) is one TOML's basic strings have too
// (https://toml.io/en/v1.0.0#string); HTML escaping is off.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSpace(b.String())
}

// RegisteredCommand is the command our MCP server is registered with in
// the settings file at path, text being its content: the "command" of
// mcpServers.session-handoff in a JSON file (comments allowed), or the
// first word of the "command" of mcp.session-handoff (OpenCode's), of
// [mcp_servers.session-handoff] in a TOML one. ok is false when the file
// registers no such server.
func RegisteredCommand(path string, text []byte) (command string, ok bool, err error) {
	if strings.HasSuffix(path, ".toml") {
		var cfg struct {
			Servers map[string]struct {
				Command string `toml:"command"`
			} `toml:"mcp_servers"`
		}
		if _, err := toml.Decode(string(text), &cfg); err != nil {
			return "", false, fmt.Errorf("%s: %w", path, err)
		}
		srv, ok := cfg.Servers[MCPServerName]
		return srv.Command, ok, nil
	}
	value := func(members []jsonc.Member, key string) (jsonc.Member, bool) {
		for _, m := range members {
			if m.Key == key {
				return m, true
			}
		}
		return jsonc.Member{}, false
	}
	top, _, err := jsonc.TopObject(text)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", path, err)
	}
	servers, found := value(top, "mcpServers")
	if !found {
		servers, found = value(top, "mcp")
	}
	if !found || text[servers.ValueStart] != '{' {
		return "", false, nil
	}
	list, err := jsonc.ObjectAt(text, servers.ValueStart)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", path, err)
	}
	srv, found := value(list, MCPServerName)
	if !found || text[srv.ValueStart] != '{' {
		return "", false, nil
	}
	fields, err := jsonc.ObjectAt(text, srv.ValueStart)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", path, err)
	}
	cmd, found := value(fields, "command")
	if !found {
		return "", true, nil
	}
	raw := text[cmd.ValueStart:cmd.ValueEnd]
	if raw[0] == '[' {
		var words []string
		if err := json.Unmarshal(raw, &words); err != nil || len(words) == 0 {
			return "", true, fmt.Errorf("%s: the command of %s is not a list of words", path, MCPServerName)
		}
		return words[0], true, nil
	}
	if err := json.Unmarshal(raw, &command); err != nil {
		return "", true, fmt.Errorf("%s: the command of %s: %w", path, MCPServerName, err)
	}
	return command, true, nil
}

// MCPRegistered says whether our MCP server is registered with agent, in
// the project's settings (projectRoot) or the user's (under home; for an
// agent that keeps its user-wide servers in a file it rewrites itself,
// Claude Code's ~/.claude.json, that file's top-level servers). A file
// that cannot be read or parsed registers nothing.
func MCPRegistered(agent, projectRoot, home string, getenv func(string) string) bool {
	for _, user := range []bool{false, true} {
		if (!user && projectRoot == "") || (user && home == "") {
			continue
		}
		path, reg, err := MCPPath(agent, projectRoot, home, user, getenv)
		if errors.Is(err, ErrMCPUserScope) && reg != nil && strings.HasPrefix(reg.UserFile, "~/") {
			path, err = filepath.Join(home, filepath.FromSlash(strings.TrimPrefix(reg.UserFile, "~/"))), nil
		}
		if err != nil {
			continue
		}
		text, err := safefile.ReadFile(path, MaxSettings)
		if err != nil {
			continue
		}
		if _, ok, err := RegisteredCommand(path, text); err == nil && ok {
			return true
		}
	}
	return false
}

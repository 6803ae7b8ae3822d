package integrate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/targets"
)

var testServer = NewMCPServer("/opt/my tools/session-handoff", "gemini")

func TestInsertJSONServerKeepsEverythingAndRemovesExactly(t *testing.T) {
	for name, text := range map[string]string{
		"empty":         "",
		"empty object":  "{}",
		"other keys":    "{\n  \"model\": \"opus\",\n  \"hooks\": {}\n}\n",
		"other server":  "{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"npx\", \"args\": [\"-y\", \"gh\"]}\n  }\n}\n",
		"empty servers": "{\"mcpServers\": {}}",
		"comments":      "// mine\n{\n  /* c */ \"mcpServers\": { // servers\n  },\n}\n",
		"crlf":          "{\r\n  \"model\": \"x\"\r\n}\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			out, snippet, installed, err := insertJSONServer([]byte(text), "mcpServers", testServer)
			if err != nil || installed {
				t.Fatalf("%v %v", err, installed)
			}
			if !strings.Contains(text, "//") {
				var v struct {
					MCPServers map[string]MCPServer `json:"mcpServers"`
					Model      string               `json:"model"`
				}
				if err := json.Unmarshal(out, &v); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, out)
				}
				got := v.MCPServers[MCPServerName]
				if got.Command != testServer.Command || strings.Join(got.Args, " ") != "mcp --agent gemini" {
					t.Fatalf("server entry %+v:\n%s", got, out)
				}
				if strings.Contains(text, "github") && v.MCPServers["github"].Command != "npx" {
					t.Fatalf("the user's server was lost:\n%s", out)
				}
			}
			// Installing again changes nothing.
			if _, _, again, err := insertJSONServer(out, "mcpServers", testServer); err != nil || !again {
				t.Fatalf("second install: %v %v", again, err)
			}
			back, n, err := Remove(out, []string{snippet})
			want := text
			if strings.TrimSpace(text) == "" {
				want = "{}\n"
			}
			if err != nil || n != 1 || string(back) != want {
				t.Fatalf("remove: %d %v\n%q\nwant\n%q", n, err, back, want)
			}
		})
	}
	for name, text := range map[string]string{"servers not an object": `{"mcpServers": []}`, "array": `[]`, "broken": `{"a":`} {
		if _, _, _, err := insertJSONServer([]byte(text), "mcpServers", testServer); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestInsertTOMLServer(t *testing.T) {
	for name, text := range map[string]string{
		"empty":        "",
		"other keys":   "model = \"gpt-5\"\n\n[projects.\"/src/app\"]\ntrust_level = \"trusted\"\n",
		"other server": "[mcp_servers.github]\ncommand = \"npx\"\nargs = [\"-y\", \"gh\"]\n",
		"no newline":   "model = \"o3\"",
		"comments":     "# my config\nmodel = \"o3\" # the model\n",
	} {
		t.Run(name, func(t *testing.T) {
			srv := NewMCPServer(`C:\Program Files\sh "q".exe`, "codex")
			out, snippet, installed, err := insertTOMLServer([]byte(text), "mcp_servers", srv)
			if err != nil || installed {
				t.Fatalf("%v %v", err, installed)
			}
			if !strings.HasPrefix(string(out), text) {
				t.Fatalf("the file was not only appended to:\n%s", out)
			}
			var v struct {
				MCPServers map[string]MCPServer `toml:"mcp_servers"`
			}
			if _, err := toml.Decode(string(out), &v); err != nil {
				t.Fatal(err)
			}
			if got := v.MCPServers[MCPServerName]; got.Command != srv.Command || strings.Join(got.Args, " ") != "mcp --agent codex" {
				t.Fatalf("server %+v:\n%s", got, out)
			}
			if _, _, again, err := insertTOMLServer(out, "mcp_servers", srv); err != nil || !again {
				t.Fatalf("second install: %v %v", again, err)
			}
			back, n, err := Remove(out, []string{snippet})
			if err != nil || n != 1 || string(back) != text {
				t.Fatalf("remove: %d %v\n%q", n, err, back)
			}
		})
	}
	for name, text := range map[string]string{"inline table": "mcp_servers = { github = { command = \"npx\" } }\n", "broken": "[a\n"} {
		if _, _, _, err := insertTOMLServer([]byte(text), "mcp_servers", testServer); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// TestMCPInstallBesideHooks installs hooks and the MCP server in one
// Gemini settings file, then removes them in either order: each removal
// takes out its own text only, and the last restores the file.
func TestMCPInstallBesideHooks(t *testing.T) {
	for _, mcpFirst := range []bool{false, true} {
		dir := t.TempDir()
		path, state := filepath.Join(dir, "settings.json"), filepath.Join(dir, "state")
		orig := "{\n  \"theme\": \"dark\"\n}\n"
		if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
			t.Fatal(err)
		}
		gem, _ := LookupAgent("gemini")
		p, _ := targets.Lookup("gemini")
		hooks := func() {
			c, err := PlanInstall(path, gem.Hooks("session-handoff"), "gemini")
			if err == nil {
				err = ApplyInstall(c, state)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		mcp := func() {
			c, err := PlanInstallMCP(path, p.MCP, NewMCPServer("session-handoff", "gemini"))
			if err == nil {
				err = ApplyInstall(c, state)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if mcpFirst {
			mcp()
			hooks()
		} else {
			hooks()
			mcp()
		}
		c, err := PlanRemoveMCP(path, state)
		if err != nil || c.Nothing {
			t.Fatalf("plan remove mcp: %v %+v", err, c)
		}
		if err := ApplyRemove(c, state); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), "mcpServers") || !Installed(data, "gemini") {
			t.Fatalf("after removing the MCP server:\n%s", data)
		}
		c, err = PlanRemove(path, state)
		if err == nil {
			err = ApplyRemove(c, state)
		}
		if err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(path); string(data) != orig {
			t.Fatalf("mcp first %v: not restored:\n%s", mcpFirst, data)
		}
	}
}

func TestMCPPath(t *testing.T) {
	env := func(k string) string {
		if k == "CODEX_HOME" {
			return "/elsewhere/codex"
		}
		return ""
	}
	// The project must exist: its files are checked to lie inside it.
	p := t.TempDir()
	for _, c := range []struct {
		agent string
		user  bool
		want  string
	}{
		{"claude-code", false, p + "/.mcp.json"},
		{"codex", false, p + "/.codex/config.toml"},
		{"codex", true, "/elsewhere/codex/config.toml"},
		{"gemini", false, p + "/.gemini/settings.json"},
		{"gemini", true, "/h/.gemini/settings.json"},
		// The user file lies two directories down in the agent's own.
		{"opencode", true, "/h/.config/opencode/opencode.json"},
		{"crush", false, p + "/crush.json"},
		{"crush", true, "/h/.config/crush/crush.json"},
	} {
		got, _, err := MCPPath(c.agent, p, "/h", c.user, env)
		if err != nil || got != filepath.FromSlash(c.want) {
			t.Errorf("%s user=%v: %q %v, want %q", c.agent, c.user, got, err, c.want)
		}
	}
	if _, reg, err := MCPPath("claude-code", "/p", "/h", true, env); !errors.Is(err, ErrMCPUserScope) || !strings.HasPrefix(reg.RegisterUser, "claude mcp add --scope user") {
		t.Errorf("claude-code --user: %v %+v", err, reg)
	}
	if _, _, err := MCPPath("cursor", "/p", "/h", false, env); err == nil {
		t.Error("cursor: want no MCP registration")
	}
}

func FuzzInsertMCP(f *testing.F) {
	for _, s := range []string{"", "{}", `{"mcpServers": {"a": {}}}`, "// c\n{\"mcpServers\": {},}", "[mcp_servers.x]\ncommand = \"y\"\n", "a = 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, format := range []string{"json", "toml"} {
			var (
				out     []byte
				snippet string
				done    bool
				err     error
			)
			if format == "json" {
				out, snippet, done, err = insertJSONServer([]byte(text), "mcpServers", testServer)
			} else {
				out, snippet, done, err = insertTOMLServer([]byte(text), "mcp_servers", testServer)
			}
			if err != nil || done {
				continue
			}
			back, n, err := Remove(out, []string{snippet})
			if strings.TrimSpace(text) == "" && format == "json" {
				text2 := "{}\n"
				if err != nil || n != 1 || string(back) != text2 {
					t.Fatalf("%s: remove did not restore %q: %q", format, text2, back)
				}
				continue
			}
			if err != nil || n != 1 || string(back) != text {
				t.Fatalf("%s: remove did not restore %q: %q (%v)", format, text, back, err)
			}
		}
	})
}

func TestPackages(t *testing.T) {
	plugin, err := packageFiles(t, "claude-code", "session-handoff", "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct{ Name, Version string }
	if err := json.Unmarshal(plugin[".claude-plugin/plugin.json"], &manifest); err != nil || manifest.Name != PackageName || manifest.Version != "1.2.3" {
		t.Fatalf("plugin.json: %+v %v", manifest, err)
	}
	var hooks struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(plugin["hooks/hooks.json"], &hooks); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"SessionStart", "PreCompact", "SessionEnd"} {
		if h := hooks.Hooks[ev]; len(h) != 1 || !strings.HasPrefix(h[0].Hooks[0].Command, "session-handoff hook claude-code ") {
			t.Fatalf("hooks.json %s: %+v", ev, h)
		}
	}
	var servers struct{ MCPServers map[string]MCPServer }
	if err := json.Unmarshal(plugin[".mcp.json"], &servers); err != nil || servers.MCPServers[MCPServerName].Command != "session-handoff" {
		t.Fatalf(".mcp.json: %s %v", plugin[".mcp.json"], err)
	}
	ext, err := packageFiles(t, "gemini", "/usr/bin/session-handoff", "devel")
	if err != nil {
		t.Fatal(err)
	}
	var em struct {
		Name, Version, ContextFileName string
		MCPServers                     map[string]MCPServer
	}
	if err := json.Unmarshal(ext["gemini-extension.json"], &em); err != nil || em.Name != PackageName || em.Version != "0.0.0" || em.ContextFileName != "GEMINI.md" ||
		em.MCPServers[MCPServerName].Command != "/usr/bin/session-handoff" || len(ext[em.ContextFileName]) == 0 {
		t.Fatalf("gemini-extension.json: %+v %v", em, err)
	}
	// Gemini CLI loads an extension's hooks from hooks/hooks.json
	// (@google/gemini-cli@0.61.0 bundle, loadExtensionHooks): without it
	// the extension neither briefs nor captures.
	var eh struct {
		Hooks map[string][]struct {
			Hooks []struct{ Name, Command string }
		}
	}
	if err := json.Unmarshal(ext["hooks/hooks.json"], &eh); err != nil {
		t.Fatalf("hooks/hooks.json: %s %v", ext["hooks/hooks.json"], err)
	}
	for _, ev := range []string{"SessionStart", "PreCompress", "SessionEnd"} {
		if h := eh.Hooks[ev]; len(h) != 1 || !strings.HasPrefix(h[0].Hooks[0].Command, "/usr/bin/session-handoff hook gemini ") || h[0].Hooks[0].Name == "" {
			t.Fatalf("hooks/hooks.json %s: %+v", ev, h)
		}
	}

	dir := t.TempDir()
	if w, err := WritePackage(dir, ext); err != nil || len(w) != 3 {
		t.Fatalf("write: %v %v", w, err)
	}
	if w, err := WritePackage(dir, ext); err != nil || len(w) != 0 {
		t.Fatalf("write again: %v %v", w, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "GEMINI.md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "gemini-extension.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := WritePackage(dir, ext); !errors.Is(err, ErrPackageFileDiffers) {
		t.Fatalf("a changed file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gemini-extension.json")); err == nil {
		t.Fatal("a refused write wrote part of the package")
	}
}

// OpenCode's "mcp" servers (its registration's Entry) are {"type": "local",
// "command": [program, args…]}; the registered command is the list's
// first word.
func TestLocalServerFormat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.json")
	before := "{\n  // mine\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n"
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := mcpRegistration(t, "opencode")
	c, err := PlanInstallMCP(path, reg, NewMCPServer("/opt/my tools/session-handoff", "opencode"))
	if err != nil {
		t.Fatal(err)
	}
	want := `"session-handoff": {"type":"local","command":["/opt/my tools/session-handoff","mcp","--agent","opencode"]}`
	if !strings.Contains(string(c.After), want) {
		t.Fatalf("opencode.json after:\n%s\nwant it to hold %s", c.After, want)
	}
	prog, ok, err := RegisteredCommand(path, c.After)
	if err != nil || !ok || prog != "/opt/my tools/session-handoff" {
		t.Errorf("RegisteredCommand: %q %v %v", prog, ok, err)
	}
	if _, _, err := RegisteredCommand(path, []byte(`{"mcp": {"session-handoff": {"type": "local", "command": []}}}`)); err == nil {
		t.Error("an empty command list: no error")
	}
}

// Crush's "mcp" servers (its registration's Entry) are {"type": "stdio", "command",
// "args"}: Crush starts no server without its type.
func TestStdioServerFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crush.json")
	reg := mcpRegistration(t, "crush")
	c, err := PlanInstallMCP(path, reg, NewMCPServer("/opt/my tools/session-handoff", "x"))
	if err != nil {
		t.Fatal(err)
	}
	want := `"session-handoff": {"type":"stdio","command":"/opt/my tools/session-handoff","args":["mcp","--agent","x"]}`
	if !strings.Contains(string(c.After), want) {
		t.Fatalf("crush.json after:\n%s\nwant it to hold %s", c.After, want)
	}
	prog, ok, err := RegisteredCommand(path, c.After)
	if err != nil || !ok || prog != "/opt/my tools/session-handoff" {
		t.Errorf("RegisteredCommand: %q %v %v", prog, ok, err)
	}
}

// mcpRegistration is the MCP registration of the target name.
func mcpRegistration(t *testing.T, name string) *targets.MCPRegistration {
	t.Helper()
	p, err := targets.Lookup(name)
	if err != nil || p.MCP == nil {
		t.Fatalf("%s: %v, no MCP registration", name, err)
	}
	return p.MCP
}

// packageFiles is the package of the agent name (PackageFiles).
func packageFiles(t *testing.T, name, program, version string) (map[string][]byte, error) {
	t.Helper()
	info, ok := agents.Find(name)
	if !ok {
		t.Fatalf("no agent %s", name)
	}
	return PackageFiles(info, program, version)
}

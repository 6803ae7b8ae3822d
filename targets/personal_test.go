package targets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/render"
)

func TestPersonalFiles(t *testing.T) {
	for name, want := range map[string]string{"claude-code": "CLAUDE.local.md", "copilot": ".github/instructions/handoff.instructions.md"} {
		p, ok := lookup(t, name).Personal()
		if !ok || p.InstructionFile != want {
			t.Errorf("%s: personal %q, %v; want %s", name, p.InstructionFile, ok, want)
		}
	}
	for _, name := range []string{"codex", "gemini", "generic", "cursor"} {
		if p, ok := lookup(t, name).Personal(); ok {
			t.Errorf("%s: personal file %s; it has none that is per project and not shared", name, p.InstructionFile)
		}
	}
	// Copilot applies a path-specific file to every request only with
	// applyTo matching every file.
	root := t.TempDir()
	p, _ := lookup(t, "copilot").Personal()
	opts, _ := p.RenderOptions(render.Instructions, render.Budget{}, nil)
	w, err := p.WriteInstructions(root, testRecord(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(w.Path)
	if !strings.HasPrefix(string(data), "---\napplyTo: \"**\"\n---\n") {
		t.Errorf("%s starts %q", w.Path, data[:min(len(data), 40)])
	}
}

// Codex reads AGENTS.override.md instead of AGENTS.md where both exist,
// and project_doc_max_bytes of them: the block goes where Codex reads it,
// sized to the configured limit.
func TestCodexForProject(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	env := func(string) string { return "" }
	p, err := lookup(t, "codex").ForProject(root, home, env)
	if err != nil || p.InstructionFile != "AGENTS.md" || p.MaxFileSize != 32<<10 {
		t.Fatalf("plain project: %s, %d, %v", p.InstructionFile, p.MaxFileSize, err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "AGENTS.override.md"), "# mine\n")
	write(filepath.Join(home, ".codex", "config.toml"), "model = \"o3\"\nproject_doc_max_bytes = 8192\n")
	p, err = lookup(t, "codex").ForProject(root, home, env)
	if err != nil || p.InstructionFile != "AGENTS.override.md" || p.MaxFileSize != 8192 || p.InstructionBudget > 4096 {
		t.Fatalf("override and user limit: %s, %d, %d, %v", p.InstructionFile, p.MaxFileSize, p.InstructionBudget, err)
	}
	opts, _ := p.RenderOptions(render.Instructions, render.Budget{}, nil)
	w, err := p.WriteInstructions(root, testRecord(t), opts)
	if err != nil || w.Path != filepath.Join(root, "AGENTS.override.md") {
		t.Fatalf("written to %s, %v", w.Path, err)
	}
	if info, _ := os.Stat(w.Path); info.Size() > 8192 {
		t.Errorf("AGENTS.override.md is %d bytes, over the configured 8192", info.Size())
	}
	// The project's own config.toml wins over the user's.
	write(filepath.Join(root, ".codex", "config.toml"), "project_doc_max_bytes = 65536\n")
	if p, err = lookup(t, "codex").ForProject(root, home, env); err != nil || p.MaxFileSize != 65536 {
		t.Errorf("project limit: %d, %v", p.MaxFileSize, err)
	}
	write(filepath.Join(root, ".codex", "config.toml"), "project_doc_max_bytes = 0\n")
	if _, err = lookup(t, "codex").ForProject(root, home, env); err == nil {
		t.Error("a limit of 0 (Codex reads no AGENTS.md) was accepted")
	}
	write(filepath.Join(root, ".codex", "config.toml"), "project_doc_max_bytes = [\n")
	if _, err = lookup(t, "codex").ForProject(root, home, env); err == nil || !strings.Contains(err.Error(), "config.toml") {
		t.Errorf("not a number: %v", err)
	}
	// A key of a table is not the top-level one; comments and _ are TOML.
	for text, want := range map[string]int{
		"[profiles.x]\nproject_doc_max_bytes = 10\n":              8192,
		"project_doc_max_bytes = 40_960 # forty KiB\n[tui]\n":     40960,
		"  \"project_doc_max_bytes\" = 12000\r\nmodel = \"o3\"\n": 12000,
	} {
		write(filepath.Join(root, ".codex", "config.toml"), text)
		if p, err = lookup(t, "codex").ForProject(root, home, env); err != nil || p.MaxFileSize != want {
			t.Errorf("%q: limit %d, %v; want %d", text, p.MaxFileSize, err, want)
		}
	}
}

// Our own words never send the agent to a section the text does not
// have: a rendering without checks has no "How to check the work", and a
// budget may drop sections (issue 18).
func TestGuidancePointsAtNoMissingSection(t *testing.T) {
	titles := []string{"Where this handoff came from", "The task", "Where things stand", "Decisions", "Next steps",
		"Open questions", "Open todos", "Files touched", "Attachments", "Commands run", "How to check the work", "Git state"}
	rec := testRecord(t)
	rec.Project.Checks = nil
	for _, p := range All() {
		for _, mode := range []render.Mode{render.Prompt, render.Instructions} {
			opts, err := p.RenderOptions(mode, render.Budget{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := render.Render(rec, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range p.Style.Guidance {
				for _, title := range titles {
					if strings.Contains(g, title) && !strings.Contains(res.Text, "# "+title+"\n") {
						t.Errorf("%s %v: the guidance names %q, which the text does not have", p.Name, mode, title)
					}
				}
			}
			if strings.Contains(res.Text, "TodoWrite") {
				t.Errorf("%s %v: names TodoWrite, which Claude Code replaced by its task list", p.Name, mode)
			}
		}
	}
}

// A launch that writes the instructions and points the agent at them
// names the file --write writes by default: the personal one where the
// agent has one.
func TestLaunchNamesTheFileWriteWrites(t *testing.T) {
	for _, p := range All() {
		want := p.InstructionFile
		if pp, ok := p.Personal(); ok {
			want = pp.InstructionFile
		}
		for _, l := range p.Launch {
			if !strings.Contains(l.Command, "--write") || !strings.Contains(l.Command, "described in") {
				continue
			}
			if !strings.Contains(l.Command, "described in "+want+`"`) {
				t.Errorf("%s: %q points the agent elsewhere than %s, which --write writes", p.Name, l.Command, want)
			}
		}
	}
}

package targets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
	"github.com/session-handoff/session-handoff/render"
)

func testRecord(t *testing.T) *handoff.Record {
	t.Helper()
	rec, err := handoff.New(time.Now(), "codex", "Refactor auth middleware")
	if err != nil {
		t.Fatal(err)
	}
	rec.NextSteps = []string{"Fix refresh test matrix"}
	return rec
}

func lookup(t *testing.T, name string) Profile {
	t.Helper()
	p, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRenderOptions(t *testing.T) {
	p := lookup(t, "codex")
	o, err := p.RenderOptions(render.Instructions, render.Budget{}, nil)
	if err != nil || o.Budget.Bytes != p.InstructionBudget {
		t.Errorf("instructions with no budget: %+v, %v; want the profile's %d bytes", o.Budget, err, p.InstructionBudget)
	}
	o, err = p.RenderOptions(render.Prompt, render.Budget{}, nil)
	if err != nil || o.Budget != (render.Budget{}) {
		t.Errorf("a prompt with no budget got %+v, %v; want none", o.Budget, err)
	}
	if _, err := p.RenderOptions(render.Prompt, render.Budget{}, []string{"next", "gossip"}); err == nil || !strings.Contains(err.Error(), `"gossip"`) {
		t.Errorf("an unknown section: %v", err)
	}
}

func TestWriteAndRemoveInstructions(t *testing.T) {
	root := t.TempDir()
	p := lookup(t, "codex")
	rec := testRecord(t)
	opts, _ := p.RenderOptions(render.Instructions, render.Budget{}, nil)
	w, err := p.WriteInstructions(root, rec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "AGENTS.md"); w.Path != want || !w.Changed || w.Result == nil {
		t.Fatalf("WriteInstructions = %+v, want a change to %s", w, want)
	}
	data, _ := os.ReadFile(w.Path)
	if !strings.Contains(string(data), "Fix refresh test matrix") {
		t.Errorf("AGENTS.md lacks the handoff:\n%s", data)
	}
	if w, err := p.WriteInstructions(root, rec, opts); err != nil || w.Changed {
		t.Errorf("writing the same handoff again: changed %v, %v", w.Changed, err)
	}
	// A file nearly at the agent's limit leaves the block less room.
	big := strings.Repeat("x", p.MaxFileSize-2000) + "\n"
	if err := os.WriteFile(w.Path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err = p.WriteInstructions(root, rec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if w.Budget.Bytes <= 0 || w.Budget.Bytes >= opts.Budget.Bytes {
		t.Errorf("budget with 2000 bytes left = %+v, want less than %d", w.Budget, opts.Budget.Bytes)
	}
	path, changed, err := p.RemoveInstructions(root)
	if err != nil || !changed || path != w.Path {
		t.Fatalf("RemoveInstructions = %s, %v, %v", path, changed, err)
	}
	if data, _ := os.ReadFile(path); string(data) != big {
		t.Errorf("remove left %d bytes, want the file as it was", len(data))
	}
	if _, changed, err := p.RemoveInstructions(root); err != nil || changed {
		t.Errorf("removing again: changed %v, %v", changed, err)
	}
}

func TestPrepareStart(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	rec := testRecord(t)
	pr, err := lookup(t, "codex").PrepareStart(rec, render.Budget{}, []string{"--model", "o3"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(pr.File)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("prompt file %s: %v, mode %v; want 0600", pr.File, err, info.Mode())
	}
	if dir, _ := os.Stat(filepath.Dir(pr.File)); dir.Mode().Perm() != 0o700 {
		t.Errorf("prompt directory mode %v, want 0700", dir.Mode().Perm())
	}
	if data, _ := os.ReadFile(pr.File); string(data) != pr.Result.Text {
		t.Errorf("the prompt file is not the rendering")
	}
	argv := pr.Start.Argv()
	if argv[0] != "codex" || argv[1] != "--model" || !strings.Contains(argv[len(argv)-1], pr.File) {
		t.Errorf("argv = %q", argv)
	}
	// A target that cannot be started writes nothing.
	before, err := os.ReadDir(os.Getenv("TMPDIR"))
	testsys.Check(t, err)
	if _, err := lookup(t, "cursor").PrepareStart(rec, render.Budget{}, nil); err == nil {
		t.Fatal("cursor started")
	}
	if after, _ := os.ReadDir(os.Getenv("TMPDIR")); len(after) != len(before) {
		t.Errorf("a refused start wrote into TMPDIR")
	}
}

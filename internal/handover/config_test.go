package handover

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/testsys"

	"github.com/session-handoff/session-handoff/internal/paths"
)

func TestParseConfig(t *testing.T) {
	good := `
memory = "notes/memory"

[[steps]]
name = "capture"
kind = "capture"
from = "codex"
fallback = "save"

[[steps]]
name = "note"
kind = "memory"
action = "note"
tag = "auth"

[[steps]]
name = "notify"
kind = "exec"
run = "make notes"
timeout = "30s"
`
	c, err := ParseConfig([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Memory != "notes/memory" || len(c.Steps) != 3 || c.Steps[2].Timeout.Duration != 30*time.Second ||
		c.Steps[0].Timeout.Duration != DefaultTimeout || c.Steps[1].Tag != "auth" {
		t.Fatalf("parsed wrongly: %+v", c)
	}
	if c.Hash() == DefaultConfig().Hash() || c.Hash() != mustParse(t, good).Hash() {
		t.Fatal("the hash must follow the content")
	}
	bad := map[string]string{
		"unknown key":           "[[steps]]\nname = \"a\"\nkind = \"exec\"\nrun = \"x\"\nrn = \"typo\"\n",
		"field of another kind": "[[steps]]\nname = \"a\"\nkind = \"save\"\nrun = \"make\"\n",
		"unknown kind":          "[[steps]]\nname = \"a\"\nkind = \"deploy\"\n",
		"duplicate name":        "[[steps]]\nname = \"a\"\nkind = \"save\"\n[[steps]]\nname = \"a\"\nkind = \"save\"\n",
		"bad name":              "[[steps]]\nname = \"../x\"\nkind = \"save\"\n",
		"exec without run":      "[[steps]]\nname = \"a\"\nkind = \"exec\"\n",
		"bad timeout":           "[[steps]]\nname = \"a\"\nkind = \"exec\"\nrun = \"x\"\ntimeout = \"soon\"\n",
		"huge timeout":          "[[steps]]\nname = \"a\"\nkind = \"exec\"\nrun = \"x\"\ntimeout = \"48h\"\n",
		"memory escapes":        "memory = \"../elsewhere\"\n[[steps]]\nname = \"a\"\nkind = \"save\"\n",
		"absolute output":       "[[steps]]\nname = \"a\"\nkind = \"export\"\nto = [\"age1x\"]\noutput = \"/etc/x\"\n",
		"bad action":            "[[steps]]\nname = \"a\"\nkind = \"memory\"\naction = \"delete\"\n",
		"no steps":              "memory = \"m\"\n",
		"not toml":              "[[steps]\nname=",
		"wrong type":            "[[steps]]\nname = 5\nkind = \"save\"\n",
	}
	for name, text := range bad {
		if _, err := ParseConfig([]byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error over several lines: %q", name, err)
		}
	}
	if _, err := ParseConfig([]byte(strings.Repeat("#", MaxConfigSize+1))); err == nil {
		t.Error("an oversized configuration was accepted")
	}
}

func mustParse(t *testing.T, s string) *Config {
	t.Helper()
	c, err := ParseConfig([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("[[steps]]\nname = \"a\"\nkind = \"exec\"\nrun = \"x\"\ntimeout = \"1s\"\n"))
	f.Add([]byte("memory = \"m\"\n[[steps]]\nname = \"n\"\nkind = \"memory\"\naction = \"note\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		// What is accepted is within bounds and keeps inside the project.
		if len(c.Steps) == 0 || len(c.Steps) > MaxSteps || relativePath(c.Memory) != nil {
			t.Fatalf("accepted out of bounds: %+v", c)
		}
		for _, st := range c.Steps {
			if st.Timeout.Duration <= 0 || st.Timeout.Duration > MaxTimeout || !namePattern().MatchString(st.Name) {
				t.Fatalf("accepted step out of bounds: %+v", st)
			}
		}
	})
}

func TestPauseFailsClosed(t *testing.T) {
	dir := t.TempDir()
	files := PauseFiles(dir+"/config", dir+"/project")
	if err := os.MkdirAll(dir+"/project", 0o755); err != nil {
		t.Fatal(err)
	}
	if CheckPause(files) != nil {
		t.Fatal("paused with no file")
	}
	if created, err := Pause(files[1], "reviewing", time.Now()); err != nil || !created {
		t.Fatal(created, err)
	}
	err := CheckPause(files)
	pe, ok := err.(*PausedError)
	if !ok || pe.Path != files[1] || pe.Reason != "reviewing" || !strings.Contains(err.Error(), "unpause") {
		t.Fatalf("got %v", err)
	}
	if created, _ := Pause(files[1], "again", time.Now()); created {
		t.Fatal("a second pause replaced the first")
	}
	if removed, err := Unpause(files[1]); err != nil || !removed {
		t.Fatal(removed, err)
	}
	if removed, _ := Unpause(files[1]); removed {
		t.Fatal("unpause of nothing said it removed something")
	}
	if _, err := Pause(files[1], "two\nlines", time.Now()); err == nil {
		t.Fatal("a multi-line reason was accepted")
	}
}

func TestConfigFIFONeverBlocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "handover.toml")
	testsys.Mkfifo(t, path)
	if _, err := LoadConfig(path); err == nil {
		t.Fatal("a FIFO was read as a configuration")
	}
	if _, err := Approved(paths.ConfigDir(t.TempDir()).HandoverApprovals(), path); err == nil {
		t.Fatal("a FIFO was hashed for approval")
	}
}

// The built-in configuration goes through the same parsing as a file, so
// its steps get the defaults a file's steps get: a run of the default used
// to give every step a zero timeout, and every git read timed out at once.
func TestDefaultConfig(t *testing.T) {
	c, err := ParseConfig([]byte(DefaultConfigTOML))
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultConfig()
	if len(d.Steps) != len(c.Steps) || len(d.Steps) != 5 || d.Memory != "memory" {
		t.Fatalf("default config: %+v", d)
	}
	for _, st := range d.Steps {
		if st.Timeout.Duration != DefaultTimeout {
			t.Errorf("step %q: timeout %s, want %s", st.Name, st.Timeout.Duration, DefaultTimeout)
		}
	}
	if d.Steps[0].Kind != KindCapture || d.Steps[0].Fallback != "save" {
		t.Errorf("first step %+v, want capture with the save fallback", d.Steps[0])
	}
}

func TestResolveConfig(t *testing.T) {
	root, configDir := t.TempDir(), t.TempDir()
	if c, path, err := ResolveConfig("", root, configDir); err != nil || path != BuiltinConfigName || len(c.Steps) != 5 {
		t.Fatalf("no files: %q %v", path, err)
	}
	user := filepath.Join(configDir, ConfigFile)
	if err := os.WriteFile(user, []byte("[[steps]]\nname = \"s\"\nkind = \"save\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, path, err := ResolveConfig("", root, configDir); err != nil || path != user || len(c.Steps) != 1 {
		t.Fatalf("user config: %q %v", path, err)
	}
	project := filepath.Join(root, ConfigFile)
	if err := os.WriteFile(project, []byte("[[steps]]\nname = \"p\"\nkind = \"save\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var na *NotApprovedError
	if _, path, err := ResolveConfig("", root, configDir); !errors.As(err, &na) || path != project {
		t.Fatalf("unapproved project config: %q %v", path, err)
	}
	if err := Approve(paths.ConfigDir(configDir).HandoverApprovals(), project); err != nil {
		t.Fatal(err)
	}
	if c, path, err := ResolveConfig("", root, configDir); err != nil || path != project || c.Steps[0].Name != "p" {
		t.Fatalf("approved project config: %q %v", path, err)
	}
}

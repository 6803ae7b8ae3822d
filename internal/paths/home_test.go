package paths

import (
	"path/filepath"
	"testing"
)

func env(m map[string]string) Env { return func(k string) string { return m[k] } }

// HOME as the commands' getenv sees it decides the home directory, for
// the data and config directories as for everything else.
func TestHomeFromGetenv(t *testing.T) {
	home := t.TempDir()
	e := env(map[string]string{"HOME": home})
	got, err := Home(e)
	if err != nil || got != home {
		t.Fatalf("Home = %q, %v; want %q", got, err, home)
	}
	d, err := Data(e)
	if err != nil || d != filepath.Join(home, ".local", "share", "session-handoff") {
		t.Fatalf("Data = %q, %v", d, err)
	}
	c, err := Config(e)
	if err != nil || c != filepath.Join(home, ".config", "session-handoff") {
		t.Fatalf("Config = %q, %v", c, err)
	}
}

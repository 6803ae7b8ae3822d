package devsync

import (
	"os"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/paths"
)

// A project's own setting wins over the global one, off included; a
// project with neither is off; Set replaces the setting of its scope.
func TestSettingsPrecedence(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []Setting{
		{Scope: Global, On: true, Remote: "mine"},
		{Scope: "/work/a", On: false},
		{Scope: "/work/b", On: true, WithChanges: true},
		{Scope: "/work/b", On: true}, // replaces the one before
	} {
		if err := Set(dir, s); err != nil {
			t.Fatal(err)
		}
	}
	for root, want := range map[string]bool{"/work/a": false, "/work/b": true, "/work/c": true} {
		if _, on, err := Enabled(dir, root); err != nil || on != want {
			t.Errorf("Enabled(%s) = %v, %v; want %v", root, on, err, want)
		}
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.For("/work/b"); s.WithChanges {
		t.Errorf("the replaced setting lingers: %+v", s)
	}
	if s := c.For("/work/c"); s.Remote != "mine" {
		t.Errorf("the global setting's remote: %+v", s)
	}
	if all := c.All(); len(all) != 3 || all[0].Scope != Global {
		t.Errorf("All = %+v", all)
	}
	if err := Set(dir, Setting{Scope: "relative"}); err == nil {
		t.Error("a relative scope was accepted")
	}
	empty := t.TempDir()
	if _, on, err := Enabled(empty, "/work/a"); err != nil || on {
		t.Errorf("no file: %v, %v", on, err)
	}
}

// A damaged file is an error naming it and the line.
func TestLoadDamaged(t *testing.T) {
	dir := t.TempDir()
	path := paths.ConfigDir(dir).Sync()
	if err := os.WriteFile(path, []byte(header+"\n*\tmaybe\t-\t-\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Fatalf("Load: %v", err)
	}
}

package integrate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolveProgram(t *testing.T) {
	dir := t.TempDir()
	installed := filepath.Join(dir, "bin", "session-handoff")
	onPath := func(name string) (string, error) {
		if name == "session-handoff" {
			return installed, nil
		}
		return "", errors.New("not found")
	}
	nothing := func(string) (string, error) { return "", errors.New("not found") }
	exe := func(p string) func() (string, error) { return func() (string, error) { return p, nil } }
	cases := []struct {
		name, given string
		l           Lookup
		want        string
		err         bool
	}{
		{"the running binary", "", Lookup{exe("/usr/local/bin/session-handoff"), nothing}, "/usr/local/bin/session-handoff", false},
		{"go run: the one on PATH", "", Lookup{exe("/tmp/go-build123/b001/exe/session-handoff"), onPath}, installed, false},
		{"go run, none on PATH", "", Lookup{exe("/tmp/go-build123/b001/exe/session-handoff"), nothing}, "", true},
		{"no executable: PATH", "", Lookup{func() (string, error) { return "", errors.New("x") }, onPath}, installed, false},
		{"given absolute", "/opt/sh/session-handoff", Lookup{exe("/x"), nothing}, "/opt/sh/session-handoff", false},
		{"given relative path", "bin/session-handoff", Lookup{exe("/x"), nothing}, "", true},
		{"given name on PATH", "session-handoff", Lookup{exe("/x"), onPath}, "session-handoff", false},
		{"given name not on PATH", "sh-handoff", Lookup{exe("/x"), onPath}, "", true},
	}
	for _, c := range cases {
		got, err := ResolveProgram(c.given, c.l)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s: %q, %v; want %q (error %v)", c.name, got, err, c.want, c.err)
		}
	}
	if _, err := ResolveProgram("", Lookup{exe("/tmp/go-build1/exe/x"), nothing}); !errors.Is(err, ErrProgramNotFound) {
		t.Errorf("err %v, want ErrProgramNotFound", err)
	}
}

func TestInstalledProgramsAndCheck(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "it's here", "session-handoff")
	if err := os.MkdirAll(filepath.Dir(good), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, _ := LookupAgent("claude-code")
	text, _, err := Insert([]byte("{\n  // mine\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo hook claude-code session-end\"}]}]}\n}\n"), a.Hooks(good))
	if err != nil {
		t.Fatal(err)
	}
	progs := InstalledPrograms(text, "claude-code")
	if len(progs) != 2 || progs[0] != good || progs[1] != "echo" {
		t.Fatalf("programs %q", progs)
	}
	if err := CheckProgram(good, nil); err != nil {
		t.Errorf("an executable file: %v", err)
	}
	gone := filepath.Join(dir, "gone", "session-handoff")
	if err := CheckProgram(gone, nil); !errors.Is(err, ErrProgramMissing) {
		t.Errorf("a missing file: %v", err)
	}
	if err := CheckProgram("nowhere-on-path", func(string) (string, error) { return "", errors.New("no") }); !errors.Is(err, ErrProgramMissing) {
		t.Errorf("a name not on PATH: %v", err)
	}
}

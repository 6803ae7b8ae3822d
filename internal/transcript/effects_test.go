package transcript

import (
	"reflect"
	"testing"
)

func TestShellEffects(t *testing.T) {
	ren := func(from, to string, into bool) ShellEffect {
		return ShellEffect{Kind: EffectRenamed, From: from, Path: to, IntoDir: into}
	}
	del := func(p string) ShellEffect { return ShellEffect{Kind: EffectDeleted, Path: p} }
	mk := func(p string) ShellEffect { return ShellEffect{Kind: EffectCreated, Path: p} }
	for _, c := range []struct {
		cmd  string
		want []ShellEffect
	}{
		{"git mv old.go new.go", []ShellEffect{ren("old.go", "new.go", true)}},
		{"mv -f a.txt 'b c.txt'", []ShellEffect{ren("a.txt", "b c.txt", true)}},
		{"mv a.go b.go pkg/", []ShellEffect{ren("a.go", "pkg/a.go", false), ren("b.go", "pkg/b.go", false)}},
		{"mv -t pkg a.go", []ShellEffect{ren("a.go", "pkg/a.go", false)}},
		{"rm -rf build notes.md && git rm -q --cached x.go", []ShellEffect{del("build"), del("notes.md"), del("x.go")}},
		{"cd src && rm old.c; mkdir -p lib/util", []ShellEffect{del("src/old.c"), mk("src/lib/util")}},
		{"sudo unlink /tmp/x", []ShellEffect{del("/tmp/x")}},
		{"touch -d 2020-01-01 stamp new.txt", []ShellEffect{mk("stamp"), mk("new.txt")}},
		{"cp template.go main.go", []ShellEffect{{Kind: EffectCreated, Path: "main.go", IntoDir: true}}},
		{"FOO=1 mv x y", []ShellEffect{ren("x", "y", true)}},
		// What it cannot know, it does not claim.
		{"rm *.tmp $OUT ~/x", nil},
		{"mv $(ls) dst", nil},
		{"cd $DIR && rm a", nil},
		{"rm -- -weird", []ShellEffect{del("-weird")}},
		{"ls && cat a.go | grep x", nil},
		{"git status", nil},
	} {
		if got := ShellEffects(c.cmd); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ShellEffects(%q) =\n %+v\nwant\n %+v", c.cmd, got, c.want)
		}
	}
}

func FuzzShellEffects(f *testing.F) {
	f.Add("cd src && git mv a.go b.go; rm -rf lib && mkdir -p pkg")
	f.Add("mv -t dir a b c")
	f.Fuzz(func(t *testing.T, cmd string) {
		if got := ShellEffects(cmd); len(got) > maxEffects {
			t.Fatalf("%d effects", len(got))
		}
	})
}

package remote

import (
	"errors"
	"reflect"
	"testing"
)

func TestSelectAndPick(t *testing.T) {
	dir := t.TempDir()
	load := func() *Config {
		t.Helper()
		c, err := LoadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	add := func(name string) {
		t.Helper()
		if err := UpdateConfig(dir, func(c *Config) error { return c.Add(Remote{Name: name, URL: "/srv/" + name}) }); err != nil {
			t.Fatal(err)
		}
	}

	// No remote at all: both refuse, naming the case.
	if _, err := load().Select(""); !errors.Is(err, ErrNoRemotes) {
		t.Fatalf("Select with none: %v", err)
	}
	if _, err := load().Pick(""); !errors.Is(err, ErrNoRemotes) {
		t.Fatalf("Pick with none: %v", err)
	}

	add("team")
	if r, err := load().Pick(""); err != nil || r.Name != "team" {
		t.Fatalf("Pick the only one: %+v %v", r, err)
	}

	add("lab")
	c := load()
	var several *SeveralError
	if _, err := c.Pick(""); !errors.As(err, &several) || !reflect.DeepEqual(several.Names, []string{"lab", "team"}) {
		t.Fatalf("Pick among two: %v", err)
	}
	if r, err := c.Pick("team"); err != nil || r.Name != "team" {
		t.Fatalf("Pick by name: %+v %v", r, err)
	}
	if _, err := c.Pick("nope"); !errors.Is(err, ErrNoRemote) {
		t.Fatalf("Pick unknown: %v", err)
	}
	list, err := c.Select("")
	if err != nil || len(list) != 2 || list[0].Name != "lab" || list[1].Name != "team" {
		t.Fatalf("Select all: %+v %v", list, err)
	}
	if list, err := c.Select("lab"); err != nil || len(list) != 1 || list[0].Name != "lab" {
		t.Fatalf("Select one: %+v %v", list, err)
	}
	if _, err := c.Select("nope"); !errors.Is(err, ErrNoRemote) {
		t.Fatalf("Select unknown: %v", err)
	}
}

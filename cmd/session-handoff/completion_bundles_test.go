package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCompletePrincipalsAndPeople: 'trust rm' completes the principals of
// my trust store and 'people rm' the names of my address book, each
// filtered by what was typed, and nothing past the first argument.
func TestCompletePrincipalsAndPeople(t *testing.T) {
	alice := newTestHome(t, "alice@laptop", true)
	bob := newTestHome(t, "bob@desk", true)
	for _, p := range []string{"alice@laptop", "alice@work"} {
		if _, stderr, code := bob.run(t, "trust add", nil, func(a *app) error {
			return runTrustAdd(a, &trustAddOptions{key: alice.pub, principal: p})
		}); code != 0 {
			t.Fatal(stderr)
		}
	}
	for _, p := range []peopleAddOptions{{name: "carol@lab", recipient: alice.age}, {name: "dave@home", recipient: alice.age}} {
		if _, stderr, code := bob.run(t, "people add", nil, func(a *app) error { return runPeopleAdd(a, &p) }); code != 0 {
			t.Fatal(stderr)
		}
	}
	a := bob.app(nil, nil, nil)
	names := func(list []string) string {
		var out []string
		for _, l := range list {
			name, _, _ := strings.Cut(l, "\t")
			out = append(out, name)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		fn         func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)
		args       []string
		toComplete string
		want       string
	}{
		{a.completePrincipals, nil, "", "alice@laptop alice@work"},
		{a.completePrincipals, nil, "alice@w", "alice@work"},
		{a.completePrincipals, nil, "carol", ""},
		{a.completePrincipals, []string{"alice@work"}, "", ""},
		{a.completePeople, nil, "", "carol@lab dave@home"},
		{a.completePeople, nil, "d", "dave@home"},
		{a.completePeople, []string{"carol@lab"}, "", ""},
	} {
		got, dir := c.fn(nil, c.args, c.toComplete)
		if names(got) != c.want || dir != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("complete %v %q = %q (%v), want %q", c.args, c.toComplete, names(got), dir, c.want)
		}
	}
	// An empty home completes nothing, and says nothing.
	empty := newTestHome(t, "", false).app(nil, nil, nil)
	if got, _ := empty.completePrincipals(nil, nil, ""); len(got) != 0 {
		t.Errorf("empty trust store: %q", got)
	}
	if got, _ := empty.completePeople(nil, nil, ""); len(got) != 0 {
		t.Errorf("empty address book: %q", got)
	}
}

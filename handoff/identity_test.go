package handoff

import (
	"strings"
	"testing"
)

func TestRemoteKey(t *testing.T) {
	for raw, want := range map[string]string{
		"git@github.com:Org/App.git":                "github.com/org/app",
		"ssh://git@github.com:22/org/app":           "github.com/org/app",
		"https://token@github.com/org/app/":         "github.com/org/app",
		"https://github.com/org/app.git":            "github.com/org/app",
		"git://example.org/a/b/../c.git":            "example.org/a/c",
		"file:///srv/git/team.git":                  "/srv/git/team",
		"/srv/git/team.git/":                        "/srv/git/team",
		"../relative/repo":                          "../relative/repo",
		"":                                          "",
		"https://github.com/":                       "",
		"git@host:":                                 "",
		"C:/repos/app.git":                          "C:/repos/app",
		"https://[::1]:8080/team/inbox.git":         "::1/team/inbox",
		"https://gitlab.example.com/group/sub/proj": "gitlab.example.com/group/sub/proj",
		"https://%zz":                               "",
		strings.Repeat("a", 3000):                   "",
	} {
		if got := RemoteKey(raw); got != want {
			t.Errorf("RemoteKey(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestIdentityMatches(t *testing.T) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	id := Identity{RootCommit: a, RemoteKeys: []string{"github.com/org/app", "gitlab.com/me/app"}}
	for _, c := range []struct {
		root, remote string
		want         bool
	}{
		{a, "", true},
		{a, "elsewhere.org/x", true},     // a fork: the same history
		{b, "github.com/org/app", false}, // the root commits decide
		{"", "gitlab.com/me/app", true},  // no root commit: the remote
		{"", "github.com/org/other", false},
		{"", "", false},
	} {
		if got := id.Matches(c.root, c.remote); got != c.want {
			t.Errorf("Matches(%q, %q) = %v", c.root, c.remote, got)
		}
	}
	if (Identity{}).Matches("", "") || (Identity{}).Known() {
		t.Error("an unknown identity matches nothing")
	}
	if (Identity{RemoteKeys: []string{"h/x"}}).Matches(a, "") {
		t.Error("an identity without a root commit matched by the other's root commit alone")
	}
}

func TestValidCommit(t *testing.T) {
	for s, want := range map[string]bool{
		strings.Repeat("a", 40): true, strings.Repeat("0", 64): true,
		strings.Repeat("A", 40): false, strings.Repeat("a", 39): false, strings.Repeat("g", 40): false, "": false,
	} {
		if ValidCommit(s) != want {
			t.Errorf("ValidCommit(%q) != %v", s, want)
		}
	}
}

func TestIdentityTakes(t *testing.T) {
	a := strings.Repeat("a", 40)
	id := Identity{RootCommit: a}
	rec := func(kind, verification, root string) *Record {
		r := &Record{Project: Project{RootCommit: root}, Source: Source{Kind: kind}}
		if kind == SourceImport {
			r.Source.Import = &Provenance{Verification: verification}
		}
		return r
	}
	for _, c := range []struct {
		r    *Record
		want bool
	}{
		{rec(SourceImport, "verified", a), true},
		{rec(SourceImport, "untrusted", a), false}, // a stranger's bundle
		{rec(SourceImport, "pinned", a), false},
		{rec(SourceHand, "", a), false}, // made on this machine
		{rec(SourceImport, "verified", strings.Repeat("b", 40)), false},
	} {
		if got := id.Takes(c.r); got != c.want {
			t.Errorf("Takes(%s, %+v) = %v", c.r.Source.Kind, c.r.Source.Import, got)
		}
	}
}

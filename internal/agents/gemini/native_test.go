package gemini

import (
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/carry"
)

// TestProjectSlug: a new project's directory is named as Gemini CLI names
// it: the path's base name, lower-cased, each run of other characters one
// "-", none at either end.
func TestProjectSlug(t *testing.T) {
	for in, want := range map[string]string{
		"/work/My Project": "my-project", "/x/--a__b--": "a-b", "/x/É": "project", "/x/proj": "proj",
	} {
		if got := projectSlug(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestNativeNamesDoNotCollide: Gemini CLI names a session's file by the
// minute and the first 8 characters of its id, so two sessions carried
// over in one minute need ids that differ there (a time-ordered id does
// not: its first 8 are the time).
func TestNativeNamesDoNotCollide(t *testing.T) {
	c := &carry.Conversation{Turns: []carry.Turn{{Kind: carry.User, Text: "hi"}}}
	o := carry.Options{Home: t.TempDir(), CWD: "/work/p", Now: time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)}
	a, err := Native{}.Plan(c, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Now = o.Now.Add(time.Second)
	b, err := Native{}.Plan(c, o)
	if err != nil {
		t.Fatal(err)
	}
	if a.Path == b.Path {
		t.Errorf("two sessions of one minute at one path: %s", a.Path)
	}
}

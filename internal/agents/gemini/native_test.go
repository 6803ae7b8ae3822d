package gemini

import "testing"

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

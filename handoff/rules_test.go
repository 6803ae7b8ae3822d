package handoff

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNormalizeTrimsAndRejectsEmptyItems(t *testing.T) {
	r, err := New(time.Date(2026, 11, 23, 9, 0, 0, 0, time.FixedZone("x", 3600)), " Codex ", "  Title  ")
	if err != nil {
		t.Fatal(err)
	}
	r.NextSteps = []string{" a ", "b"}
	r.Tags = []string{"auth", "auth", "perf"}
	r.Project.Path = "/src/app"
	if err := r.Normalize(); err != nil {
		t.Fatal(err)
	}
	if r.Title != "Title" || r.Tool != "codex" || r.NextSteps[0] != "a" || len(r.Tags) != 2 || r.Project.Name != "app" {
		t.Fatalf("not normalised: %+v", r)
	}
	if r.CreatedAt.Location() != time.UTC {
		t.Fatal("created_at not UTC")
	}
	if errs := r.Check(); len(errs) != 0 {
		t.Fatalf("Check: %v", errs)
	}
	for _, field := range []string{"decision", "next step", "question"} {
		r2, _ := New(time.Now(), "codex", "t")
		switch field {
		case "decision":
			r2.Decisions = []string{"ok", " \t\n"}
		case "next step":
			r2.NextSteps = []string{""}
		case "question":
			r2.OpenQuestions = []string{"   "}
		}
		err := r2.Normalize()
		if !errors.Is(err, ErrEmptyItem) || !strings.HasPrefix(err.Error(), field) {
			t.Errorf("%s: got %v", field, err)
		}
	}
}

func TestCheckListsEveryViolation(t *testing.T) {
	r := &Record{SchemaVersion: 2, ID: "nope", Tool: "Bad Tool", Tags: []string{"-x"},
		Project: Project{Path: "relative/path"}, Source: Source{Kind: SourceImport}}
	errs := r.Check()
	want := []string{"schema_version", "id", "tool", "title", "tags/0", "project.path", "source.import"}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors %v, want %d", len(errs), errs, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i].Error(), w) {
			t.Errorf("error %d = %v, want prefix %q", i, errs[i], w)
		}
	}
}

// TestValidTagMatchesTheSchemaPattern holds ValidTag to the pattern the
// schema states for tags.
func TestValidTagMatchesTheSchemaPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}._:/+-]{0,63}$`)
	cases := []string{"", "a", "auth", "Auth-2", "ünïcødé", "日本語", "a/b:c+d.e_f-g", ".x", "-x", "x y", "x\n", "x\x00",
		strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("é", 64), strings.Repeat("é", 65), "\xff", "a\xffb", "x\ufffd", "٣"}
	for _, c := range cases {
		if got, want := ValidTag(c), pattern.MatchString(c); got != want {
			t.Errorf("ValidTag(%q) = %v, the pattern says %v", c, got, want)
		}
	}
}

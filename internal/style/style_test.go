package style

import (
	"reflect"
	"strings"
	"testing"
)

// always and never are obeyed; auto paints a terminal only, and NO_COLOR
// or TERM=dumb win over auto.
func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		m       Mode
		noColor string
		term    string
		tty     bool
		want    bool
	}{
		{Auto, "", "xterm", true, true},
		{"", "", "xterm", true, true},
		{Auto, "1", "xterm", true, false},
		{Auto, "", "dumb", true, false},
		{Auto, "", "xterm", false, false},
		{Always, "1", "dumb", false, true},
		{Never, "", "xterm", true, false},
	} {
		if got := Choose(tc.m, tc.noColor, tc.term, tc.tty); got != tc.want {
			t.Errorf("Choose(%q, NO_COLOR=%q, TERM=%q, tty=%v) = %v", tc.m, tc.noColor, tc.term, tc.tty, got)
		}
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("ParseMode took sometimes")
	}
}

// Painting a column's cells keeps the padding outside the codes, so the
// text without its codes is the table as it was.
func TestSpan(t *testing.T) {
	header := "ID  ORIGIN     TITLE"
	from, to, ok := Column(header, "ORIGIN")
	if !ok || from != 4 || to != 15 {
		t.Fatalf("Column: %d %d %v", from, to, ok)
	}
	st := Style{On: true}
	row := "é1  mine       Auth"
	got := Span(row, from, to, st.Good)
	if got != "é1  \x1b[32mmine\x1b[0m       Auth" {
		t.Fatalf("Span: %q", got)
	}
	if f, _, ok := Column(header, "TITLE"); !ok || Span(row, f, 1<<30, st.Bold) != "é1  mine       \x1b[01mAuth\x1b[0m" {
		t.Fatalf("last column: %q", Span(row, f, 1<<30, st.Bold))
	}
	if (Style{}).Good("x") != "x" || Span("ab", 5, 9, st.Bold) != "ab" {
		t.Fatal("painted with colour off, or past the line")
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  []string
	}{
		{"fix the login redirect", 10, []string{"fix the", "login", "redirect"}},
		{"abcdefghijkl", 5, []string{"abcde", "fghij", "kl"}},
		{"", 5, []string{""}},
		{"ünïcödé wörds", 7, []string{"ünïcödé", "wörds"}},
	} {
		got := Wrap(tc.in, tc.width)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
		for _, l := range got {
			if n := len([]rune(l)); n > tc.width || strings.HasPrefix(l, " ") {
				t.Errorf("Wrap(%q, %d): line %q", tc.in, tc.width, l)
			}
		}
	}
}

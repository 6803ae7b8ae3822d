package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/style"
	"github.com/session-handoff/session-handoff/store"
)

// On a terminal, list is painted by default, and NO_COLOR (or
// --color=never) wins over auto; --color=always paints anywhere.
func TestColorOnATerminal(t *testing.T) {
	env := tempEnv(t)
	seed(t, env, handoff.Record{Tool: "codex", Title: "Rate limiter", Project: handoff.Project{Path: "/src/api"}})
	list := func(tty bool, mode style.Mode, noColor string) string {
		t.Helper()
		e := map[string]string{"NO_COLOR": noColor, "TERM": "xterm"}
		for k, v := range env {
			e[k] = v
		}
		var out bytes.Buffer
		a := newTestApp(context.Background(), nil, &out, &out, e)
		a.stdoutTTY, a.global.color.mode = tty, mode
		if err := runList(a, &listOptions{filter: store.Filter{Limit: defaultListLimit}}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	painted := func(s string) bool { return strings.Contains(s, "\x1b[") }
	if !painted(list(true, "", "")) {
		t.Error("a terminal without NO_COLOR is not painted")
	}
	if painted(list(true, style.Auto, "1")) {
		t.Error("NO_COLOR did not win over auto on a terminal")
	}
	if painted(list(true, style.Never, "")) {
		t.Error("--color=never painted")
	}
	if painted(list(false, style.Auto, "")) {
		t.Error("a pipe was painted")
	}
	if !painted(list(false, style.Always, "1")) {
		t.Error("--color=always did not paint")
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")

// The picker wraps a long title under itself within 120 columns, keeping
// every word, and paints the chosen row bold when colour is on.
func TestPickerWrapsLongTitles(t *testing.T) {
	long := strings.Repeat("refresh the token parser and the session store ", 3)
	rec, err := handoff.New(time.Now(), "codex", "short one")
	if err != nil {
		t.Fatal(err)
	}
	entries := []store.Entry{
		{ID: rec.ID, CreatedAt: time.Now(), Tool: "codex", ProjectName: "api", Title: long},
		{ID: rec.ID, CreatedAt: time.Now(), Tool: "codex", ProjectName: "api", Title: "short one"},
	}
	p := picker{entries: entries, now: time.Now(), style: style.Style{On: true}}
	p.filter()
	var out bytes.Buffer
	p.draw(&out, 24)
	text := out.String()
	if !strings.Contains(text, "\x1b[01m> ") {
		t.Errorf("the chosen row is not bold:\n%q", text)
	}
	plain := ansi.ReplaceAllString(text, "")
	var rows []string
	for _, l := range strings.Split(plain, "\r\n") {
		if n := utf8.RuneCountInString(l); n > pickerWidth {
			t.Errorf("a line of %d columns: %q", n, l)
		}
		rows = append(rows, strings.TrimSpace(l))
	}
	joined := strings.Join(rows, " ")
	if !strings.Contains(joined, strings.TrimSpace(long[:len(long)-60])) {
		t.Errorf("the title lost words:\n%s", plain)
	}
	if !strings.Contains(plain, "short one") || strings.Count(plain, "\r\n") < 5 {
		t.Errorf("want the long title over several lines, then the short one:\n%s", plain)
	}
}

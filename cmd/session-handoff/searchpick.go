package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/session-handoff/session-handoff/internal/search"
	"github.com/session-handoff/session-handoff/internal/style"
)

// search without a query on a terminal opens the picker over the index:
// each key typed runs the query again (in process, a few milliseconds),
// up/down move, enter chooses, esc cancels. The chosen result's command
// that opens it is printed on standard output, so that
// $(session-handoff search) can feed a shell.

// maxPickQuery bounds what can be typed: the query language's own bound.
const maxPickQuery = 1024

// searchPicker is the state of the interactive search: what is typed,
// what it found, and the cursor. It draws into lines and reads keys; the
// terminal is the caller's.
type searchPicker struct {
	style  style.Style
	query  []rune
	hits   []search.Hit
	more   bool
	err    string // why the query cannot run as typed
	cursor int
	limit  int
	// find runs a query: search.ParseQuery, then the index's search.
	find func(q search.Query, limit int) (search.Results, error)
	// open is the command that opens a result.
	open func(search.Doc) string
}

// run searches for what is typed now.
func (p *searchPicker) run() {
	p.hits, p.more, p.err, p.cursor = nil, false, "", 0
	text := strings.TrimSpace(string(p.query))
	if text == "" {
		return
	}
	q, err := search.ParseQuery(text)
	if err != nil {
		p.err = err.Error()
		return
	}
	res, err := p.find(q, p.limit)
	if err != nil {
		p.err = err.Error()
		return
	}
	p.hits, p.more = res.Hits, res.More
}

// keys handles one read from the terminal, which may hold several keys.
// It reports done with the chosen result's open command, or errCancelled.
func (p *searchPicker) keys(b []byte) (string, bool, error) {
	changed := false
	defer func() {
		if changed {
			p.run()
		}
	}()
	for len(b) > 0 {
		k, r, n := nextKey(b)
		b = b[n:]
		switch k {
		case keyUp:
			p.move(-1)
		case keyDown:
			p.move(1)
		case keyEnter:
			if changed {
				p.run()
				changed = false
			}
			if len(p.hits) > 0 {
				return p.open(p.hits[p.cursor].Doc), true, nil
			}
		case keyCancel:
			changed = false
			return "", true, errCancelled
		case keyBackspace:
			if len(p.query) > 0 {
				p.query, changed = p.query[:len(p.query)-1], true
			}
		case keyClear:
			p.query, changed = p.query[:0], true
		case keyRune:
			if len(string(p.query)) < maxPickQuery {
				p.query, changed = append(p.query, r), true
			}
		}
	}
	return "", false, nil
}

func (p *searchPicker) move(d int) {
	p.cursor = min(max(p.cursor+d, 0), max(len(p.hits)-1, 0))
}

// lines are the screen, height lines at most: the query, a status line,
// then two lines a result (its agent, date, project and title; the kind
// and the snippet), the cursor's first, as many before it as fit.
func (p *searchPicker) lines(height int) []string {
	out := []string{"search> " + cell(string(p.query), 200)}
	switch {
	case p.err != "":
		out = append(out, cell(p.err, pickerWidth))
	case strings.TrimSpace(string(p.query)) == "":
		out = append(out, "type to search every past session and handoff (enter opens, esc cancels)")
	default:
		more := ""
		if p.more {
			more = " (more: type more words)"
		}
		out = append(out, fmt.Sprintf("%d found%s  (up/down, enter prints the command that opens it, esc to cancel)", len(p.hits), more))
	}
	rows := max((height-len(out))/2, 1)
	start := max(0, p.cursor-rows+1)
	for i := start; i < len(p.hits) && i < start+rows; i++ {
		h := p.hits[i]
		mark := "  "
		if i == p.cursor {
			mark = "> "
		}
		first := fmt.Sprintf("%s%s  %-12s %-24s %s", mark, h.Doc.Time.Local().Format("2006-01-02 15:04"), cell(h.Doc.Agent, 12), cell(h.Doc.CWD, 24), cell(h.Doc.Title, 60))
		second := "    " + h.Kind.String() + ": " + cell(h.Snippet, pickerWidth-8)
		if i == p.cursor {
			first, second = p.style.Bold(first), p.style.Bold(second)
		}
		out = append(out, first, second)
	}
	return out
}

// draw draws the screen on w, height lines, and sizes the next search
// to fill it.
func (p *searchPicker) draw(w io.Writer, height int) {
	p.limit = max((height-2)/2, 1)
	var sb strings.Builder
	sb.WriteString("\x1b[H\x1b[2J")
	for _, l := range p.lines(height) {
		sb.WriteString(l + "\r\n")
	}
	io.WriteString(w, sb.String())
}

// pickSearch runs the search picker on the terminal in, drawing on out;
// the chosen result's open command.
func pickSearch(a *app, in *os.File, out io.Writer, p *searchPicker) (string, error) {
	return runPicker[string](a.ctx, in, out, p)
}

// searchTerminal is the terminal the search picker runs on: standard
// input when it is one, drawn on /dev/tty; ok is false otherwise.
func (a *app) searchTerminal() (in *os.File, tty *os.File, ok bool) {
	f, isFile := a.stdin.(*os.File)
	if !isFile || !a.stdinTTY {
		return nil, nil, false
	}
	t, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return nil, nil, false
	}
	return f, t, true
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/style"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
)

// maxPickerEntries bounds how many handoffs the picker loads.
const maxPickerEntries = 5000

// selectOptions are select's flags.
type selectOptions struct {
	query    string // the filter text the picker starts with
	idPrefix string
	since    string
	tool     string
	project  string
	limit    int
	printID  bool
}

func newSelectCmd(a *app) *cobra.Command {
	var opts selectOptions
	cmd := &cobra.Command{
		Use:   "select [--query TEXT] [--id PREFIX] [--tool T] [--project P] [--since D] [--limit N] [--print-id]",
		Short: "pick a handoff interactively (type to filter, arrows, enter)",
		Long: `Opens a picker on the terminal: type to filter, up/down (or ctrl-p/ctrl-n)
to move, enter to choose, esc or ctrl-c to cancel. The filter, like
--query, looks in every text field of the handoffs (the whole summary,
decisions, next steps, questions, tags, files), ignoring case. The chosen
handoff is printed as 'show' would, or only its id with --print-id, so
the picker can feed other commands.

Without a terminal (in scripts, as session-handoff v0.7.5's select
worked): --print-id prints the newest match's id at once; otherwise the
matches are listed, numbered, on stderr, a number is read from standard
input, and the chosen id is printed.`,
		Example: `  session-handoff select --since 1w
  session-handoff show "$(session-handoff select --print-id)"
  session-handoff select --query refresh --print-id
  echo 2 | session-handoff select --tool codex --limit 5`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runSelect(a, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.query, "query", "", "start with this filter text")
	f.StringVar(&opts.idPrefix, "id", "", "only ids starting with this prefix")
	f.StringVar(&opts.since, "since", "", "only handoffs newer than this (6h, 2d, 2026-11-20)")
	f.StringVar(&opts.tool, "tool", "", "only handoffs from this agent")
	f.StringVar(&opts.project, "project", "", "only handoffs for this project name or directory")
	f.IntVar(&opts.limit, "limit", 0, "offer at most this many, newest first (0 for all)")
	f.BoolVar(&opts.printID, "print-id", false, "print only the chosen id")
	return cmd
}

func runSelect(a *app, opts selectOptions) error {
	if opts.limit < 0 {
		return usagef("--limit must be 0 or more")
	}
	in, ok := a.stdin.(*os.File)
	if !ok || !a.stdinTTY {
		return runSelectScript(a, opts)
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return runSelectScript(a, opts)
	}
	defer tty.Close()
	s, entries, err := selectEntries(a, opts, false)
	if err != nil {
		return err
	}
	chosen, err := pick(a, in, tty, entries, opts.query, s)
	if err != nil {
		return err
	}
	if opts.printID {
		fmt.Fprintln(a.stdout, chosen)
		return nil
	}
	rec, err := s.Get(chosen)
	if err != nil {
		return err
	}
	a.printRecord(rec)
	return nil
}

// errCancelled is returned when the user leaves the picker without a choice.
var errCancelled = errors.New("cancelled")

// pick runs the picker on the terminal: keys from in, drawing on out.
func pick(a *app, in *os.File, out io.Writer, entries []store.Entry, query string, s *store.Store) (handoff.ID, error) {
	p := picker{entries: entries, query: []rune(query), now: time.Now(), text: recordText(s, entries), style: a.ttyStyle()}
	p.filter()
	return runPicker[handoff.ID](a.ctx, in, out, &p)
}

// pickerModel is what runPicker drives: a screen to draw, and the keys
// read from the terminal, until they say done.
type pickerModel[T any] interface {
	draw(w io.Writer, height int)
	keys(b []byte) (T, bool, error)
}

// runPicker runs m on the terminal in, raw, drawing on out's alternate
// screen, until m is done or ctx ends (errCancelled).
func runPicker[T any](ctx context.Context, in *os.File, out io.Writer, m pickerModel[T]) (T, error) {
	var none T
	old, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return none, fmt.Errorf("set up terminal: %w", err)
	}
	defer term.Restore(int(in.Fd()), old)
	fmt.Fprint(out, "\x1b[?1049h") // alternate screen
	defer fmt.Fprint(out, "\x1b[?1049l")
	buf := make([]byte, 64)
	for {
		_, height, err := term.GetSize(int(in.Fd()))
		if err != nil || height < 4 {
			height = 24
		}
		m.draw(out, height)
		n, err := in.Read(buf)
		if err != nil {
			return none, fmt.Errorf("read terminal: %w", err)
		}
		if ctx.Err() != nil {
			return none, errCancelled
		}
		if v, done, err := m.keys(buf[:n]); done {
			return v, err
		}
	}
}

// picker is the state of the interactive list.
type picker struct {
	style   style.Style // the chosen row is bold when colour is on
	entries []store.Entry
	shown   []int // indexes into entries that match the query
	query   []rune
	cursor  int
	now     time.Time
	// text is entry i's searchable text in lower case
	// (handoff.Record.SearchText), read when the index fields do not
	// match; nil to search only those.
	text func(i int) string
}

func (p *picker) filter() {
	q := strings.ToLower(strings.TrimSpace(string(p.query)))
	p.shown = p.shown[:0]
	for i, e := range p.entries {
		if e.Matches(q) || (p.text != nil && strings.Contains(p.text(i), q)) {
			p.shown = append(p.shown, i)
		}
	}
	if p.cursor >= len(p.shown) {
		p.cursor = max(0, len(p.shown)-1)
	}
}

// keys handles one read from the terminal, which may hold several keys
// (typed fast or pasted). It reports done with the chosen id, or with
// errCancelled.
func (p *picker) keys(b []byte) (handoff.ID, bool, error) {
	for len(b) > 0 {
		k, r, n := nextKey(b)
		b = b[n:]
		switch k {
		case keyUp:
			p.move(-1)
		case keyDown:
			p.move(1)
		case keyEnter:
			if len(p.shown) > 0 {
				return p.entries[p.shown[p.cursor]].ID, true, nil
			}
		case keyCancel:
			return "", true, errCancelled
		case keyBackspace:
			if len(p.query) > 0 {
				p.query = p.query[:len(p.query)-1]
				p.filter()
			}
		case keyClear:
			p.query = p.query[:0]
			p.filter()
		case keyRune:
			p.query = append(p.query, r)
			p.cursor = 0
			p.filter()
		}
	}
	return "", false, nil
}

// pickKey is a key a picker reads from the terminal.
type pickKey int

const (
	keyOther     pickKey = iota // a key the pickers ignore
	keyUp                       // up arrow, ctrl-p
	keyDown                     // down arrow, ctrl-n
	keyEnter                    // enter
	keyCancel                   // esc, ctrl-c, ctrl-d
	keyBackspace                // backspace, ctrl-h
	keyClear                    // ctrl-u
	keyRune                     // a printable character, the rune
)

// nextKey decodes the first key of b (not empty): what it is, the rune
// typed for keyRune, and how many bytes it takes.
func nextKey(b []byte) (k pickKey, r rune, n int) {
	switch {
	case len(b) >= 3 && b[0] == 0x1b && (b[1] == '[' || b[1] == 'O'):
		switch b[2] {
		case 'A':
			return keyUp, 0, 3
		case 'B':
			return keyDown, 0, 3
		}
		return keyOther, 0, 3
	case b[0] == 0x10: // ctrl-p
		return keyUp, 0, 1
	case b[0] == 0x0e: // ctrl-n
		return keyDown, 0, 1
	case b[0] == '\r' || b[0] == '\n':
		return keyEnter, 0, 1
	case b[0] == 0x1b || b[0] == 0x03 || b[0] == 0x04:
		return keyCancel, 0, 1
	case b[0] == 0x7f || b[0] == 0x08:
		return keyBackspace, 0, 1
	case b[0] == 0x15:
		return keyClear, 0, 1
	case b[0] >= 0x20:
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError || r == 0x7f {
			return keyOther, 0, size
		}
		return keyRune, r, size
	}
	return keyOther, 0, 1
}

func (p *picker) move(d int) {
	p.cursor = min(max(p.cursor+d, 0), max(len(p.shown)-1, 0))
}

// pickerWidth is the picker's line width: a long title wraps under itself
// to stay within it.
const pickerWidth = 120

// rowLines are the lines of the entry shown at i: its cells, and its title
// wrapped under itself within pickerWidth.
func (p *picker) rowLines(i int) []string {
	e := p.entries[p.shown[i]]
	mark := "  "
	if i == p.cursor {
		mark = "> "
	}
	prefix := fmt.Sprintf("%s%s  %-9s %-12s %-20s ", mark, e.ID.Short(), render.Ago(e.CreatedAt, p.now), cell(e.Tool, 12), cell(e.ProjectName, 20))
	at := utf8.RuneCountInString(prefix)
	width := max(pickerWidth-at, 20)
	title := style.Wrap(cell(e.Title, 3*width), width)
	lines := []string{prefix + title[0]}
	for _, t := range title[1:] {
		lines = append(lines, strings.Repeat(" ", at)+t)
	}
	return lines
}

func (p *picker) draw(w io.Writer, height int) {
	var sb strings.Builder
	sb.WriteString("\x1b[H\x1b[2J")
	fmt.Fprintf(&sb, "select a handoff> %s\r\n", cell(string(p.query), 60))
	fmt.Fprintf(&sb, "%d of %d  (up/down, enter to choose, esc to cancel)\r\n", len(p.shown), len(p.entries))
	rows := height - 3
	// The first entry drawn: the cursor's, and as many before it as fit.
	start, used := p.cursor, 0
	if len(p.shown) > 0 {
		used = len(p.rowLines(start))
		for start > 0 && used+len(p.rowLines(start-1)) <= rows {
			start--
			used += len(p.rowLines(start))
		}
	}
	used = 0
	for i := start; i < len(p.shown); i++ {
		lines := p.rowLines(i)
		if used+len(lines) > rows && i != start {
			break
		}
		used += len(lines)
		for _, l := range lines {
			if i == p.cursor {
				l = p.style.Bold(l)
			}
			sb.WriteString(l + "\r\n")
		}
	}
	io.WriteString(w, sb.String())
}

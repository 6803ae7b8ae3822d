package native

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Writers lists the targets a session can be written for: the agents
// whose folder declares a native writer, in the table's order.
func Writers() []Writer {
	var out []Writer
	for _, a := range agents.All() {
		if a.Native != nil {
			out = append(out, a.Native)
		}
	}
	return out
}

// Names lists the targets' names.
func Names() []string {
	var out []string
	for _, w := range Writers() {
		out = append(out, w.Name())
	}
	return out
}

// Lookup finds the writer for the target agent name.
func Lookup(name string) (Writer, error) {
	if a, err := agents.Lookup(name); err == nil {
		name = a.Name
	}
	var names []string
	for _, w := range Writers() {
		if w.Name() == name {
			return w, nil
		}
		names = append(names, w.Name())
	}
	return nil, fmt.Errorf("no native session writer for %s (one of %s); without --native, launch starts an agent it can start with a briefing instead",
		name, strings.Join(names, ", "))
}

// ErrReadBack is wrapped when what was written does not read back as the
// conversation it was written from.
var ErrReadBack = errors.New("the written session does not read back as written")

// Write writes p: its directories made (mode 0700), the file created
// atomically and never over an existing one, then read back through the
// project's reader for the target. A session that does not read back is
// removed again, with an error wrapping ErrReadBack.
func Write(p *Planned) error {
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o700); err != nil {
		return fmt.Errorf("make %s: %w", filepath.Dir(p.Path), err)
	}
	if m := p.Marker; m != nil {
		if err := safefile.Create(m.Path, m.Data, 0o600); errors.Is(err, fs.ErrExist) {
			if have, _ := safefile.ReadFile(m.Path, int64(len(m.Data))+1); !bytes.Equal(have, m.Data) {
				return fmt.Errorf("%s: it names another project; nothing written", m.Path)
			}
		} else if err != nil {
			return fmt.Errorf("write %s: %w", m.Path, err)
		}
	}
	if err := safefile.Create(p.Path, p.Data, 0o600); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: a session is there already; nothing written", p.Path)
		}
		return fmt.Errorf("write %s: %w", p.Path, err)
	}
	if err := ReadBack(p); err != nil {
		_ = os.Remove(p.Path)
		return err
	}
	return nil
}

// ReadBack reads p's file through the project's reader for its target
// and compares the conversation it holds with the one p was written
// from.
func ReadBack(p *Planned) error {
	got := &Conversation{}
	calls := map[string]int{}
	lim := transcript.Limits{Observe: func(e transcript.Event) { add(got, e, calls, 0) }}
	d, err := capture.ReadTranscript(capture.Agent(p.Target), p.Path, lim)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrReadBack, p.Path, err)
	}
	if d.Session.ID != p.ID {
		return fmt.Errorf("%w: %s: session id %q, not %q", ErrReadBack, p.Path, d.Session.ID, p.ID)
	}
	return Same(p.Want, got)
}

// Same reports how got, read back, differs from want, as written: the
// same user and assistant texts and tool calls, in the same order, each
// call with its command and output.
func Same(want, got *Conversation) error {
	w, g := want.Turns, got.Turns
	for i := 0; i < max(len(w), len(g)); i++ {
		if i >= len(w) || i >= len(g) {
			return fmt.Errorf("%w: %d turns, not %d", ErrReadBack, len(g), len(w))
		}
		a, b := w[i], g[i]
		if a.Kind != b.Kind || a.Text != b.Text || a.Kind == Call && !strings.Contains(b.Output, a.Output) {
			return fmt.Errorf("%w: turn %d differs: %s", ErrReadBack, i+1, differs(a, b))
		}
	}
	return nil
}

// differs says briefly how the turn got differs from want.
func differs(want, got Turn) string {
	switch {
	case want.Kind != got.Kind:
		return fmt.Sprintf("kind %d, not %d", got.Kind, want.Kind)
	case want.Text != got.Text:
		return fmt.Sprintf("text %s, not %s", untrusted.Quote(got.Text, 80), untrusted.Quote(want.Text, 80))
	}
	return fmt.Sprintf("output %s lacks %s", untrusted.Quote(got.Output, 80), untrusted.Quote(want.Output, 80))
}

// checkedVersion reports whether v is one of checked.
func checkedVersion(v string, checked []string) bool { return slices.Contains(checked, v) }

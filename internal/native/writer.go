package native

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Options say where and how a session is written.
type Options struct {
	// Home is the target agent's own directory, where it keeps its
	// sessions (~/.codex, ~/.claude, ~/.gemini, or the one its
	// environment names).
	Home string
	// CWD is the worktree the session is resumed in: the target finds
	// the session by it.
	CWD string
	// Now is the time the session is written at.
	Now time.Time
	// ID is the new session's id; "" makes a new one.
	ID string
}

// Planned is a session a Writer would write: nothing is on disk yet.
type Planned struct {
	Target string   // the target agent's name
	ID     string   // the new session's id
	Path   string   // the file it is written to
	Data   []byte   // what is written
	Resume []string // the target's own command that resumes it
	// Marker, when set, is a file the target needs beside the session
	// (Gemini CLI's .project_root), made first unless it is there with
	// the same content.
	Marker *File
	// conv is the conversation as the target should read it back.
	conv *Conversation
}

// File is a file to write.
type File struct {
	Path string
	Data []byte
}

// Writer lays a conversation out in one target agent's format.
type Writer interface {
	// Name is the target agent's name, as the agents table spells it.
	Name() string
	// Checked lists the versions of the agent the format was checked
	// against, by the real-agent suite (internal/e2e).
	Checked() []string
	// Plan lays c out for the target under o.
	Plan(c *Conversation, o Options) (*Planned, error)
}

// Writers lists the targets a session can be written for.
func Writers() []Writer { return []Writer{Codex{}, ClaudeCode{}, Gemini{}, QwenCode{}} }

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
	lim := transcript.Limits{Observe: func(e transcript.Event) { got.add(e, calls) }}
	d, err := capture.ReadTranscript(capture.Agent(p.Target), p.Path, lim)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrReadBack, p.Path, err)
	}
	if d.Session.ID != p.ID {
		return fmt.Errorf("%w: %s: session id %q, not %q", ErrReadBack, p.Path, d.Session.ID, p.ID)
	}
	return Same(p.conv, got)
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

// newRandomID is a new random UUID (version 4), for a target that takes
// no other version (Qwen Code: versions 1 to 5).
func newRandomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = 0x40 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
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

// newID is a new UUID (version 7: time-ordered, as Codex makes them).
func newID(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	ms := uint64(now.UnixMilli())
	var t [8]byte
	binary.BigEndian.PutUint64(t[:], ms<<16)
	copy(b[:6], t[:6])
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// written is c as a target reads it back: the imported turn first, then
// c's turns, each text as the target keeps it (fit turns it into the
// target's form).
func written(c *Conversation, target string, fit func(Turn) Turn) *Conversation {
	out := &Conversation{Source: c.Source, CWD: c.CWD, Title: c.Title}
	out.Turns = append(out.Turns, fit(Turn{Kind: User, Text: c.Imported(target)}))
	for _, t := range c.Turns {
		t = fit(t)
		if t.Kind != Call && strings.TrimSpace(t.Text) == "" || out.repeats(t) {
			continue
		}
		out.Turns = append(out.Turns, t)
	}
	return out
}

// repeats reports whether t is an assistant turn that says again what
// the agent said last since the last user turn: readers of agents that
// record a message twice (as an event and as an item) tell it twice.
func (c *Conversation) repeats(t Turn) bool {
	if t.Kind != Assistant {
		return false
	}
	for i := len(c.Turns) - 1; i >= 0; i-- {
		switch c.Turns[i].Kind {
		case User:
			return false
		case Assistant:
			return c.Turns[i].Text == t.Text
		}
	}
	return false
}

// program is the program that starts the agent name.
func program(name string) string {
	if a, ok := agents.Find(name); ok && a.Program != "" {
		return a.Program
	}
	return name
}

// checkedVersion reports whether v is one of checked.
func checkedVersion(v string, checked []string) bool { return slices.Contains(checked, v) }

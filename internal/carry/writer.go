package carry

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Writer lays a conversation out in one target agent's format. An
// agent's folder declares its own (agent.Agent.Native).
type Writer interface {
	// Name is the target agent's name, as the agents table spells it.
	Name() string
	// Checked lists the versions of the agent the format was checked
	// against, by the real-agent suite (internal/e2e), oldest first.
	Checked() []string
	// Plan lays c out for the target under o.
	Plan(c *Conversation, o Options) (*Planned, error)
}

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
	// Getenv is the environment, for a target whose own variables move
	// where it looks for sessions; nil reads none.
	Getenv func(string) string
}

// Env is the value of the environment variable key under o ("" without
// an environment).
func (o Options) Env(key string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(key)
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
	// Want is the conversation as the target should read it back.
	Want *Conversation
}

// File is a file to write.
type File struct {
	Path string
	Data []byte
}

// Draft is a session being laid out, one JSON value a line: the
// scaffold every JSON Lines writer shares.
type Draft struct {
	Target string
	ID     string
	Now    time.Time // when the session is written
	// Want is the conversation as the target reads it back: the lines
	// are written from its turns.
	Want *Conversation
	ts   time.Time
	n    int
	last string
	buf  bytes.Buffer
}

// Begin starts laying c out for target under o, which must name the
// target's home and the worktree: the session's id is o.ID, else
// newID(now); fit is a turn as the target's reader reads it back.
func Begin(target string, c *Conversation, o Options, newID func(time.Time) string, fit func(Turn) Turn) (*Draft, error) {
	if o.Home == "" || o.CWD == "" {
		return nil, fmt.Errorf("%s: no home or working directory to write for", target)
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	id := o.ID
	if id == "" {
		id = newID(now)
	}
	return &Draft{Target: target, ID: id, Now: now, ts: now.UTC(), Want: Written(c, target, fit)}, nil
}

// Stamp is the time of the next record, each a millisecond after the
// one before, as JavaScript writes a time.
func (d *Draft) Stamp() string {
	s := d.ts.Format("2006-01-02T15:04:05.000Z")
	d.ts = d.ts.Add(time.Millisecond)
	return s
}

// Link is the uuid of the next record of a chained session (each line's
// uuid and the one before as its parentUuid: nil for the first).
func (d *Draft) Link() (uuid string, parent any) {
	if d.last != "" {
		parent = d.last
	}
	d.n++
	d.last = fmt.Sprintf("%s-%08x", d.ID[:min(len(d.ID), 23)], d.n)
	return d.last, parent
}

// Line appends v as one line of JSON.
func (d *Draft) Line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	d.buf.Write(b)
	d.buf.WriteByte('\n')
	return nil
}

// Turn wraps the error of laying out turn i.
func (d *Draft) Turn(i int, err error) error {
	return fmt.Errorf("%s: turn %d: %w", d.Target, i+1, err)
}

// Planned is the session laid out: its lines, at path, resumed by
// resume.
func (d *Draft) Planned(path string, resume ...string) *Planned {
	return &Planned{Target: d.Target, ID: d.ID, Path: path, Data: d.buf.Bytes(), Resume: resume, Want: d.Want}
}

// NewID is a new UUID (version 7: time-ordered, as Codex CLI makes
// them).
func NewID(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	var t [8]byte
	binary.BigEndian.PutUint64(t[:], uint64(now.UnixMilli())<<16)
	copy(b[:6], t[:6])
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return uuid(b)
}

// NewRandomID is a new random UUID (version 4), for a target that takes
// no other version (Qwen Code: versions 1 to 5).
func NewRandomID(time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = 0x40 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return uuid(b)
}

func uuid(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// DashPath is path with every character but an ASCII letter or digit
// turned into "-": how Claude Code (and Qwen Code, its sanitizeCwd) name
// a project's directory after its path.
func DashPath(path string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, path)
}

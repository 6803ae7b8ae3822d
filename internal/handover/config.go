// Package handover runs the writes that end a session (save or capture
// the handoff, write memory notes, render HANDOFF.md, export, publish) as
// a sequence of checkpointed steps. A run killed at any instant is
// detected by Check and finished by the next Run, which skips the steps
// that completed and feeds their outputs to the rest. A PAUSE file stops
// every automated write.
package handover

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/memory"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Step kinds.
const (
	KindCapture     = "capture"
	KindSave        = "save"
	KindMemory      = "memory"
	KindHandoffFile = "handoff-file"
	KindExport      = "export"
	KindPublish     = "publish"
	KindSend        = "send"
	KindExec        = "exec"
)

// Kinds lists the step kinds, in the order they usually run.
var Kinds = []string{KindCapture, KindSave, KindMemory, KindHandoffFile, KindExport, KindPublish, KindSend, KindExec}

// Limits on a configuration.
const (
	// MaxConfigSize bounds the configuration file.
	MaxConfigSize = 256 << 10
	// MaxSteps bounds the steps of one run.
	MaxSteps = 64
	// MaxTimeout bounds any step's timeout.
	MaxTimeout = time.Hour
	// DefaultTimeout is a step's timeout when the configuration gives none.
	DefaultTimeout = 2 * time.Minute
)

// Config is a handover configuration: the steps of a run, in order.
type Config struct {
	// Memory is the memory directory, relative to the project root
	// (default "memory").
	Memory string `toml:"memory"`
	Steps  []Step `toml:"steps"`
}

// Step is one step of a run. Which fields apply depends on Kind; a field
// that does not apply to the kind is an error, so a typo is never ignored.
type Step struct {
	// Name is unique within the configuration; the checkpoint refers to
	// steps by name.
	Name string `toml:"name"`
	Kind string `toml:"kind"`
	// Timeout bounds the step ("30s", "5m"); DefaultTimeout when empty.
	Timeout Duration `toml:"timeout"`

	// Run is the exec step's command, run by /bin/sh -c in the project
	// directory.
	Run string `toml:"run"`

	// From is the agent capture reads (claude-code, codex, gemini, auto).
	From string `toml:"from"`
	// Fallback "save" (also when empty, as FORMAT.md says) makes capture
	// save the handoff from git alone when no agent session is found;
	// "none" fails the step instead.
	Fallback string `toml:"fallback"`
	// Title and Tool are used by save (and by capture's fallback).
	Title string `toml:"title"`
	Tool  string `toml:"tool"`
	// WithChanges makes save and capture attach the worktree's
	// uncommitted changes (changes.patch); a secret in them fails the
	// step.
	WithChanges bool `toml:"with_changes"`

	// Action is what a memory step does: note (layer 1), state (layer 2)
	// or compact.
	Action string `toml:"action"`
	// Tag is the memory note's tag (default "session").
	Tag string `toml:"tag"`
	// KeepDays is how many days of layer-1 notes compact keeps (default 30).
	KeepDays int `toml:"keep_days"`

	// Target is the agent HANDOFF.md is rendered for (default generic).
	Target string `toml:"target"`

	// To lists export's recipients (age1…, ssh keys, or files of them)
	// or send's (names from the address book, or keys); Output is the
	// exported bundle's path, relative to the project.
	To     []string `toml:"to"`
	Output string   `toml:"output"`

	// Remote and Branch are where publish pushes (default: the branch's
	// upstream, else origin and the current branch, as the earlier
	// agent-handover's GitBackend did); Remote is also the inbox send uses
	// (see 'remote add'; default: the only one configured).
	Remote string `toml:"remote"`
	Branch string `toml:"branch"`
	// Push, for publish: false commits without pushing (default true).
	Push *bool `toml:"push"`
	// Message is publish's commit message (default "session-handoff:
	// handover RUN-ID").
	Message string `toml:"message"`
	// Paths are what publish commits, relative to the project (default
	// the memory directory).
	Paths []string `toml:"paths"`
}

// Duration is a time.Duration written as "30s" in TOML.
type Duration struct{ time.Duration }

// UnmarshalText reads a duration such as "90s" or "5m".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: want a number with a unit, like 30s or 5m", handoff.Shorten(string(b), 32))
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as Go prints it.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }

// fieldsByKind says which optional fields each kind takes.
var fieldsByKind = map[string][]string{
	KindCapture:     {"from", "fallback", "title", "tool", "with_changes"},
	KindSave:        {"title", "tool", "with_changes"},
	KindMemory:      {"action", "tag", "keep_days"},
	KindHandoffFile: {"target"},
	KindExport:      {"to", "output"},
	KindPublish:     {"remote", "branch", "push", "message", "paths"},
	KindSend:        {"remote", "to"},
	KindExec:        {"run"},
}

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`) })

// DefaultConfigTOML is the run used when there is no configuration file:
// capture the latest agent session (or save from git when there is none),
// write a layer-1 note and the layer-2 state, render HANDOFF.md, and
// compact notes older than 30 days. It is a configuration file like any
// other, so it goes through the same parsing and validation (defaults
// such as each step's timeout included) as a user's file.
const DefaultConfigTOML = `memory = "memory"

[[steps]]
name = "capture"
kind = "capture"
from = "auto"
fallback = "save"

[[steps]]
name = "note"
kind = "memory"
action = "note"

[[steps]]
name = "state"
kind = "memory"
action = "state"

[[steps]]
name = "handoff-file"
kind = "handoff-file"

[[steps]]
name = "compact"
kind = "memory"
action = "compact"
`

// DefaultConfig is DefaultConfigTOML parsed.
func DefaultConfig() *Config {
	c, err := ParseConfig([]byte(DefaultConfigTOML))
	if err != nil {
		// The text is a constant that TestDefaultConfig parses.
		panic("handover: the built-in configuration does not parse: " + err.Error())
	}
	return c
}

// ParseConfig reads a configuration strictly: unknown keys, fields that
// do not apply to a step's kind, duplicate names and out-of-range values
// are errors that name the step.
func ParseConfig(data []byte) (*Config, error) {
	if len(data) > MaxConfigSize {
		return nil, fmt.Errorf("over %d bytes", MaxConfigSize)
	}
	var c Config
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&c)
	if err != nil {
		return nil, errors.New(strings.ReplaceAll(err.Error(), "\n", " "))
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("unknown key %q", handoff.Shorten(und[0].String(), 64))
	}
	// A field its kind does not take is refused, not ignored.
	for i := range c.Steps {
		st := &c.Steps[i]
		allowed, ok := fieldsByKind[st.Kind]
		if !ok {
			return nil, fmt.Errorf("step %d (%s): kind %q: want one of %s", i+1, handoff.Shorten(st.Name, 64),
				handoff.Shorten(st.Kind, 32), strings.Join(Kinds, ", "))
		}
		for _, f := range setFields(st) {
			if !slices.Contains(allowed, f) {
				return nil, fmt.Errorf("step %q: %q does not apply to kind %s", handoff.Shorten(st.Name, 64), f, st.Kind)
			}
		}
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// setFields lists the optional fields a step has set.
func setFields(st *Step) []string {
	var out []string
	add := func(name string, set bool) {
		if set {
			out = append(out, name)
		}
	}
	add("run", st.Run != "")
	add("from", st.From != "")
	add("fallback", st.Fallback != "")
	add("title", st.Title != "")
	add("tool", st.Tool != "")
	add("with_changes", st.WithChanges)
	add("action", st.Action != "")
	add("tag", st.Tag != "")
	add("keep_days", st.KeepDays != 0)
	add("target", st.Target != "")
	add("to", len(st.To) > 0)
	add("output", st.Output != "")
	add("remote", st.Remote != "")
	add("branch", st.Branch != "")
	add("push", st.Push != nil)
	add("message", st.Message != "")
	add("paths", len(st.Paths) > 0)
	return out
}

// validate checks what the types cannot.
func (c *Config) validate() error {
	if c.Memory == "" {
		c.Memory = "memory"
	}
	if err := relativePath(c.Memory); err != nil {
		return fmt.Errorf("memory %q: %w", handoff.Shorten(c.Memory, 64), err)
	}
	if len(c.Steps) == 0 {
		return errors.New("no steps")
	}
	if len(c.Steps) > MaxSteps {
		return fmt.Errorf("%d steps, over the limit of %d", len(c.Steps), MaxSteps)
	}
	seen := map[string]bool{}
	for i := range c.Steps {
		st := &c.Steps[i]
		where := fmt.Sprintf("step %q", handoff.Shorten(st.Name, 64))
		if !namePattern().MatchString(st.Name) {
			return fmt.Errorf("step %d: name %q: want lower-case letters, digits, - and _", i+1, handoff.Shorten(st.Name, 64))
		}
		if seen[st.Name] {
			return fmt.Errorf("%s: the name is used twice", where)
		}
		seen[st.Name] = true
		if st.Timeout.Duration < 0 || st.Timeout.Duration > MaxTimeout {
			return fmt.Errorf("%s: timeout %s: want between 0 and %s", where, st.Timeout.Duration, MaxTimeout)
		}
		if st.Timeout.Duration == 0 {
			st.Timeout.Duration = DefaultTimeout
		}
		switch st.Kind {
		case KindExec:
			if strings.TrimSpace(st.Run) == "" {
				return fmt.Errorf("%s: an exec step needs run", where)
			}
		case KindCapture:
			if st.From == "" {
				st.From = "auto"
			}
			if st.Fallback != "" && st.Fallback != "save" && st.Fallback != "none" {
				return fmt.Errorf("%s: fallback %q: want save (the default) or none", where, handoff.Shorten(st.Fallback, 32))
			}
		case KindMemory:
			switch st.Action {
			case "note", "state", "compact":
			default:
				return fmt.Errorf("%s: action %q: want note, state or compact", where, handoff.Shorten(st.Action, 32))
			}
			// One tag rule with 'memory write --tag': cleaned as it
			// cleans ("Team/API" is Team-API), refused here, before any
			// step runs, when even cleaned it is not a tag.
			if st.Tag != "" {
				tag, _, err := memory.CleanTag(st.Tag)
				if err != nil {
					return fmt.Errorf("%s: %w", where, err)
				}
				st.Tag = tag
			}
			if st.KeepDays < 0 || st.KeepDays > 36500 {
				return fmt.Errorf("%s: keep_days %d out of range", where, st.KeepDays)
			}
		case KindSend:
			if len(st.To) == 0 {
				return fmt.Errorf("%s: a send step needs to", where)
			}
		case KindPublish:
			if len(st.Paths) > MaxSteps {
				return fmt.Errorf("%s: %d paths, over the limit of %d", where, len(st.Paths), MaxSteps)
			}
			for _, p := range st.Paths {
				if err := relativePath(p); err != nil || p == "" {
					return fmt.Errorf("%s: path %q: %w", where, handoff.Shorten(p, 64), errors.Join(err, emptyPath(p)))
				}
			}
			if strings.ContainsRune(st.Message, 0) || len(st.Message) > 4096 {
				return fmt.Errorf("%s: message: at most 4096 bytes, no NUL", where)
			}
		case KindExport:
			if len(st.To) == 0 || st.Output == "" {
				return fmt.Errorf("%s: an export step needs to and output", where)
			}
			if err := relativePath(st.Output); err != nil {
				return fmt.Errorf("%s: output %q: %w", where, handoff.Shorten(st.Output, 64), err)
			}
		}
		if st.Tool != "" && !handoff.ValidTool(st.Tool) {
			return fmt.Errorf("%s: tool %q: want a lower-case name", where, handoff.Shorten(st.Tool, 32))
		}
	}
	return nil
}

// emptyPath refuses the empty path.
func emptyPath(p string) error {
	if p == "" {
		return errors.New("is empty")
	}
	return nil
}

// relativePath refuses a path that could leave the project.
func relativePath(p string) error {
	if strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return errors.New("must be relative to the project")
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return errors.New("must stay inside the project")
		}
	}
	return nil
}

// LoadConfig reads and checks a configuration file.
func LoadConfig(path string) (*Config, error) {
	data, err := safefile.ReadRegular(path, MaxConfigSize)
	if err != nil {
		return nil, readError(path, err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// readError names path once, however the read failed (an *fs.PathError
// already carries it).
func readError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return safefile.Wrap("read", path, err)
}

// Hash identifies a configuration's content, so that a run resumed under
// a changed configuration is noticed.
func (c *Config) Hash() string {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(c); err != nil {
		// Encoding our own struct cannot fail; a hash of nothing would
		// still differ from any real one.
		return ""
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

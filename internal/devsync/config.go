package devsync

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/tsvconf"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Global is the scope of the setting for every project.
const Global = "*"

// Bounds on the sync file.
const (
	maxFileSize = 1 << 20
	maxSettings = 10_000
)

const header = "session-handoff-sync 1"

// Setting is sync's state for one scope: every project (Global) or one
// project, by its root on this machine.
type Setting struct {
	// Scope is Global or a project's absolute root.
	Scope string `json:"scope"`
	// On says whether sync is on; an "off" for a project overrides a
	// global "on".
	On bool `json:"on"`
	// Remote names the remote to sync through; "" is the only one.
	Remote string `json:"remote,omitempty"`
	// WithChanges carries the worktree's uncommitted changes along.
	WithChanges bool `json:"with_changes,omitempty"`
}

// State is "on" or "off".
func (s Setting) State() string {
	if s.On {
		return "on"
	}
	return "off"
}

// Config is the sync file as read.
type Config struct{ settings []Setting }

// file is the sync file in the configuration directory dir.
func file(dir string) tsvconf.File {
	return tsvconf.File{Path: paths.ConfigDir(dir).Sync(), What: "sync settings", Kind: "sync settings", Header: header,
		Comment: "SCOPE(* or a project root)<TAB>on|off<TAB>REMOTE or -<TAB>changes or -; managed by 'session-handoff sync'",
		MaxSize: maxFileSize, Perm: 0o600}
}

// Load reads the sync settings of the configuration directory dir; a
// missing file is sync off everywhere.
func Load(dir string) (*Config, error) {
	c := &Config{}
	seen := map[string]bool{}
	err := file(dir).Read(func(f []string) error {
		if len(f) != 4 {
			return errors.New("want SCOPE, on|off, REMOTE and changes|- separated by tabs")
		}
		s := Setting{Scope: f[0], On: f[1] == "on", WithChanges: f[3] == "changes"}
		if f[2] != "-" {
			s.Remote = f[2]
		}
		if err := s.check(); err != nil {
			return err
		}
		if (f[1] != "on" && f[1] != "off") || (f[3] != "changes" && f[3] != "-") {
			return errors.New("want on or off, then changes or -")
		}
		if seen[s.Scope] {
			return fmt.Errorf("%s is listed twice", untrusted.Quote(s.Scope, 120))
		}
		if len(c.settings) >= maxSettings {
			return fmt.Errorf("more than %d settings", maxSettings)
		}
		seen[s.Scope] = true
		c.settings = append(c.settings, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (s Setting) check() error {
	if s.Scope != Global && !filepath.IsAbs(s.Scope) {
		return fmt.Errorf("scope %s: want * or an absolute project root", untrusted.Quote(s.Scope, 120))
	}
	return nil
}

// For is the setting that applies to the project at root: its own, else
// the global one, else off.
func (c *Config) For(root string) Setting {
	var global *Setting
	for i, s := range c.settings {
		if s.Scope == root {
			return s
		}
		if s.Scope == Global {
			global = &c.settings[i]
		}
	}
	if global != nil {
		return *global
	}
	return Setting{Scope: Global}
}

// All returns the settings, the global one first, then by project.
func (c *Config) All() []Setting {
	out := append([]Setting(nil), c.settings...)
	sort.Slice(out, func(i, j int) bool {
		if (out[i].Scope == Global) != (out[j].Scope == Global) {
			return out[i].Scope == Global
		}
		return out[i].Scope < out[j].Scope
	})
	return out
}

// Set writes s into the sync file of the configuration directory dir,
// atomically, in place of the setting of its scope.
func Set(dir string, s Setting) error {
	if err := s.check(); err != nil {
		return err
	}
	return file(dir).Update(func() ([][]string, error) {
		c, err := Load(dir)
		if err != nil {
			return nil, err
		}
		kept := []Setting{s}
		for _, o := range c.settings {
			if o.Scope != s.Scope {
				kept = append(kept, o)
			}
		}
		c.settings = kept
		var out [][]string
		for _, o := range c.All() {
			remote, changes := "-", "-"
			if o.Remote != "" {
				remote = o.Remote
			}
			if o.WithChanges {
				changes = "changes"
			}
			out = append(out, []string{o.Scope, o.State(), remote, changes})
		}
		return out, nil
	})
}

// Enabled reports the setting for the project at root when sync is on
// for it. It costs one small read, for the hooks; a damaged file is an
// error, so the hook logs it.
func Enabled(dir, root string) (Setting, bool, error) {
	c, err := Load(dir)
	if err != nil {
		return Setting{}, false, err
	}
	s := c.For(root)
	return s, s.On, nil
}

package remote

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/tsvconf"
)

// DefaultBranch is the branch of the remote that holds the inbox when
// none is given.
const DefaultBranch = "handoffs"

const (
	configHeader  = "session-handoff-remotes 1"
	maxConfigSize = 1 << 20
	maxRemotes    = 1000
	maxURL        = 2048
)

// Errors callers tell apart.
var (
	// ErrNoRemote is wrapped when a remote name is not configured.
	ErrNoRemote = errors.New("no such remote")
	// ErrRemoteExists is wrapped when adding a name that is taken.
	ErrRemoteExists = errors.New("remote already exists")
)

var (
	namePattern   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`) })
	branchPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$`) })
)

// Remote is one configured git remote used as an inbox.
type Remote struct {
	// Name is the local name: lower-case letters, digits, _ and -, at most
	// 32 characters, starting with a letter or digit.
	Name string `json:"name"`
	// URL is anything git push and fetch accept. It may carry credentials;
	// they are never printed (see DisplayURL).
	URL string `json:"-"`
	// Branch holds the inbox (DefaultBranch when empty).
	Branch string `json:"branch"`
}

// DisplayURL is the URL with any password or token removed, for output.
func (r Remote) DisplayURL() string { return git.StripCredentials(r.URL) }

// Check validates the remote's name, URL and branch.
func (r Remote) Check() error {
	if err := ValidateName(r.Name); err != nil {
		return err
	}
	if err := validateURL(r.URL); err != nil {
		return err
	}
	return validateBranch(r.branch())
}

func (r Remote) branch() string {
	if r.Branch == "" {
		return DefaultBranch
	}
	return r.Branch
}

// ValidateName checks a remote's local name.
func ValidateName(name string) error {
	if !namePattern().MatchString(name) {
		return fmt.Errorf("remote name %q: want 1-32 of a-z, 0-9, _ and -, starting with a letter or digit", handoff.Shorten(name, 40))
	}
	return nil
}

func validateURL(u string) error {
	switch {
	case u == "":
		return errors.New("empty remote URL")
	case len(u) > maxURL:
		return fmt.Errorf("remote URL is longer than %d bytes", maxURL)
	case strings.HasPrefix(u, "-"):
		// It would reach git as an option.
		return errors.New("remote URL starts with -")
	}
	for _, c := range u {
		if unicode.IsControl(c) || unicode.IsSpace(c) {
			return errors.New("remote URL contains white space or a control character")
		}
	}
	return nil
}

func validateBranch(b string) error {
	bad := !branchPattern().MatchString(b) || strings.Contains(b, "..") || strings.Contains(b, "//") ||
		strings.HasSuffix(b, "/") || strings.HasSuffix(b, ".") || strings.HasSuffix(b, ".lock") || strings.Contains(b, "/.")
	if bad {
		return fmt.Errorf("branch %q: want a plain git branch name", handoff.Shorten(b, 40))
	}
	return nil
}

// Config is the list of remotes read from the configuration directory.
type Config struct {
	path    string
	remotes []Remote
}

// ConfigPath is the remotes file in the configuration directory dir.
func ConfigPath(dir string) string { return paths.ConfigDir(dir).Remotes() }

// configFile is the remotes file in dir.
func configFile(dir string) tsvconf.File {
	return tsvconf.File{Path: ConfigPath(dir), What: "remotes", Kind: "remotes file", Header: configHeader,
		Comment: "NAME<TAB>URL<TAB>BRANCH; managed by 'session-handoff remote'",
		MaxSize: maxConfigSize, Perm: 0o600}
}

// LoadConfig reads the remotes configured in dir; a missing file is an
// empty list.
func LoadConfig(dir string) (*Config, error) {
	c := &Config{path: ConfigPath(dir)}
	err := configFile(dir).Read(func(f []string) error {
		if len(f) != 3 {
			return errors.New("want NAME, URL and BRANCH separated by tabs")
		}
		r := Remote{Name: f[0], URL: f[1], Branch: f[2]}
		if err := r.Check(); err != nil {
			return err
		}
		if _, ok := c.Lookup(r.Name); ok {
			return fmt.Errorf("remote %s is listed twice", r.Name)
		}
		if len(c.remotes) >= maxRemotes {
			return fmt.Errorf("more than %d remotes", maxRemotes)
		}
		c.remotes = append(c.remotes, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// List returns the remotes sorted by name.
func (c *Config) List() []Remote {
	out := append([]Remote(nil), c.remotes...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a remote by name.
func (c *Config) Lookup(name string) (Remote, bool) {
	for _, r := range c.remotes {
		if r.Name == name {
			return r, true
		}
	}
	return Remote{}, false
}

// Get finds a remote by name, failing with ErrNoRemote.
func (c *Config) Get(name string) (Remote, error) {
	if r, ok := c.Lookup(name); ok {
		return r, nil
	}
	return Remote{}, fmt.Errorf("%q: %w", handoff.Shorten(name, 40), ErrNoRemote)
}

// Add adds r, with the default branch when it names none.
func (c *Config) Add(r Remote) error {
	r.Branch = r.branch()
	if err := r.Check(); err != nil {
		return err
	}
	if _, ok := c.Lookup(r.Name); ok {
		return fmt.Errorf("%s: %w", r.Name, ErrRemoteExists)
	}
	if len(c.remotes) >= maxRemotes {
		return fmt.Errorf("%d remotes configured already", maxRemotes)
	}
	c.remotes = append(c.remotes, r)
	return nil
}

// Remove deletes the remote called name.
func (c *Config) Remove(name string) error {
	for i, r := range c.remotes {
		if r.Name == name {
			c.remotes = append(c.remotes[:i:i], c.remotes[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("%q: %w", handoff.Shorten(name, 40), ErrNoRemote)
}

// records are the remotes' lines, sorted by name.
func (c *Config) records() [][]string {
	var out [][]string
	for _, r := range c.List() {
		out = append(out, []string{r.Name, r.URL, r.branch()})
	}
	return out
}

// UpdateConfig loads the remotes in dir, lets fn change them and writes
// them back atomically (mode 0600: a URL may carry a token), all under the
// lock file remotes.lock. If fn fails, nothing is written.
func UpdateConfig(dir string, fn func(*Config) error) error {
	return configFile(dir).Update(func() ([][]string, error) {
		c, err := LoadConfig(dir)
		if err != nil {
			return nil, err
		}
		if err := fn(c); err != nil {
			return nil, err
		}
		return c.records(), nil
	})
}

// ErrNoRemotes is returned by Select and Pick when no remote is
// configured.
var ErrNoRemotes = errors.New("no remote configured")

// SeveralError is Pick's error when no name is given and more than one
// remote is configured: the caller must choose.
type SeveralError struct {
	Names []string // the configured remotes, sorted
}

func (e *SeveralError) Error() string {
	return "several remotes (" + strings.Join(e.Names, ", ") + ")"
}

// Select is the remotes a receive or an inbox listing goes through: the
// one called name (ErrNoRemote if there is none), or, for an empty name,
// every remote (ErrNoRemotes when none is configured).
func (c *Config) Select(name string) ([]Remote, error) {
	if name != "" {
		r, err := c.Get(name)
		if err != nil {
			return nil, err
		}
		return []Remote{r}, nil
	}
	list := c.List()
	if len(list) == 0 {
		return nil, ErrNoRemotes
	}
	return list, nil
}

// Pick is the one remote a send goes through: the one called name, or,
// for an empty name, the only one configured (ErrNoRemotes when there is
// none, a *SeveralError when there are more).
func (c *Config) Pick(name string) (Remote, error) {
	if name != "" {
		return c.Get(name)
	}
	list := c.List()
	switch len(list) {
	case 0:
		return Remote{}, ErrNoRemotes
	case 1:
		return list[0], nil
	}
	e := &SeveralError{}
	for _, r := range list {
		e.Names = append(e.Names, r.Name)
	}
	return Remote{}, e
}

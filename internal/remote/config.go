package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/safefile"
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
	namePattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	branchPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$`)
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
func (r Remote) DisplayURL() string { return capture.StripCredentials(r.URL) }

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
	if !namePattern.MatchString(name) {
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
	bad := !branchPattern.MatchString(b) || strings.Contains(b, "..") || strings.Contains(b, "//") ||
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

// LoadConfig reads the remotes configured in dir; a missing file is an
// empty list.
func LoadConfig(dir string) (*Config, error) {
	c := &Config{path: ConfigPath(dir)}
	data, err := safefile.ReadFile(c.path, maxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read remotes %s: %w", c.path, err)
	}
	lines := strings.Split(string(data), "\n")
	if strings.TrimRight(lines[0], "\r") != configHeader {
		return nil, fmt.Errorf("%s:1: not a session-handoff remotes file (want %q)", c.path, configHeader)
	}
	for i, line := range lines[1:] {
		n := i + 2
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want NAME, URL and BRANCH separated by tabs", c.path, n)
		}
		r := Remote{Name: f[0], URL: f[1], Branch: f[2]}
		if err := r.Check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", c.path, n, err)
		}
		if _, ok := c.Lookup(r.Name); ok {
			return nil, fmt.Errorf("%s:%d: remote %s is listed twice", c.path, n, r.Name)
		}
		if len(c.remotes) >= maxRemotes {
			return nil, fmt.Errorf("%s:%d: more than %d remotes", c.path, n, maxRemotes)
		}
		c.remotes = append(c.remotes, r)
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

func (c *Config) marshal() []byte {
	var s strings.Builder
	s.WriteString(configHeader + "\n")
	s.WriteString("# NAME<TAB>URL<TAB>BRANCH; managed by 'session-handoff remote'\n")
	for _, r := range c.List() {
		s.WriteString(r.Name + "\t" + r.URL + "\t" + r.branch() + "\n")
	}
	return []byte(s.String())
}

// UpdateConfig loads the remotes in dir, lets fn change them and writes
// them back atomically (mode 0600: a URL may carry a token), all under the
// lock file remotes.lock. If fn fails, nothing is written.
func UpdateConfig(dir string, fn func(*Config) error) error {
	return safefile.Update(ConfigPath(dir), "remotes", 0o600, func() ([]byte, error) {
		c, err := LoadConfig(dir)
		if err != nil {
			return nil, err
		}
		if err := fn(c); err != nil {
			return nil, err
		}
		return c.marshal(), nil
	})
}

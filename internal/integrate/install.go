package integrate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// MaxSettings bounds a settings file we read.
const MaxSettings = 1 << 20

// Change is an edit to one settings file, planned before it is made.
type Change struct {
	Path   string
	Before []byte // nil when the file does not exist
	After  []byte // nil when the file is to be removed
	// Snippets are the inserted texts (for an install).
	Snippets []string
	// Exact is set for a removal that restores the file as it was before
	// the install, byte for byte.
	Exact bool
	// Nothing is set when there is nothing to do.
	Nothing bool
	// Key names the install in the state directory; empty is Path. Two
	// installs in one file (hooks and an MCP server) need two keys.
	Key string
	// dirs are the directories the install made for the file, deepest
	// first, which a removal of the file takes away when empty.
	dirs []string
}

// key is the name the change is recorded under.
func (c *Change) key() string {
	if c.Key != "" {
		return c.Key
	}
	return c.Path
}

// record is what an install leaves in the state directory, for Remove.
type record struct {
	Path     string   `json:"path"`
	Created  bool     `json:"created"`
	Backup   string   `json:"backup,omitempty"`
	Written  string   `json:"written_sha256"`
	Snippets []string `json:"snippets"`
	// Dirs are the directories the install made for the file, deepest
	// first (.pi/extensions, then .pi); an install recorded before they
	// were kept has none, and its removal takes the file's own directory
	// when empty.
	Dirs []string `json:"dirs,omitempty"`
}

func recordPath(stateDir, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(stateDir, hex.EncodeToString(sum[:8])+".json")
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// readSettings reads a settings file, bounded; missing gives nil.
func readSettings(path string) ([]byte, error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link; edit the file it points to by hand, or replace the link", path)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := safefile.ReadFile(path, MaxSettings)
	if err != nil {
		return nil, safefile.Wrap("read", path, err)
	}
	return data, nil
}

// PlanInstall works out how to add hooks to the settings file at path.
func PlanInstall(path string, hooks []Hook, agent string) (*Change, error) {
	before, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	c := &Change{Path: path, Before: before}
	if before != nil && Installed(before, agent) {
		c.Nothing = true
		return c, nil
	}
	after, snippets, err := Insert(before, hooks)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.After, c.Snippets = after, snippets
	return c, nil
}

// PlanHooks works out how to install a's hooks, running program, in the
// file at path: entries inserted into its settings file, or, for an agent
// whose hooks are a file of their own (HookSpec.Whole: a plugin or an
// extension), that file written whole. A file at path that is not ours is
// refused; one of ours that differs (another program, an older version of
// the file) is replaced.
func PlanHooks(a Agent, path, program string) (*Change, error) {
	hooks := a.Hooks(program)
	if a.Whole == nil {
		return PlanInstall(path, hooks, a.Name)
	}
	var whole []agent.WholeHook
	for i, h := range hooks {
		whole = append(whole, agent.WholeHook{Ours: a.Events[i].Ours, Event: h.Event, Command: h.Command, Timeout: h.Timeout})
	}
	content := a.Whole(whole)
	before, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	c := &Change{Path: path, Before: before}
	switch {
	case bytes.Equal(before, content):
		c.Nothing = true
		return c, nil
	case before != nil && !Installed(before, a.Name):
		return nil, fmt.Errorf("%s exists and is not session-handoff's: move it away, or install in the other scope", path)
	}
	c.After, c.Snippets = content, []string{string(content)}
	return c, nil
}

// Installed reports whether text holds our hooks for agent.
func Installed(text []byte, agent string) bool {
	return bytes.Contains(text, []byte(" hook "+agent+" session-start\""))
}

// ApplyInstall makes the change, keeping a backup of the file as it was
// and a record in stateDir from which PlanRemove can undo it exactly.
func ApplyInstall(c *Change, stateDir string) error {
	if c.Nothing {
		return nil
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	rec := record{Path: c.Path, Created: c.Before == nil, Written: digest(c.After), Snippets: c.Snippets, Dirs: missingDirs(filepath.Dir(c.Path))}
	if c.Before != nil {
		rec.Backup = strings.TrimSuffix(recordPath(stateDir, c.key()), ".json") + ".backup"
		if err := safefile.WriteFile(rec.Backup, c.Before, 0o600); err != nil {
			return fmt.Errorf("back up %s: %w", c.Path, err)
		}
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.WriteFile(recordPath(stateDir, c.key()), data, 0o600); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if info, err := os.Stat(c.Path); err == nil {
		mode = info.Mode().Perm()
	}
	if err := safefile.WriteFile(c.Path, c.After, mode); err != nil {
		return safefile.Wrap("write", c.Path, err)
	}
	return nil
}

// missingDirs are dir and its parents that do not exist, deepest first.
func missingDirs(dir string) []string {
	var out []string
	for {
		if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// PlanRemove works out how to take our hooks out of the settings file at
// path: when the file is as the install left it, it is restored byte for
// byte (or removed, if the install created it); otherwise exactly the
// inserted text is taken out and the user's later edits are kept.
func PlanRemove(path, stateDir string) (*Change, error) {
	return planRemove(path, "", stateDir)
}

// planRemove is PlanRemove of the install recorded under key ("" is
// path).
func planRemove(path, key, stateDir string) (*Change, error) {
	current, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	c := &Change{Path: path, Before: current, Key: key}
	data, err := safefile.ReadFile(recordPath(stateDir, c.key()), MaxSettings)
	if errors.Is(err, fs.ErrNotExist) {
		c.Nothing = true
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", recordPath(stateDir, c.key()), err)
	}
	if current == nil {
		c.Nothing = true
		return c, nil
	}
	if digest(current) == rec.Written {
		c.Exact = true
		if rec.Created {
			c.dirs = rec.Dirs
			return c, nil // After nil: remove the file we created
		}
		backup, err := safefile.ReadFile(rec.Backup, MaxSettings)
		if err != nil {
			return nil, fmt.Errorf("read the backup of %s: %w", path, err)
		}
		c.After = backup
		return c, nil
	}
	after, n, err := Remove(current, rec.Snippets)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n == 0 {
		c.Nothing = true
		return c, nil
	}
	c.After = after
	return c, nil
}

// ApplyRemove makes a removal and forgets the install.
func ApplyRemove(c *Change, stateDir string) error {
	if !c.Nothing {
		if c.After == nil {
			if err := safefile.Remove(c.Path); err != nil {
				return safefile.Wrap("remove", c.Path, err)
			}
			// The file was integrate's: so are the directories the
			// install made for it (.claude, .pi/extensions and .pi),
			// when it leaves them empty. One that holds anything else
			// stays (os.Remove refuses a directory that is not empty).
			dirs := c.dirs
			if dirs == nil {
				dirs = []string{filepath.Dir(c.Path)} // recorded before dirs were
			}
			for _, d := range dirs {
				os.Remove(d)
			}
		} else {
			mode := fs.FileMode(0o644)
			if info, err := os.Stat(c.Path); err == nil {
				mode = info.Mode().Perm()
			}
			if err := safefile.WriteFile(c.Path, c.After, mode); err != nil {
				return safefile.Wrap("write", c.Path, err)
			}
		}
	}
	rp := recordPath(stateDir, c.key())
	if err := safefile.Remove(strings.TrimSuffix(rp, ".json") + ".backup"); err != nil {
		return err
	}
	return safefile.Remove(rp)
}

// Diff shows a change as lines removed (-) and added (+) between the
// common beginning and end of the two texts.
func Diff(c *Change) string {
	a := strings.SplitAfter(string(c.Before), "\n")
	b := strings.SplitAfter(string(c.After), "\n")
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n@@ line %d @@\n", c.Path, c.Path, p+1)
	for _, l := range a[p : len(a)-s] {
		out.WriteString("-" + strings.TrimSuffix(l, "\n") + "\n")
	}
	for _, l := range b[p : len(b)-s] {
		out.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
	}
	return out.String()
}
